/**
 * Generated files in a folder on this machine's disk (`<data dir>/files`): the embedded default.
 * Each is written to a temporary name and renamed, so a crash never leaves half a file under a
 * valid name.
 */
import { createReadStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore, PutMeta, StoredObject } from './store.ts';

export class LocalStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly location: string;

  /** @param dir the folder (created when missing, readable by this user alone: 0700; files 0600). */
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.location = dir;
  }

  async put(name: string, body: Buffer, _meta: PutMeta): Promise<void> {
    const path = this.pathOf(name);
    try {
      writeFileSync(`${path}.tmp`, body, { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
    } catch (e) {
      rmSync(`${path}.tmp`, { force: true });
      throw e;
    }
  }

  async get(name: string): Promise<StoredObject | null> {
    const path = this.pathOf(name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    return { body: createReadStream(path), size: info.size };
  }

  async delete(name: string): Promise<void> {
    rmSync(this.pathOf(name), { force: true });
  }

  async ping(): Promise<void> {
    await access(this.dir, constants.W_OK);
  }

  close(): void {}

  private pathOf(name: string): string {
    if (!/^[0-9a-f]{32}\.[a-z]{3,4}$/.test(name)) throw new Error(`not a stored file name: ${name}`);
    return join(this.dir, name);
  }
}
