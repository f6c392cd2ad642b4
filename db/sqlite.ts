/**
 * The SQLite database (the embedded default): one better-sqlite3 connection in WAL mode, foreign
 * keys on, a busy timeout, every migration of db/migrations applied at open. Queries go through
 * drizzle's asynchronous SQLite driver (sqlite-proxy) to a callback that runs them on the
 * connection, each compiled statement kept by its SQL text; transactions pass through a
 * TransactionGate (db/transaction-gate.ts) so that no other caller's statement runs inside one.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle as drizzleSync } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzleAsync, type SqliteRemoteDatabase } from 'drizzle-orm/sqlite-proxy';
import type { Db, Orm, Tables } from './database.ts';
import * as schema from './schema.ts';
import { TransactionGate } from './transaction-gate.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Compiled statements kept per connection; past this many the oldest is dropped. */
const MAX_STATEMENTS = 500;

let nativeAddon: object | undefined;

/**
 * Use this already loaded better-sqlite3 addon instead of the one in node_modules: the single
 * binary (src/sea/main.ts) carries its own and loads it before opening any database.
 */
export function useSqliteAddon(addon: object): void {
  nativeAddon = addon;
}

type Method = 'run' | 'all' | 'values' | 'get';

/** A SQLite database handle (see db/database.ts); `client` is the better-sqlite3 connection. */
export interface SqliteDb extends Db {
  readonly dialect: 'sqlite';
  readonly client: Database.Database;
}

/**
 * Open (creating if needed) the database file and bring its schema up to date. A file it creates
 * is readable by this user alone (0600; SQLite gives its WAL and shared-memory files the same
 * mode), in a folder it creates with 0700.
 */
export function openSqlite(file: string): SqliteDb {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // An empty file is a new database to SQLite; creating it here sets its mode.
    closeSync(openSync(file, 'a', 0o600));
  }
  // better-sqlite3 takes an addon object as nativeBinding too; its typings only say string.
  const client = new Database(file, nativeAddon ? ({ nativeBinding: nativeAddon } as unknown as Database.Options) : undefined);
  client.pragma('journal_mode = WAL');
  client.pragma('foreign_keys = ON');
  client.pragma('busy_timeout = 5000');
  client.pragma('synchronous = NORMAL');
  migrate(drizzleSync(client), { migrationsFolder: MIGRATIONS_DIR });

  const gate = new TransactionGate();
  const statements = new Map<string, Database.Statement>();
  const statement = (text: string): Database.Statement => {
    let stmt = statements.get(text);
    if (!stmt) {
      stmt = client.prepare(text);
      if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value as string);
      statements.set(text, stmt);
    }
    return stmt;
  };
  // `rows`: a row as an array of values ('get'), or an array of such rows ('all', 'values').
  const execute = async (text: string, params: unknown[], method: Method): Promise<{ rows: any }> => {
    // Check and run in one synchronous step after each wake-up (see TransactionGate).
    while (gate.blocks()) await gate.whenReleased();
    const stmt = statement(text);
    if (method === 'run') {
      stmt.run(...params);
      return { rows: [] };
    }
    stmt.raw(true);
    return { rows: method === 'get' ? stmt.get(...params) : stmt.all(...params) };
  };
  const root = drizzleAsync(execute, { schema });

  const handle = (orm: SqliteRemoteDatabase<typeof schema>, inTransaction: boolean): SqliteDb => ({
    dialect: 'sqlite',
    client,
    // The SQLite builder and tables stand in for PostgreSQL's types (db/database.ts).
    orm: orm as unknown as Orm,
    t: schema as unknown as Tables,
    inTransaction,
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTransaction) return fn(this);
      return gate.exclusive(() => root.transaction((tx) => fn(handle(tx as unknown as SqliteRemoteDatabase<typeof schema>, true)), { behavior: 'immediate' }));
    },
    async ping() {
      await execute('select 1', [], 'get');
    },
    async close() {
      if (client.open) client.close();
    },
  });
  return handle(root, false);
}
