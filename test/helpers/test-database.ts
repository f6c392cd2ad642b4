/**
 * PostgreSQL for API tests: with PLATEN_TEST_DATABASE_URL set (a server where the user may create
 * databases, e.g. postgres://postgres@127.0.0.1:5432/test), every test server gets a database of
 * its own, created empty and dropped when the server's data dir goes. Without it, tests run on
 * SQLite as the service does by default.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Db } from '../../db/database.ts';
import { openPostgres } from '../../db/postgres.ts';
import { openSqlite } from '../../db/sqlite.ts';

/** The administrative URL, or undefined when tests run on SQLite. */
export const TEST_DATABASE_URL: string | undefined = process.env.PLATEN_TEST_DATABASE_URL || undefined;

/** Which engine this test process runs the service on. */
export const TEST_DIALECT: 'sqlite' | 'postgres' = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The database URL of the server on `dataDir`: one database per data dir, named in
 * `<dataDir>/test-database-url`, so a server restarted on the same data dir finds its state.
 */
export async function databaseUrlFor(dataDir: string): Promise<string> {
  if (!TEST_DATABASE_URL) throw new Error('PLATEN_TEST_DATABASE_URL is not set');
  const file = join(dataDir, 'test-database-url');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const name = `platen_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  writeFileSync(file, `${url}\n`);
  return url.toString();
}

/** Drop the database of `dataDir`, if it has one (call before removing the data dir). */
export async function dropDatabaseOf(dataDir: string): Promise<void> {
  const file = join(dataDir, 'test-database-url');
  if (!TEST_DATABASE_URL || !existsSync(file)) return;
  const name = new URL(readFileSync(file, 'utf8').trim()).pathname.slice(1);
  if (!/^platen_test_[0-9a-f]+$/.test(name)) return;
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Open the database a (stopped) test server on `dataDir` kept, run `work` on it, close it: the
 * SQLite file `<dataDir>/platen.db`, or the server's PostgreSQL database.
 */
export async function withStoredDatabase<T>(dataDir: string, work: (db: Db) => Promise<T>): Promise<T> {
  const file = join(dataDir, 'test-database-url');
  const db: Db = TEST_DATABASE_URL && existsSync(file) ? await openPostgres(readFileSync(file, 'utf8').trim(), { poolSize: 1 }) : openSqlite(join(dataDir, 'platen.db'));
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Where the cluster tests and bench make their databases: PLATEN_TEST_DATABASE_URL, else the local server's. */
export const SCRATCH_ADMIN_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A PostgreSQL database made empty for one run: its name and URL; `drop()` removes it (connections closed). */
export interface ScratchDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** Create an empty database `<prefix>_<random hex>` on the server of `adminUrl`. */
export async function createScratchDatabase(prefix: string, adminUrl = SCRATCH_ADMIN_URL): Promise<ScratchDatabase> {
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
