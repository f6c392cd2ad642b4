/**
 * Opening the service's database: PostgreSQL when a postgres:// URL is configured
 * (PLATEN_DATABASE_URL, cluster mode), else the SQLite file in the data dir (the embedded
 * default). Both bring their schema up to date at open (drizzle's migrator).
 */
import { join } from 'node:path';
import type { Db } from './database.ts';
import { openSqlite, type SqliteDb } from './sqlite.ts';
import * as schema from './schema.ts';

export type { Db } from './database.ts';
export { MIGRATIONS_DIR, useSqliteAddon } from './sqlite.ts';
export { schema };

/** Open (creating if needed) a SQLite database file and bring its schema up to date. */
export function openDatabase(file: string): SqliteDb {
  return openSqlite(file);
}

export interface DatabaseSettings {
  /** postgres:// URL (PLATEN_DATABASE_URL), or undefined for SQLite. */
  databaseUrl?: string;
  /** Where the SQLite file lives (PLATEN_DATA_DIR): `<dataDir>/platen.db`. */
  dataDir: string;
  /** PostgreSQL pool size (PLATEN_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** PostgreSQL statement timeout, ms (PLATEN_DATABASE_STATEMENT_TIMEOUT_MS; 0: none). */
  databaseStatementTimeoutMs?: number;
  /** PostgreSQL connect and pool-wait timeout, ms (PLATEN_DATABASE_CONNECT_TIMEOUT_MS; 0: none). */
  databaseConnectTimeoutMs?: number;
}

/** Open the configured database. @throws when PostgreSQL cannot be reached or migrated. */
export async function openConfiguredDatabase(settings: DatabaseSettings, onIdleError?: (err: Error) => void): Promise<Db> {
  if (settings.databaseUrl) {
    // Loaded only in cluster mode: the embedded default never loads the PostgreSQL client.
    const { openPostgres } = await import('./postgres.ts');
    return openPostgres(settings.databaseUrl, {
      poolSize: settings.databasePoolSize,
      onIdleError,
      statementTimeoutMs: settings.databaseStatementTimeoutMs,
      connectTimeoutMs: settings.databaseConnectTimeoutMs,
    });
  }
  return openSqlite(join(settings.dataDir, 'platen.db'));
}
