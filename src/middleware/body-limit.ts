/**
 * Request body limit (DESIGN §4: 413 PAYLOAD_TOO_LARGE). A declared Content-Length is checked
 * from the header alone; only a body without one (chunked) goes through Hono's bodyLimit, which
 * counts the bytes as they stream. Hono's middleware reads `c.req.raw.body` first, and on the Node
 * adapter that alone builds a full fetch Request (streams, an AbortController) for every request:
 * a measurable share of the main thread's time per render.
 */
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../app.ts';

/** A limit of its own for some requests (uploads): its bytes and what to call it in the 413. */
export interface RouteBodyLimit {
  maxBytes: number;
  /** Said after the number in the 413's message, e.g. "(PLATEN_ASSET_MAX_BYTES and the multipart framing)". */
  what: string;
}

/**
 * @param opts.maxBytes the largest body accepted, in bytes.
 * @param opts.routeLimit a request's own limit instead of `maxBytes` (undefined: `maxBytes`),
 *   enforced the same way: from Content-Length before the body is read, or while it streams.
 */
export function bodyLimit(opts: { maxBytes: number; routeLimit?: (method: string, path: string) => RouteBodyLimit | undefined }) {
  const limiter = (maxBytes: number, what: string) => {
    const tooLarge = (): never => {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBytes} bytes${what}`);
    };
    return { maxBytes, tooLarge, streaming: streamingBodyLimit({ maxSize: maxBytes, onError: tooLarge }) };
  };
  const general = limiter(opts.maxBytes, '');
  return createMiddleware<AppEnv>(async (c, next) => {
    const own = opts.routeLimit?.(c.req.method, c.req.path);
    const { maxBytes, tooLarge, streaming } = own ? limiter(own.maxBytes, ` ${own.what}`) : general;
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length !== undefined && !chunked) {
      if (Number(length) > maxBytes) tooLarge();
      return next();
    }
    if (!chunked && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next();
    return streaming(c, next);
  });
}
