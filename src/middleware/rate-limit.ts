/**
 * Rate limiting per API key (spec §7.1 429; DESIGN §4): a fixed one-minute window per key, opened
 * by its first request. Every authenticated response carries RateLimit-Limit, RateLimit-Remaining
 * and RateLimit-Reset (seconds until the window frees); a refused one also Retry-After.
 *
 * The windows are counted by a LimitCounter (limit-store.ts): in this process's memory on SQLite,
 * in PostgreSQL for a cluster, so that the limit is per key for all processes together.
 */
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../app.ts';
import { MemoryCounter, type LimitCounter } from './limit-store.ts';

/**
 * @param opts.limit requests per window per key.
 * @param opts.counter where windows are counted (default: in memory, `windowMs` and `now` apply to it).
 * @param opts.name the limit's name, prefixed to its keys in a shared counter (default "api").
 */
export function rateLimit(opts: { limit: number; windowMs?: number; now?: () => number; counter?: LimitCounter; name?: string }) {
  const counter = opts.counter ?? new MemoryCounter(opts.windowMs ?? 60_000, opts.now ?? Date.now);
  const prefix = `${opts.name ?? 'api'}:`;
  return createMiddleware<AppEnv>(async (c, next) => {
    const w = await counter.hit(prefix + c.get('keyId'));
    const reset = Math.max(1, Math.ceil(w.resetMs / 1000));
    c.header('RateLimit-Limit', String(opts.limit));
    c.header('RateLimit-Remaining', String(Math.max(0, opts.limit - w.count)));
    c.header('RateLimit-Reset', String(reset));
    if (w.count > opts.limit) {
      c.header('Retry-After', String(reset));
      const what = opts.name === 'preview' ? 'previews (PLATEN_PREVIEW_RATE_LIMIT)' : 'requests (PLATEN_RATE_LIMIT)';
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `more than ${opts.limit} ${what} in a minute with this API key; retry after ${reset} s`);
    }
    await next();
  });
}
