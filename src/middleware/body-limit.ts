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

/** The limits: `maxBytes` for every request, or a route's own (`routeLimit`). */
export interface BodyLimitOptions {
  /** The largest body accepted, in bytes. */
  maxBytes: number;
  /** A request's own limit instead of `maxBytes` (undefined: `maxBytes`), enforced the same way. */
  routeLimit?: (method: string, path: string) => RouteBodyLimit | undefined;
}

/** The limit of a request, with its 413 and Hono's streaming counter for it. */
function limitsOf(opts: BodyLimitOptions) {
  const limiter = (maxBytes: number, what: string) => {
    const tooLarge = (): never => {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBytes} bytes${what}`);
    };
    return { maxBytes, tooLarge, streaming: streamingBodyLimit({ maxSize: maxBytes, onError: tooLarge }) };
  };
  const general = limiter(opts.maxBytes, '');
  return (method: string, path: string) => {
    const own = opts.routeLimit?.(method, path);
    return own ? limiter(own.maxBytes, ` ${own.what}`) : general;
  };
}

/** Whether a request's body has a declared length (Content-Length without Transfer-Encoding), or none to read. */
function needsNoCounting(method: string, length: string | undefined, chunked: boolean): boolean {
  return (length !== undefined && !chunked) || (!chunked && (method === 'GET' || method === 'HEAD'));
}

/**
 * A declared Content-Length over the limit is refused from the header alone (413). A body without
 * one (chunked) is counted as it streams, which means reading it whole (up to the limit) before
 * the route runs; on `readLater` paths it is left for {@link streamedBodyLimit}, placed after
 * authentication, so that a caller without a key cannot make the service buffer a body at all.
 */
export function bodyLimit(opts: BodyLimitOptions & { readLater?: (path: string) => boolean }) {
  const limitOf = limitsOf(opts);
  return createMiddleware<AppEnv>(async (c, next) => {
    const { maxBytes, tooLarge, streaming } = limitOf(c.req.method, c.req.path);
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length !== undefined && !chunked && Number(length) > maxBytes) tooLarge();
    if (needsNoCounting(c.req.method, length, chunked) || opts.readLater?.(c.req.path)) return next();
    return streaming(c, next);
  });
}

/**
 * The bodies `bodyLimit` left for later (no Content-Length, on its `readLater` paths): counted as
 * they stream and refused (413) past the limit. Same options as `bodyLimit`.
 */
export function streamedBodyLimit(opts: BodyLimitOptions) {
  const limitOf = limitsOf(opts);
  return createMiddleware<AppEnv>(async (c, next) => {
    if (needsNoCounting(c.req.method, c.req.header('content-length'), c.req.header('transfer-encoding') !== undefined)) return next();
    return limitOf(c.req.method, c.req.path).streaming(c, next);
  });
}
