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

/** @param opts.maxBytes the largest body accepted, in bytes. */
export function bodyLimit(opts: { maxBytes: number }) {
  const tooLarge = (): never => {
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${opts.maxBytes} bytes`);
  };
  const streaming = streamingBodyLimit({ maxSize: opts.maxBytes, onError: tooLarge });
  return createMiddleware<AppEnv>(async (c, next) => {
    const length = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (length !== undefined && !chunked) {
      if (Number(length) > opts.maxBytes) tooLarge();
      return next();
    }
    if (!chunked && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next();
    return streaming(c, next);
  });
}
