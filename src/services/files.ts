/**
 * Generated files, kept in the configured file store (local disk by default, an S3 bucket with
 * PLATEN_STORAGE_URL: src/storage/) and served through signed, expiring URLs (spec §1, §2.3; DESIGN §4):
 *   {cdn_url}/<opaque id>/<filename>.pdf?expires=<unix s>&signature=<hex>
 * The signature is HMAC-SHA256 with PLATEN_SECRET over "<id>/<filename>\n<expires>"; it is checked
 * in constant time. Every node of a cluster shares the secret, the database and the store, so any
 * node serves a URL any other made. With PLATEN_STORAGE_PUBLIC_URLS=presigned the URL is a
 * presigned S3 GET URL instead. A sweeper deletes each file once its last URL has expired.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { LocalStore } from '../storage/local.ts';
import { S3Store } from '../storage/s3.ts';
import { StorageFailure, type BlobStore, type StoredObject } from '../storage/store.ts';

/** The media type of a generated file, by its extension: image output (.png, .jpg) or a PDF. */
export function contentTypeOf(filename: string): string {
  if (/\.png$/i.test(filename)) return 'image/png';
  if (/\.jpe?g$/i.test(filename)) return 'image/jpeg';
  return 'application/pdf';
}

export interface StoredFile {
  url: string;
  /** Unix seconds at which the URL stops working. */
  expiresAt: number;
}

/** How file URLs are made: `service` (signed /cdn URLs) or `presigned` (S3 presigned GET URLs, signed for `origin`). */
export interface PublicUrlMode {
  mode: 'service' | 'presigned';
  /** Presigned mode: the origin clients reach the bucket at (PLATEN_CDN_URL); undefined: the store's endpoint. */
  origin?: string;
}

export class FileStore {
  /** Where the bytes are. */
  readonly blobs: BlobStore;

  /**
   * `where`: a BlobStore, or a data dir whose `files` folder is used. `urls.cdnUrl` is read at each
   * use: the server may learn its port after building the store.
   */
  constructor(
    private readonly db: Db,
    where: string | BlobStore,
    private readonly urls: { readonly cdnUrl: string },
    private readonly secret: string,
    private readonly publicUrls: PublicUrlMode = { mode: 'service' },
  ) {
    this.blobs = typeof where === 'string' ? new LocalStore(join(where, 'files')) : where;
    if (publicUrls.mode === 'presigned' && !(this.blobs instanceof S3Store)) throw new Error('presigned file URLs need an S3 file store');
  }

  /**
   * Store a PDF (or an image) for `expiresIn` seconds and return its URL. `filename` includes ".pdf"
   * (".png", ".jpg"): it gives the media type.
   * The row goes in first, so no file is ever in the store without a row for the sweeper to find;
   * if the file cannot be stored, the row is removed again.
   * @throws StorageFailure when the store does not take the file (the message names the store).
   */
  async save(teamId: string, filename: string, pdf: Buffer, expiresIn: number, now = new Date()): Promise<StoredFile> {
    const id = randomBytes(16).toString('hex');
    const expiresAt = Math.floor(now.getTime() / 1000) + expiresIn;
    const { orm, t: { generatedFiles } } = this.db;
    await orm.insert(generatedFiles).values({ id, teamId, filename, bytes: pdf.length, createdAt: now.toISOString(), expiresAt });
    try {
      await this.blobs.put(nameOf(id), pdf, { contentType: contentTypeOf(filename), expiresAt, teamId });
    } catch (e) {
      await orm.delete(generatedFiles).where(eq(generatedFiles.id, id));
      throw e instanceof StorageFailure ? e : new StorageFailure(`the file store ${this.blobs.location} failed to write: ${(e as Error).message}`);
    }
    if (this.publicUrls.mode === 'presigned') {
      const url = await (this.blobs as S3Store).presignedUrl(nameOf(id), filename, contentTypeOf(filename), expiresAt, this.publicUrls.origin, now);
      return { url, expiresAt };
    }
    return { url: this.signedUrl(id, filename, expiresAt), expiresAt };
  }

  signedUrl(id: string, filename: string, expiresAt: number): string {
    return `${this.urls.cdnUrl}/${id}/${encodeURIComponent(filename)}?expires=${expiresAt}&signature=${this.sign(id, filename, expiresAt)}`;
  }

  private sign(id: string, filename: string, expiresAt: number): string {
    return createHmac('sha256', this.secret).update(`${id}/${filename}\n${expiresAt}`).digest('hex');
  }

  /**
   * The file's id when the URL is genuine and unexpired and its file is still listed; else null.
   * `expires` and `signature` are the raw query values.
   */
  async resolve(id: string, filename: string, expires: string | undefined, signature: string | undefined, now = new Date()): Promise<string | null> {
    if (!/^[0-9a-f]{32}$/.test(id) || !expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{64}$/.test(signature)) return null;
    const expiresAt = Number(expires);
    const expected = Buffer.from(this.sign(id, filename, expiresAt), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return null;
    if (expiresAt <= Math.floor(now.getTime() / 1000)) return null;
    const { orm, t: { generatedFiles } } = this.db;
    const [row] = await orm.select({ id: generatedFiles.id }).from(generatedFiles).where(and(eq(generatedFiles.id, id), eq(generatedFiles.filename, filename)));
    return row ? id : null;
  }

  /**
   * The bytes of a file `resolve` accepted, or null when the store no longer has them.
   * @throws StorageFailure when the store cannot be read.
   */
  async open(id: string): Promise<StoredObject | null> {
    try {
      return await this.blobs.get(nameOf(id));
    } catch (e) {
      throw e instanceof StorageFailure ? e : new StorageFailure(`the file store ${this.blobs.location} failed to read: ${(e as Error).message}`);
    }
  }

  /**
   * Delete files whose URLs have all expired, from the store and then from the database (a file
   * the store fails to delete keeps its row and is tried again at the next sweep). Several nodes
   * may sweep at once: deleting twice is harmless. @returns how many were deleted.
   * @throws StorageFailure when the store cannot be reached.
   */
  async sweep(now = new Date()): Promise<number> {
    const cutoff = Math.floor(now.getTime() / 1000);
    const { orm, t: { generatedFiles } } = this.db;
    const expired = await orm.select({ id: generatedFiles.id }).from(generatedFiles).where(lt(generatedFiles.expiresAt, cutoff));
    for (const { id } of expired) {
      await this.blobs.delete(nameOf(id));
      await orm.delete(generatedFiles).where(eq(generatedFiles.id, id));
    }
    return expired.length;
  }
}

/** The store name of file `id`. */
function nameOf(id: string): string {
  return `${id}.pdf`;
}
