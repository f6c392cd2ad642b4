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
import type { Db } from '../../db/database.ts';
import { limitCounter, MemoryCounter, type LimitCounter } from './limit-store.ts';

/** The key an address counts under: an IPv4 address itself, an IPv6 address's /64 network. */
export function limitKey(address: string): string {
  if (!ipaddr.IPv6.isValid(address)) return address;
  const v6 = ipaddr.IPv6.parse(address);
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toString()}/64`).toString()}/64`;
}

/** Where failures are counted: `AuthFailureLimiter` (this process) or `SharedAuthFailureLimiter` (a cluster's database). */
export interface AuthFailureCounter {
  readonly limit: number;
  /** Seconds until `address` may try again (at least 1), or 0 when it is not blocked. */
  blockedFor(address: string): number | Promise<number>;
  /** Counts one failed authentication of `address`. */
  recordFailure(address: string): void | Promise<void>;
}

/** Failure counts per address in fixed windows, in this process's memory; `now` in milliseconds. */
export class AuthFailureLimiter implements AuthFailureCounter {
  private readonly counter: MemoryCounter;

  /**
   * @param limit failures allowed per window (at least 1).
   * @param windowMs length of a window in milliseconds.
   */
  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    now: () => number = Date.now,
  ) {
    this.counter = new MemoryCounter(windowMs, now);
  }

  blockedFor(address: string): number {
    const w = this.counter.peekNow(limitKey(address));
    return w.count < this.limit ? 0 : Math.max(1, Math.ceil(w.resetMs / 1000));
  }

  recordFailure(address: string): void {
    this.counter.hitNow(limitKey(address));
  }
}

/**
 * The same limit counted in a shared LimitCounter (PostgreSQL: every process of a cluster counts
 * an address's failures together), under keys `auth:<address or /64>`.
 */
export class SharedAuthFailureLimiter implements AuthFailureCounter {
  constructor(
    readonly limit: number,
    private readonly counter: LimitCounter,
  ) {}

  async blockedFor(address: string): Promise<number> {
    const w = await this.counter.peek(`auth:${limitKey(address)}`);
    return w.count < this.limit ? 0 : Math.max(1, Math.ceil(w.resetMs / 1000));
  }

  async recordFailure(address: string): Promise<void> {
    await this.counter.hit(`auth:${limitKey(address)}`);
  }
}

/** A limiter of `limit` failures a minute for `db`: shared in PostgreSQL, in memory on SQLite. */
export function authFailureLimiterFor(db: Db, limit: number, onError?: (err: unknown) => void): AuthFailureCounter {
  return db.dialect === 'postgres' ? new SharedAuthFailureLimiter(limit, limitCounter(db, 60_000, onError)) : new AuthFailureLimiter(limit);
}

/**
 * The middleware, placed before authentication: refuses a blocked address, and counts every 401
 * the rest of the chain answers.
 * @param clientAddress the request's client address (see client-address.ts).
 */
export function authFailureLimit(limiter: AuthFailureCounter, clientAddress: (c: Context<AppEnv>) => string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const address = clientAddress(c);
    const wait = await limiter.blockedFor(address);
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `more than ${limiter.limit} failed authentications from your address in a minute; retry after ${wait} s`);
    }
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) await limiter.recordFailure(address);
      throw err;
    }
    if (c.res.status === 401) await limiter.recordFailure(address);
  });
}
