/**
 * Counters of the rate limits: fixed windows per key, each opened by its key's first request and
 * lasting `windowMs` (one minute). In memory for one process (SQLite mode), or in the
 * rate_limit_counters table of a PostgreSQL database, so that every process of a cluster counts
 * against the same window: one atomic upsert per request, on the database's clock.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';

/** A key's window after a hit (or a look): requests counted in it, ms until it ends (at least 1). */
export interface WindowCount {
  count: number;
  resetMs: number;
}

/** Counts hits per key in fixed windows. */
export interface LimitCounter {
  /** Count one hit of `key` (opening a new window when none is open) and return the window. */
  hit(key: string): Promise<WindowCount>;
  /** The open window of `key` without counting; `count` 0 when none is open. */
  peek(key: string): Promise<WindowCount>;
}

/** Keys followed at once in memory; past it, the oldest windows are forgotten first. */
const MAX_TRACKED = 100_000;

/** One process's counters, in a Map; `now` in ms. */
export class MemoryCounter implements LimitCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep: number;

  constructor(
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  async hit(key: string): Promise<WindowCount> {
    return this.hitNow(key);
  }

  async peek(key: string): Promise<WindowCount> {
    return this.peekNow(key);
  }

  /** hit(), synchronously. */
  hitNow(key: string): WindowCount {
    const t = this.now();
    this.sweep(t);
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value as string);
      this.windows.set(key, (w = { start: t, count: 0 }));
    }
    w.count++;
    return { count: w.count, resetMs: Math.max(1, w.start + this.windowMs - t) };
  }

  /** peek(), synchronously. */
  peekNow(key: string): WindowCount {
    const t = this.now();
    this.sweep(t);
    const w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) return { count: 0, resetMs: this.windowMs };
    return { count: w.count, resetMs: Math.max(1, w.start + this.windowMs - t) };
  }

  private sweep(t: number): void {
    if (t - this.lastSweep < this.windowMs) return;
    for (const [key, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(key);
    this.lastSweep = t;
  }
}

/**
 * Counters in PostgreSQL's rate_limit_counters, shared by every process on the database. A hit is
 * one statement: INSERT ... ON CONFLICT (key) DO UPDATE that restarts the window when it has
 * ended and otherwise adds one, RETURNING the count; PostgreSQL's row lock orders concurrent hits
 * of one key, so N processes admit exactly `limit` requests per window between them. Time is the
 * database's (statement_timestamp()), so the processes' clocks need not agree. Rows of windows
 * long over are deleted now and then (at most once a window per process).
 */
export class PostgresCounter implements LimitCounter {
  private lastCleanup = 0;

  constructor(
    private readonly db: Db,
    readonly windowMs = 60_000,
  ) {}

  async hit(key: string): Promise<WindowCount> {
    const { orm, t: { rateLimitCounters: r } } = this.db;
    const now = sql`floor(extract(epoch from statement_timestamp()) * 1000)::bigint`;
    const ended = sql`${r.windowStart} <= ${now} - ${this.windowMs}`;
    const [row] = await orm
      .insert(r)
      .values({ key, windowStart: now, count: 1 })
      .onConflictDoUpdate({
        target: r.key,
        set: {
          count: sql`CASE WHEN ${ended} THEN 1 ELSE ${r.count} + 1 END`,
          windowStart: sql`CASE WHEN ${ended} THEN ${now} ELSE ${r.windowStart} END`,
        },
      })
      .returning({ count: r.count, windowStart: r.windowStart, now: sql<number>`${now}`.mapWith(Number) });
    this.cleanup(row.now);
    return { count: row.count, resetMs: Math.max(1, row.windowStart + this.windowMs - row.now) };
  }

  async peek(key: string): Promise<WindowCount> {
    const { orm, t: { rateLimitCounters: r } } = this.db;
    const now = sql`floor(extract(epoch from statement_timestamp()) * 1000)::bigint`;
    const [row] = await orm
      .select({ count: r.count, windowStart: r.windowStart, now: sql<number>`${now}`.mapWith(Number) })
      .from(r)
      .where(and(eq(r.key, key), sql`${r.windowStart} > ${now} - ${this.windowMs}`));
    if (!row) return { count: 0, resetMs: this.windowMs };
    return { count: row.count, resetMs: Math.max(1, row.windowStart + this.windowMs - row.now) };
  }

  /** Delete rows whose window ended over a window ago (fire and forget, once a window). */
  private cleanup(now: number): void {
    if (now - this.lastCleanup < this.windowMs) return;
    this.lastCleanup = now;
    const { orm, t: { rateLimitCounters: r } } = this.db;
    orm
      .delete(r)
      .where(lt(r.windowStart, now - 2 * this.windowMs))
      .then(
        () => {},
        () => {},
      );
  }
}

/**
 * A shared counter that falls back to this process's memory while the shared one fails (the
 * database cannot be reached, a statement times out): the limits then hold per process instead
 * of for the cluster together. Neither a 500 for every request (a limit that takes the API down
 * with the database) nor no limit at all. `onError` hears of each failure (the caller logs it).
 */
export class FallbackCounter implements LimitCounter {
  private readonly local: MemoryCounter;

  constructor(
    private readonly shared: LimitCounter,
    windowMs = 60_000,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.local = new MemoryCounter(windowMs);
  }

  async hit(key: string): Promise<WindowCount> {
    try {
      return await this.shared.hit(key);
    } catch (err) {
      this.onError(err);
      return this.local.hitNow(key);
    }
  }

  async peek(key: string): Promise<WindowCount> {
    try {
      return await this.shared.peek(key);
    } catch (err) {
      this.onError(err);
      return this.local.peekNow(key);
    }
  }
}

/**
 * The counter for a database: shared in PostgreSQL (falling back to this process's memory while
 * the database fails, `onError` told of each failure), in this process's memory on SQLite.
 */
export function limitCounter(db: Db, windowMs = 60_000, onError?: (err: unknown) => void): LimitCounter {
  return db.dialect === 'postgres' ? new FallbackCounter(new PostgresCounter(db, windowMs), windowMs, onError) : new MemoryCounter(windowMs);
}

/** An `onError` for {@link limitCounter} that logs a failure at most once a minute. */
export function logLimitFailures(log: { warn: (obj: object, msg: string) => void }): (err: unknown) => void {
  let last = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < 60_000) return;
    last = now;
    log.warn({ err }, 'rate limit counters in the database failed: counting in this process until they answer again');
  };
}
