/**
 * Failed authentication limited per client address, against key guessing: once one address has
 * had `limit` answers of 401 within a one-minute window (fixed, opened by its first failure),
 * every further request of that address is refused with 429 RATE_LIMIT_EXCEEDED and Retry-After
 * until the window ends, whatever key it carries, so a correct guess cannot get through either.
 * IPv6 clients count per /64 network (one host usually holds a whole /64).
 */
import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../app.ts';

interface Window {
  start: number;
  failures: number;
}

/**
 * Addresses followed at once. Past this many within one window (a distributed attack), the oldest
 * windows are forgotten first, so memory stays bounded.
 */
const MAX_TRACKED = 100_000;

/** The key an address counts under: an IPv4 address itself, an IPv6 address's /64 network. */
export function limitKey(address: string): string {
  if (!ipaddr.IPv6.isValid(address)) return address;
  const v6 = ipaddr.IPv6.parse(address);
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toString()}/64`).toString()}/64`;
}

/** Failure counts per address in fixed windows; `now` in milliseconds. */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep: number;

  /**
   * @param limit failures allowed per window (at least 1).
   * @param windowMs length of a window in milliseconds.
   */
  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  /** Seconds until `address` may try again (at least 1), or 0 when it is not blocked. */
  blockedFor(address: string): number {
    const t = this.now();
    this.sweep(t);
    const w = this.windows.get(limitKey(address));
    if (!w || t - w.start >= this.windowMs || w.failures < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
  }

  /** Counts one failed authentication of `address`. */
  recordFailure(address: string): void {
    const t = this.now();
    const key = limitKey(address);
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
      this.windows.set(key, (w = { start: t, failures: 0 }));
    }
    w.failures++;
  }

  private sweep(t: number): void {
    if (t - this.lastSweep < this.windowMs) return;
    for (const [key, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(key);
    this.lastSweep = t;
  }
}

/**
 * The middleware, placed before authentication: refuses a blocked address, and counts every 401
 * the rest of the chain answers.
 * @param clientAddress the request's client address (see client-address.ts).
 */
export function authFailureLimit(limiter: AuthFailureLimiter, clientAddress: (c: Context<AppEnv>) => string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const address = clientAddress(c);
    const wait = limiter.blockedFor(address);
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `more than ${limiter.limit} failed authentications from your address in a minute; retry after ${wait} s`);
    }
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) limiter.recordFailure(address);
      throw err;
    }
    if (c.res.status === 401) limiter.recordFailure(address);
  });
}
