/**
 * Generated files on local disk, served by the service itself through signed, expiring URLs
 * (spec §1, §2.3; DESIGN §4):
 *   {cdn_url}/<opaque id>/<filename>.pdf?expires=<unix s>&signature=<hex>
 * The signature is HMAC-SHA256 with PLATEN_SECRET over "<id>/<filename>\n<expires>"; it is checked
 * in constant time. A sweeper deletes each file once its last URL has expired.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';

export interface StoredFile {
  url: string;
  /** Unix seconds at which the URL stops working. */
  expiresAt: number;
}

export class FileStore {
  private readonly dir: string;

  /** `urls.cdnUrl` is read at each use: the server may learn its port after building the store. */
  constructor(
    private readonly db: Db,
    dataDir: string,
    private readonly urls: { readonly cdnUrl: string },
    private readonly secret: string,
  ) {
    this.dir = join(dataDir, 'files');
    mkdirSync(this.dir, { recursive: true });
  }

  /**
   * Store a PDF for `expiresIn` seconds and return its signed URL. `filename` includes ".pdf".
   * The row goes in first, so no file is ever on disk without a row for the sweeper to find; if
   * the file cannot be written, the row (and any partial file) is removed again.
   */
  async save(teamId: string, filename: string, pdf: Buffer, expiresIn: number, now = new Date()): Promise<StoredFile> {
    const id = randomBytes(16).toString('hex');
    const path = this.pathOf(id);
    const expiresAt = Math.floor(now.getTime() / 1000) + expiresIn;
    const { orm, t: { generatedFiles } } = this.db;
    await orm.insert(generatedFiles).values({ id, teamId, filename, bytes: pdf.length, createdAt: now.toISOString(), expiresAt });
    try {
      // Write then rename, so a crash never leaves a half-written file behind a valid URL.
      writeFileSync(`${path}.tmp`, pdf);
      renameSync(`${path}.tmp`, path);
    } catch (e) {
      rmSync(`${path}.tmp`, { force: true });
      await orm.delete(generatedFiles).where(eq(generatedFiles.id, id));
      throw e;
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
   * The file's path when the URL is genuine and unexpired and the file still exists; else null.
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
    return row ? this.pathOf(id) : null;
  }

  /** Delete files whose URLs have all expired. @returns how many were deleted. */
  async sweep(now = new Date()): Promise<number> {
    const cutoff = Math.floor(now.getTime() / 1000);
    const { orm, t: { generatedFiles } } = this.db;
    const expired = await orm.select({ id: generatedFiles.id }).from(generatedFiles).where(lt(generatedFiles.expiresAt, cutoff));
    for (const { id } of expired) {
      rmSync(this.pathOf(id), { force: true });
      await orm.delete(generatedFiles).where(eq(generatedFiles.id, id));
    }
    return expired.length;
  }

  private pathOf(id: string): string {
    return join(this.dir, `${id}.pdf`);
  }
}
