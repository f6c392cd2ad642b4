/**
 * Compressed request bodies (`Content-Encoding: gzip` or `deflate`): inflated as they stream in,
 * and stopped as soon as the inflated bytes pass the body limit (the same PLATEN_MAX_BODY_BYTES,
 * or a route's own limit, as an uncompressed body), so a small body that inflates to gigabytes
 * is refused with 413 after at most the limit and one zlib chunk. Any other coding is 415. The
 * compressed bytes themselves are limited by body-limit.ts, from Content-Length or as they stream.
 *
 * After authentication and the team's in-flight budget: nothing is inflated for a caller who may
 * not send it. The inflated body is handed to the request's body cache, where Hono's json(),
 * formData() and parseBody() read it (JSON and multipart bodies alike).
 */
import { createGunzip, createInflate, createInflateRaw, type Gunzip, type Inflate, type InflateRaw } from 'node:zlib';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app.ts';
import { ApiError } from '../errors.ts';
import type { RouteBodyLimit } from './body-limit.ts';

/** Content codings of a request body this service inflates (x-gzip: gzip's old name, RFC 9110). */
const CODINGS = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate' } as const;
type Coding = (typeof CODINGS)[keyof typeof CODINGS];

class InflatedTooLarge extends Error {}
/** A deflate body with bytes after the end of its stream (gzip's own check refuses them in gzip). */
class TrailingData extends Error {}

/** The content codings a Content-Encoding header names, lower case, `identity` left out ([] when none). */
export function contentCodings(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
}

/**
 * HTTP's "deflate" is the zlib format (RFC 1950), but some clients send raw deflate (RFC 1951):
 * a zlib stream starts with a header whose compression method is 8 and whose two bytes are a
 * multiple of 31.
 */
function isZlibHeader(head: Uint8Array): boolean {
  return head.length >= 2 && (head[0] & 0x0f) === 8 && head[0] >> 4 <= 7 && ((head[0] << 8) | head[1]) % 31 === 0;
}

/**
 * The inflated body, at most `maxBytes`: each compressed chunk is written once the previous one
 * is inflated, and the inflater is destroyed the moment its output passes the limit (zlib checks
 * for that between its 16 KiB output chunks), the rest of the upload unread.
 * @throws InflatedTooLarge past the limit; zlib's error (with `errno`) for data not of the coding.
 */
async function inflate(body: ReadableStream<Uint8Array>, coding: Coding, maxBytes: number): Promise<Buffer> {
  const reader = body.getReader();
  try {
    // deflate: zlib or raw, told by the first two bytes.
    let head: Uint8Array = new Uint8Array(0);
    let ended = false;
    while (head.length < 2) {
      const r = await reader.read();
      if (r.done) {
        ended = true;
        break;
      }
      head = head.length === 0 ? r.value : Buffer.concat([head, r.value]);
    }
    const inflater: Gunzip | Inflate | InflateRaw = coding === 'gzip' ? createGunzip() : isZlibHeader(head) ? createInflate() : createInflateRaw();
    const chunks: Buffer[] = [];
    let size = 0;
    const finished = new Promise<void>((resolve, reject) => {
      inflater.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) inflater.destroy(new InflatedTooLarge());
        else chunks.push(chunk);
      });
      inflater.once('end', resolve);
      inflater.once('error', reject);
    });
    finished.catch(() => {}); // awaited below; an error while a write or read is pending must not go unhandled
    // A write or a read of the upload, cut short when the inflater fails (past the limit, bad data):
    // the client may be holding the rest of a bomb back, and the answer must not wait for it.
    const unlessFailed = <T>(step: Promise<T>): Promise<T> => Promise.race([step, finished.then(() => step)]);
    let sent = 0;
    const write = (chunk: Uint8Array) => {
      sent += chunk.length;
      return unlessFailed(new Promise<void>((resolve, reject) => void inflater.write(chunk, (err) => (err ? reject(err) : resolve()))));
    };
    if (head.length > 0) await write(head);
    while (!ended) {
      const r = await unlessFailed(reader.read());
      if (r.done) break;
      await write(r.value);
    }
    inflater.end();
    await finished;
    // zlib stops at the end of the deflate stream and ignores what follows; bytesWritten counts
    // what it read. Bytes after the end are not part of the body: a client error, not to be dropped.
    if (coding === 'deflate' && sent > inflater.bytesWritten) throw new TrailingData(`${sent - inflater.bytesWritten} bytes follow the end of the deflate stream`);
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
  } finally {
    // After the whole body: nothing left. Past the limit or on bad data: the upload is not read further.
    await reader.cancel().catch(() => {});
  }
}

/**
 * The middleware. @param opts the body limits of body-limit.ts (the inflated body has the same).
 * @throws ApiError 415 for a coding other than gzip, deflate or identity; 413 past the limit once
 *   inflated; 400 BAD_REQUEST for a body that is not valid data of its coding.
 */
export function bodyDecoding(opts: { maxBytes: number; routeLimit?: (method: string, path: string) => RouteBodyLimit | undefined }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('content-encoding');
    const codings = contentCodings(header);
    if (codings.length === 0) return next();
    const body = c.req.raw.body;
    const declared = c.req.header('content-length');
    if (body === null || (declared !== undefined && c.req.header('transfer-encoding') === undefined && Number(declared) === 0)) return next();
    if (codings.length > 1) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `the request body is encoded more than once (Content-Encoding: ${header}): send it compressed once, with gzip or deflate, or uncompressed`);
    }
    const coding = CODINGS[codings[0] as keyof typeof CODINGS] as Coding | undefined;
    if (coding === undefined) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${codings[0]}" is not supported for request bodies: send the body uncompressed, or compressed with gzip or deflate`);
    }
    const own = opts.routeLimit?.(c.req.method, c.req.path);
    const maxBytes = own?.maxBytes ?? opts.maxBytes;
    let inflated: Buffer;
    try {
      inflated = await inflate(body, coding, maxBytes);
    } catch (e) {
      if (e instanceof InflatedTooLarge) {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBytes} bytes${own ? ` ${own.what}` : ''} once inflated (Content-Encoding: ${codings[0]})`);
      }
      if (e instanceof TrailingData || (e instanceof Error && typeof (e as { errno?: unknown }).errno === 'number')) {
        throw new ApiError(400, 'BAD_REQUEST', `the request body is not valid ${coding} data (Content-Encoding: ${codings[0]}): ${e.message}`);
      }
      throw e;
    }
    // Hono's body readers (json, text, formData, parseBody) take any cached form of the body.
    const whole = inflated.byteOffset === 0 && inflated.byteLength === inflated.buffer.byteLength;
    const bytes = (whole ? inflated.buffer : inflated.buffer.slice(inflated.byteOffset, inflated.byteOffset + inflated.byteLength)) as ArrayBuffer;
    c.req.bodyCache.arrayBuffer = Promise.resolve(bytes) as unknown as ArrayBuffer;
    return next();
  });
}
