/**
 * The one database handle the service code uses, whichever engine holds the state: SQLite (the
 * embedded default, db/sqlite.ts) or PostgreSQL (cluster mode, PLATEN_DATABASE_URL, db/postgres.ts).
 *
 * Every query is written once, with drizzle's query builder, against `db.orm` and the tables in
 * `db.t`, and awaited. Both are typed as PostgreSQL's (db/schema.pg.ts); on SQLite they are the
 * SQLite tables (db/schema.ts, the same columns) and drizzle's asynchronous SQLite driver, which
 * build and run the same queries in SQLite's dialect. The common ground the service keeps to:
 * select / insert / update / delete with where, orderBy, limit, offset, returning and
 * onConflictDoNothing, and drizzle's aggregate helpers (count, max, min), awaited; row counts come
 * from `returning`, never from a driver's result object. PostgreSQL-only builder calls (`for`,
 * `distinctOn`) are not used; the API test suite runs on both engines (npm test, npm run test:pg).
 */
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type * as pgSchema from './schema.pg.ts';

/** The tables, typed as PostgreSQL's (at run time: the handle's own dialect's). */
export type Tables = typeof pgSchema;

/** drizzle's query builder, typed as PostgreSQL's (see the module comment). */
export type Orm = PgDatabase<NodePgQueryResultHKT, Tables>;

export type Dialect = 'sqlite' | 'postgres';

/** A database (or, inside {@link Db.transaction}, one transaction on it). */
export interface Db {
  readonly dialect: Dialect;
  /** Build and await queries here (inside a transaction: that transaction's). */
  readonly orm: Orm;
  /** The tables to query, of this handle's dialect. */
  readonly t: Tables;
  /** True for the handle a transaction callback receives. */
  readonly inTransaction: boolean;
  /**
   * Run `fn` in one transaction and commit when it resolves; roll back and rethrow when it
   * throws. `fn` must run every query of the transaction on the handle it is given (`tx`), never
   * on the outer one. On a transaction handle, `fn` runs in the same transaction (no savepoint):
   * a throw rolls back the whole of it.
   * SQLite: one transaction at a time on the connection (BEGIN IMMEDIATE); statements of other
   * callers wait until it ends, so none of them joins it. PostgreSQL: a pooled connection of its
   * own, READ COMMITTED; run again (up to 3 times) when PostgreSQL reports a deadlock.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query; rejects with the reason otherwise. */
  ping(): Promise<void>;
  /** Close the connection (pool); again: nothing. Queries after it fail. */
  close(): Promise<void>;
}

/** The driver's error under drizzle's DrizzleQueryError wrapper (its `cause`), or `e` itself. */
function driverError(e: unknown): { code?: unknown } | undefined {
  let err = e as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 3 && err && err.code === undefined && err.cause !== undefined; i++) err = err.cause as typeof err;
  return err;
}

/** True when `e` is a unique-constraint violation (SQLite SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY, PostgreSQL 23505). */
export function isUniqueViolation(e: unknown): boolean {
  const code = driverError(e)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when PostgreSQL gave up a transaction that may succeed when run again (deadlock, serialization failure). */
export function isRetryableConflict(e: unknown): boolean {
  const code = driverError(e)?.code;
  return code === '40P01' || code === '40001';
}
