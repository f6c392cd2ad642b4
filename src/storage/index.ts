/** The file store the configuration names: S3 when PLATEN_STORAGE_URL is set, else the data dir's `files` folder. */
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { LocalStore } from './local.ts';
import { S3Store } from './s3.ts';
import type { BlobStore } from './store.ts';

export { StorageFailure, type BlobStore, type StoredObject, type PutMeta } from './store.ts';
export { LocalStore } from './local.ts';
export { S3Store } from './s3.ts';

/**
 * The store of generated files: `<data dir>/files`, or `<prefix>/files/` in the bucket of
 * PLATEN_STORAGE_URL (apart from other things kept there, such as assets under `<prefix>/assets/`,
 * so that a bucket lifecycle rule can expire generated files alone).
 */
export function openFileStore(config: Pick<Config, 'dataDir' | 'storage' | 'storageTimeoutMs'>): BlobStore {
  const s = config.storage;
  if (s.kind === 'local') return new LocalStore(join(config.dataDir, 'files'));
  return new S3Store({ ...s, prefix: s.prefix ? `${s.prefix}/files` : 'files', timeoutMs: config.storageTimeoutMs });
}

/** Build (not yet contact) the configured store: `<data dir>/files`, or the bucket at its prefix. */
export function openStore(config: Pick<Config, 'dataDir' | 'storage' | 'storageTimeoutMs'>): BlobStore {
  const s = config.storage;
  if (s.kind === 'local') return new LocalStore(join(config.dataDir, 'files'));
  return new S3Store({ ...s, timeoutMs: config.storageTimeoutMs });
}
