/**
 * Images by URL: fetched by the service before a render (the engine never fetches), over https
 * only, from public addresses only (the rules of webhook targets, network.ts: every address the
 * host resolves to is checked on the connection itself, IP literals before it; unless
 * PLATEN_IMAGE_ALLOW_PRIVATE is set), each redirect checked again, within a size limit
 * (PLATEN_IMAGE_FETCH_MAX_BYTES) and a deadline for the whole fetch, redirects included
 * (PLATEN_IMAGE_FETCH_TIMEOUT_MS).
 *
 * Fetched images are kept in a cache keyed by URL with a budget in bytes (PLATEN_IMAGE_CACHE_MB):
 * an entry is used as it is while the server's `Cache-Control: max-age` says it is fresh (an hour
 * at most), and revalidated otherwise with `If-None-Match` (its ETag) or `If-Modified-Since` (its
 * Last-Modified): a 304 answer keeps the cached bytes. Answers without either validator, and
 * `no-store` ones, are not kept. Concurrent fetches of one URL share one request.
 */
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { literalAddressProblem, publicOnlyLookup } from './network.ts';

/** A URL that could not be fetched; `message` says why, fit for an API answer. */
export class ImageFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageFetchError';
  }
}

/** Settings of an {@link ImageFetcher}. */
export interface ImageFetchOptions {
  /** Allow private, loopback and reserved addresses (development and tests only). */
  allowPrivate: boolean;
  /** Largest image body, bytes. */
  maxBytes: number;
  /** Deadline of one fetch, redirects included, ms. */
  timeoutMs: number;
  /** Budget of the cache, bytes (0: no cache). */
  cacheBytes: number;
  /** Extra trusted CA certificates (PEM), besides Node's bundled ones (PLATEN_IMAGE_FETCH_CA_FILE). */
  ca?: string;
  /** Redirects followed at most. Default 5. */
  maxRedirects?: number;
}

interface Cached {
  bytes: Buffer;
  etag?: string;
  lastModified?: string;
  /** Date.now() until which the entry is used without asking the server. */
  freshUntil: number;
}

/** Longest time an entry is used without revalidation, whatever max-age says, ms. */
const MAX_FRESH_MS = 3_600_000;
const MAX_URL_LENGTH = 2048;

/** The media type of image bytes by their first bytes: PNG, JPEG or SVG; null for anything else. */
export function sniffImageType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | 'image/svg+xml' | null {
  if (bytes.length >= 8 && Buffer.from(bytes.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = Buffer.from(bytes.subarray(0, 4096)).toString('utf8').replace(/^\uFEFF/, '');
  const rest = head.replace(/^(\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>)*/i, '');
  return /^<([A-Za-z_][\w.-]*:)?svg[\s>/]/.test(rest) ? 'image/svg+xml' : null;
}

/** Why `text` may not be fetched as an image URL (not https, credentials, too long), or null. */
export function imageUrlProblem(text: string): string | null {
  if (text.length > MAX_URL_LENGTH) return `URL is longer than ${MAX_URL_LENGTH} characters`;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (u.protocol !== 'https:') return 'only https:// URLs are fetched';
  if (u.username || u.password) return 'URL must not contain credentials';
  return null;
}

/** Fetches images by URL with the rules above; one per process. */
export class ImageFetcher {
  private readonly cache: LRUCache<string, Cached> | null;
  private readonly inFlight = new Map<string, Promise<Buffer>>();
  private readonly lookup;
  private readonly ca: string[] | undefined;

  constructor(private readonly opts: ImageFetchOptions) {
    this.cache = opts.cacheBytes > 0 ? new LRUCache<string, Cached>({ maxSize: opts.cacheBytes, sizeCalculation: (v, k) => Math.max(1, v.bytes.length + k.length) }) : null;
    this.lookup = publicOnlyLookup(opts.allowPrivate, 'image host');
    this.ca = opts.ca ? [...rootCertificates, opts.ca] : undefined;
  }

  /**
   * The bytes of the image at `url` (PNG, JPEG or SVG), from the cache when it is still valid.
   * @throws ImageFetchError saying why (refused address, HTTP status, too large, timed out, not an image).
   */
  fetch(url: string): Promise<Buffer> {
    const running = this.inFlight.get(url);
    if (running) return running;
    const p = this.fetchOnce(url).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, p);
    return p;
  }

  /** The cached bytes of `url` while they are fresh (no request needed), else null. */
  fresh(url: string): Buffer | null {
    const cached = this.cache?.get(url);
    return cached && Date.now() < cached.freshUntil ? cached.bytes : null;
  }

  /** Entries and bytes in the cache (tests, health). */
  get cacheStats(): { entries: number; bytes: number } {
    return { entries: this.cache?.size ?? 0, bytes: this.cache?.calculatedSize ?? 0 };
  }

  private async fetchOnce(url: string): Promise<Buffer> {
    const problem = imageUrlProblem(url);
    if (problem) throw new ImageFetchError(problem);
    const cached = this.cache?.get(url);
    if (cached && Date.now() < cached.freshUntil) return cached.bytes;
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const answer = await this.follow(url, cached, deadline);
    if (answer.status === 304 && cached) {
      cached.freshUntil = freshUntil(answer.headers);
      return cached.bytes;
    }
    const bytes = answer.body!;
    if (!sniffImageType(bytes)) {
      const type = String(answer.headers['content-type'] ?? 'none');
      throw new ImageFetchError(`the answer is not a PNG, JPEG or SVG image (content-type ${type})`);
    }
    const etag = header(answer.headers, 'etag');
    const lastModified = header(answer.headers, 'last-modified');
    const cacheControl = header(answer.headers, 'cache-control') ?? '';
    const fresh = freshUntil(answer.headers);
    if (this.cache && !/no-store/i.test(cacheControl) && (etag || lastModified || fresh > Date.now())) {
      this.cache.set(url, { bytes, etag, lastModified, freshUntil: fresh });
    } else this.cache?.delete(url);
    return bytes;
  }

  /** GET `url`, following redirects (each checked again), within `deadline`. */
  private async follow(url: string, cached: Cached | undefined, deadline: AbortSignal): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body?: Buffer }> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const answer = await this.get(current, current === url ? cached : undefined, deadline);
      if ([301, 302, 303, 307, 308].includes(answer.status)) {
        const location = header(answer.headers, 'location');
        if (!location) throw new ImageFetchError(`the server answered HTTP ${answer.status} without a Location`);
        if (hop >= (this.opts.maxRedirects ?? 5)) throw new ImageFetchError(`more than ${this.opts.maxRedirects ?? 5} redirects`);
        let next: string;
        try {
          next = new URL(location, current).href;
        } catch {
          throw new ImageFetchError(`the server redirected to an invalid URL`);
        }
        const problem = imageUrlProblem(next);
        if (problem) throw new ImageFetchError(`redirected to ${next}: ${problem}`);
        current = next;
        continue;
      }
      if (answer.status === 304 || answer.status === 200) return answer;
      throw new ImageFetchError(`the server answered HTTP ${answer.status}`);
    }
  }

  /** One GET: 200 with its body (at most maxBytes), or the status and headers of anything else. */
  private get(url: string, cached: Cached | undefined, deadline: AbortSignal): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body?: Buffer }> {
    const u = new URL(url);
    if (!this.opts.allowPrivate) {
      // Node connects to an IP literal without calling `lookup`: check it here.
      const problem = literalAddressProblem(u.hostname);
      if (problem) return Promise.reject(new ImageFetchError(`host ${u.hostname} ${problem}`));
    }
    const headers: Record<string, string> = { accept: 'image/png, image/jpeg, image/svg+xml, image/*;q=0.5', 'user-agent': 'Platen image fetcher' };
    if (cached?.etag) headers['if-none-match'] = cached.etag;
    if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
    const max = this.opts.maxBytes;
    return new Promise((resolve, reject) => {
      const fail = (e: unknown) => {
        if (e instanceof ImageFetchError) return reject(e);
        if (deadline.aborted) return reject(new ImageFetchError(`no complete answer within ${this.opts.timeoutMs} ms`));
        const err = e as NodeJS.ErrnoException;
        reject(new ImageFetchError(err.code === 'EPRIVATE' || err.code === 'ETIMEOUT' ? err.message : `the connection failed (${err.code ?? err.message})`));
      };
      const req = request(u, { method: 'GET', headers, lookup: this.lookup as never, signal: deadline, ca: this.ca, agent: false }, (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          // Its body is not wanted (a redirect, a 304, an error): close the connection rather
          // than read it, which a hostile server could keep sending until the deadline.
          res.destroy();
          return resolve({ status, headers: res.headers });
        }
        const length = Number(res.headers['content-length']);
        if (Number.isFinite(length) && length > max) {
          reject(new ImageFetchError(`the image is larger than ${max} bytes (Content-Length ${length})`));
          return res.destroy();
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > max) {
            reject(new ImageFetchError(`the image is larger than ${max} bytes`));
            res.destroy();
          } else chunks.push(c);
        });
        res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('aborted')));
      });
      req.on('error', fail);
      req.end();
    });
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Until when an answer may be used without revalidation: its max-age (an hour at most), else now. */
function freshUntil(headers: Record<string, string | string[] | undefined>): number {
  const cc = header(headers, 'cache-control') ?? '';
  const m = /max-age=(\d+)/i.exec(cc);
  if (!m || /no-cache|no-store/i.test(cc)) return Date.now();
  return Date.now() + Math.min(Number(m[1]) * 1000, MAX_FRESH_MS);
}
