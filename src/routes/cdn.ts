/**
 * Signed file URLs (DESIGN §4): GET /cdn/<id>/<filename>.pdf (.png, .jpg)?expires=&signature=. No API key; a
 * wrong signature or a past expiry is 403 and serves nothing. The bytes come from the file store
 * (local disk, or the S3 bucket every node shares); a store that cannot be read is 503
 * STORAGE_UNAVAILABLE.
 */
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../app.ts';
import { contentTypeOf } from '../services/files.ts';
import { StorageFailure } from '../storage/store.ts';

export function cdnRoutes(s: Pick<Services, 'files' | 'log'>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const forbidden = { code: 'FORBIDDEN', detail: 'the link is invalid or has expired' } as const;
  app.get('/:id/:filename', async (c) => {
    const { id, filename } = c.req.param();
    if ((await s.files.resolve(id, filename, c.req.query('expires'), c.req.query('signature'))) === null) return c.json(forbidden, 403);
    let file;
    try {
      file = await s.files.open(id);
    } catch (e) {
      if (!(e instanceof StorageFailure)) throw e;
      s.log.error({ err: e, file: id }, 'file store unreadable');
      return c.json({ code: 'STORAGE_UNAVAILABLE', detail: `${e.message}; try again later` }, 503);
    }
    if (!file) return c.json(forbidden, 403);
    const headers: Record<string, string> = {
      'Content-Type': contentTypeOf(filename),
      'Content-Disposition': `inline; filename="${filename.replace(/"/g, '')}"`,
      // A browser may keep it for 5 minutes, never past the link's expiry.
      'Cache-Control': `private, max-age=${Math.max(0, Math.min(300, Number(c.req.query('expires')) - Math.floor(Date.now() / 1000)))}`,
    };
    if (file.size >= 0) headers['Content-Length'] = String(file.size);
    return c.body(Readable.toWeb(file.body) as ReadableStream, 200, headers);
  });
  return app;
}
