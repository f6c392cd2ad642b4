/**
 * GET /studio: the template studio, a single-page editor with live previews, and its static files
 * (/studio/<file>), built by scripts/build-studio.mjs into studio/dist (the single binary carries
 * them). Public: the page asks for an API key and keeps it in sessionStorage. GET /docs: the API
 * reference in Swagger UI from the same build (without a build, the plain page of routes/system.ts
 * answers). Their Content Security Policy lets them load nothing from another origin.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../app.ts';
import { ApiError } from '../errors.ts';

const DIST = fileURLToPath(new URL('../../studio/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

/** Same origin only; styles inline (the editor injects its own), WebAssembly for the hover's highlighter. */
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data: blob:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** The built files by name, read once; null when the studio has not been built. */
function loadAssets(dir: string): Map<string, Asset> | null {
  const list = `${dir}build.json`;
  if (!existsSync(list)) return null;
  const { files } = JSON.parse(readFileSync(list, 'utf8')) as { files: string[] };
  const assets = new Map<string, Asset>();
  for (const name of files) {
    const body = readFileSync(`${dir}${name}`);
    assets.set(name, { body, type: TYPES[extname(name)] ?? 'application/octet-stream', etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return assets;
}

/** The studio's routes, at their full paths. `dir`: the built files (default studio/dist). */
export function studioRoutes(dir: string = DIST): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Read on the first request, so that a server starts as fast without the studio.
  let assets: Map<string, Asset> | null | undefined;
  const serve = (c: Context<AppEnv>, name: string) => {
    if (assets === undefined) assets = loadAssets(dir);
    if (assets === null) throw new ApiError(404, 'NOT_FOUND', 'the studio is not built: run `npm run build:studio` (npm ci does it)');
    const asset = name === 'build.json' ? undefined : assets.get(name);
    if (!asset) throw new ApiError(404, 'NOT_FOUND', `no studio file "${name}"`);
    const headers: Record<string, string> = { ETag: asset.etag, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
    if (name.endsWith('.html')) headers['Content-Security-Policy'] = CSP;
    if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304, headers);
    return c.body(new Uint8Array(asset.body), 200, { ...headers, 'Content-Type': asset.type });
  };
  app.get('/studio', (c) => serve(c, 'index.html'));
  // Mounted before routes/system.ts: the interactive reference when built, else that plain page.
  app.get('/docs', async (c, next) => {
    if (assets === undefined) assets = loadAssets(dir);
    if (!assets?.has('docs.html')) return next();
    return serve(c, 'docs.html');
  });
  app.get('/studio/', (c) => c.redirect('/studio', 301));
  app.get('/studio/:file', (c) => serve(c, c.req.param('file')));
  return app;
}
