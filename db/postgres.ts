/**
 * The PostgreSQL database (cluster mode, PLATEN_DATABASE_URL=postgres://...): a node-postgres
 * pool under drizzle. At open, the migrations of db/migrations-pg are applied under an advisory
 * lock, so nodes that start together migrate once.
 */
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { isRetryableConflict, type Db, type Orm, type Tables } from './database.ts';
import * as schema from './schema.pg.ts';

export const PG_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations-pg/', import.meta.url));

/** The advisory lock key held while migrating (any constant shared by every node). */
const MIGRATION_LOCK = 0x706c6174; // "plat"
/** Runs of a transaction that PostgreSQL gave up on (deadlock, serialization failure). */
const TRANSACTION_RUNS = 3;

export interface PostgresOptions {
  /** Connections in the pool at most (PLATEN_DATABASE_POOL_SIZE). */
  poolSize: number;
  /** Called with errors of idle pooled connections (the server went away); they are replaced. */
  onIdleError?: (err: Error) => void;
  /**
   * A statement running longer is cancelled by the server, ms (PLATEN_DATABASE_STATEMENT_TIMEOUT_MS);
   * 0: no limit. Migrations run without it.
   */
  statementTimeoutMs?: number;
  /** Waiting longer for a connection (a new one, or a free one of the pool) fails, ms (PLATEN_DATABASE_CONNECT_TIMEOUT_MS); 0: wait. */
  connectTimeoutMs?: number;
}

/** A PostgreSQL database handle (see db/database.ts); `pool` is the node-postgres pool. */
export interface PostgresDb extends Db {
  readonly dialect: 'postgres';
  readonly pool: pg.Pool;
  /**
   * Run one SQL statement with $1.. parameters on this handle's connection: inside a transaction,
   * on the transaction's own client (so it commits or rolls back with it), else on the pool. The
   * shape pg-boss takes as its `db` option.
   */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * Connect, migrate, and return the handle.
 * @throws the connection or migration error (a wrong URL, the server down, a failed migration).
 */
export async function openPostgres(url: string, opts: PostgresOptions): Promise<PostgresDb> {
  const statementTimeoutMs = opts.statementTimeoutMs ?? 0;
  // A hung server or an exhausted pool fails a request instead of holding it forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
    ...(statementTimeoutMs > 0 ? { options: `-c statement_timeout=${Math.round(statementTimeoutMs)}` } : {}),
  });
  pool.on('error', (err) => opts.onIdleError?.(err));
  try {
    const client = await pool.connect();
    try {
      // A migration may rewrite a big table: no statement limit for it (this session only).
      if (statementTimeoutMs > 0) await client.query('SET statement_timeout = 0');
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        await migrate(drizzle(client), { migrationsFolder: PG_MIGRATIONS_DIR });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
      if (statementTimeoutMs > 0) await client.query('RESET statement_timeout');
    } finally {
      client.release();
    }
  } catch (e) {
    await pool.end().catch(() => {});
    throw e;
  }
  const root = drizzle(pool, { schema });
  const handle = (orm: Orm, inTransaction: boolean): PostgresDb => ({
    dialect: 'postgres',
    pool,
    orm,
    t: schema as Tables,
    inTransaction,
    async executeSql(text: string, values: unknown[] = []) {
      // drizzle's transaction runs on one checked-out client, held by its session.
      const client = inTransaction ? (orm as unknown as { session: { client: pg.PoolClient } }).session.client : pool;
      return client.query(text, values);
    },
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      if (inTransaction) return fn(this);
      for (let run = 1; ; run++) {
        try {
          return await root.transaction((tx) => fn(handle(tx as unknown as Orm, true)));
        } catch (e) {
          if (run >= TRANSACTION_RUNS || !isRetryableConflict(e)) throw e;
        }
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      if (pool.ended) return;
      await pool.end();
    },
  });
  return handle(root as unknown as Orm, false);
}
