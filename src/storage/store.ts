/**
 * Where generated files live: a blob store with two implementations, chosen by
 * PLATEN_STORAGE_URL. Local disk (the data dir's `files` folder) is the default; an S3-compatible
 * bucket (`s3://bucket/prefix`) is shared by every node of a cluster, so a signed URL made by one
 * node is served by any other.
 *
 * The store holds bytes only. Which files exist, for which team and until when, is in the
 * database (generated_files): the signed URL is checked against it and the sweeper deletes what
 * it lists as expired, from whichever store holds it.
 */
import type { Readable } from 'node:stream';

/** A store operation failed (unreachable, refused, timed out); `message` names the store and is fit for an API answer. */
export class StorageFailure extends Error {
  /** The job error code of a job whose file it lost. */
  readonly code = 'STORAGE_UNAVAILABLE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'StorageFailure';
  }
}

/** An object read from a store: its bytes as a stream and their count. */
export interface StoredObject {
  body: Readable;
  size: number;
}

/** What a store keeps with an object. */
export interface PutMeta {
  contentType: string;
  /** Unix seconds after which no URL of the object works any more. */
  expiresAt: number;
  teamId: string;
}

/** A place for generated files, addressed by `name` (`<id>.pdf`). Every method may throw StorageFailure. */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Where it is, for logs and /healthz: a folder, or `s3://bucket/prefix at <endpoint>`. */
  readonly location: string;
  /** Store `body` under `name`, whole or not at all. */
  put(name: string, body: Buffer, meta: PutMeta): Promise<void>;
  /** The object, or null when there is none under `name`. */
  get(name: string): Promise<StoredObject | null>;
  /** Delete `name`; nothing when it is not there. */
  delete(name: string): Promise<void>;
  /** Resolves when the store can be written to (folder writable, bucket reachable). */
  ping(): Promise<void>;
  /** Release connections. */
  close(): void;
}
