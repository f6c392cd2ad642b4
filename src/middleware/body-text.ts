/**
 * Request bodies that are text (JSON) must be UTF-8: a byte sequence that is not would otherwise
 * be read as U+FFFD and stored or drawn as that, silently (`"bad \xff byte"` saved as "bad �
 * byte"). Refused with 400 BAD_REQUEST naming the byte, before the body is parsed. Multipart
 * bodies (asset uploads) are files, not text: left alone.
 */
import { isUtf8 } from 'node:buffer';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../app.ts';
import { ApiError } from '../errors.ts';

/**
 * Where the first byte of `bytes` that does not start or continue a well-formed UTF-8 sequence is
 * (a 0-based offset), or -1 when all of it is UTF-8. Overlong forms, surrogates (CESU-8) and code
 * points past U+10FFFF are not well formed (RFC 3629).
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The sequence's length and the range of its second byte (what rules out overlong forms, surrogates and > U+10FFFF).
    const [n, lo, hi] = b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf] : b === 0xed ? [3, 0x80, 0x9f] : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : [0, 0, 0];
    if (n === 0) return i;
    if (i + 1 >= bytes.length || bytes[i + 1] < lo || bytes[i + 1] > hi) return i;
    for (let k = 2; k < n; k++) if (i + k >= bytes.length || bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
    i += n;
  }
  return -1;
}

/** The middleware: after the body is read within its limits (and inflated). @throws ApiError 400 BAD_REQUEST. */
export function bodyText() {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.raw.body === null || /^multipart\//i.test(c.req.header('content-type') ?? '')) return next();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (!isUtf8(bytes)) {
      const at = firstInvalidUtf8(bytes);
      const shown = Array.from(bytes.subarray(at, at + 4), (x) => x.toString(16).padStart(2, '0')).join(' ');
      throw new ApiError(400, 'BAD_REQUEST', `the request body is not valid UTF-8: byte ${at} (${shown}) does not start or continue a character; send JSON as UTF-8`);
    }
    return next();
  });
}
