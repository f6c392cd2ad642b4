/**
 * Opens the SQLite database: WAL journal, foreign keys on, a busy timeout, and every migration in
 * db/migrations applied (drizzle's migrator records what ran in __drizzle_migrations).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

let nativeAddon: object | undefined;

/**
 * Use this already loaded better-sqlite3 addon instead of the one in node_modules: the single
 * binary (src/sea/main.ts) carries its own and loads it before opening any database.
 */
export function useSqliteAddon(addon: object): void {
  nativeAddon = addon;
}

/** Open (creating if needed) the database file and bring its schema up to date. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  // better-sqlite3 takes an addon object as nativeBinding too; its typings only say string.
  const sqlite = new Database(file, nativeAddon ? ({ nativeBinding: nativeAddon } as unknown as Database.Options) : undefined);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return db;
}

export { schema };
