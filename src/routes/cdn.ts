/**
 * Signed file URLs (DESIGN §4): GET /cdn/<id>/<filename>.pdf?expires=&signature=. No API key; a
 * wrong signature or a past expiry is 403 and serves nothing.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../app.ts';

export function cdnRoutes(s: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/:id/:filename', async (c) => {
    const { id, filename } = c.req.param();
    const path = await s.files.resolve(id, filename, c.req.query('expires'), c.req.query('signature'));
    if (!path) return c.json({ code: 'FORBIDDEN', detail: 'the link is invalid or has expired' }, 403);
    const info = await stat(path).catch(() => null);
    if (!info) return c.json({ code: 'FORBIDDEN', detail: 'the link is invalid or has expired' }, 403);
    return c.body(Readable.toWeb(createReadStream(path)) as ReadableStream, 200, {
      'Content-Type': 'application/pdf',
      'Content-Length': String(info.size),
      'Content-Disposition': `inline; filename="${filename.replace(/"/g, '')}"`,
      'Cache-Control': 'private, max-age=300',
    });
  });
  return app;
}
