/**
 * Rate limiting per API key (spec §7.1 429; DESIGN §4): a fixed one-minute window per key.
 * Every authenticated response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset
 * (seconds until the window frees); a refused one also Retry-After.
 */
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../app.ts';

interface Window {
  start: number;
  count: number;
}

export function rateLimit(opts: { limit: number; windowMs?: number; now?: () => number }) {
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const windows = new Map<string, Window>();
  let lastSweep = now();
  return createMiddleware<AppEnv>(async (c, next) => {
    const t = now();
    if (t - lastSweep > windowMs) {
      for (const [key, w] of windows) if (t - w.start >= windowMs) windows.delete(key);
      lastSweep = t;
    }
    const key = c.get('keyId');
    let w = windows.get(key);
    if (!w || t - w.start >= windowMs) windows.set(key, (w = { start: t, count: 0 }));
    w.count++;
    const reset = Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
    c.header('RateLimit-Limit', String(opts.limit));
    c.header('RateLimit-Remaining', String(Math.max(0, opts.limit - w.count)));
    c.header('RateLimit-Reset', String(reset));
    if (w.count > opts.limit) {
      c.header('Retry-After', String(reset));
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `more than ${opts.limit} requests in a minute; retry after ${reset} s`);
    }
    await next();
  });
}
