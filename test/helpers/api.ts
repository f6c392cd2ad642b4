/**
 * More helpers for API tests, next to test/helpers/server.ts:
 * - servers whose signed URLs are really fetchable (a known port and PLATEN_PUBLIC_URL, where
 *   PORT=0 would hand out http://localhost:0/... URLs), on a given data dir (restarts), with a
 *   given logger;
 * - the credit ledger and balance read straight from the database;
 * - error-body assertions (`{code, detail}` JSON, DESIGN §4);
 * - the CLI run as a child process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { asc, count, eq } from 'drizzle-orm';
import type { Db, Tables } from '../../db/database.ts';
import type { PostgresDb } from '../../db/postgres.ts';
import type { SqliteDb } from '../../db/sqlite.ts';
import type { Logger } from '../../src/logger.ts';
import { startTestServer, type TestServer } from './server.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerOptions {
  /** Data dir to use (kept on close unless `removeDataDir`); default: a fresh temporary one (removed on close). */
  dataDir?: string;
  removeDataDir?: boolean;
  /** Configuration variables over the test defaults. */
  env?: Record<string, string>;
  log?: Logger;
}

/**
 * Start a real server on a known loopback port whose {base_url} and {cdn_url} point at it, so the
 * URLs it hands out can be fetched as they are.
 */
export async function startUrlServer(opts: ServerOptions = {}): Promise<TestServer> {
  const port = await freePort();
  const env = { PORT: String(port), PLATEN_PUBLIC_URL: `http://127.0.0.1:${port}`, ...opts.env };
  return startTestServer(env, { dataDir: opts.dataDir, keepDataDir: opts.removeDataDir === undefined ? undefined : !opts.removeDataDir, log: opts.log });
}

export interface LedgerRow {
  delta: number;
  reason: string;
  balanceAfter: number;
  jobId: string | null;
}

/** The team's credit ledger, oldest first. */
export async function ledger(db: Db, teamId: string): Promise<LedgerRow[]> {
  const { orm, t: { creditTransactions } } = db;
  return orm
    .select({ delta: creditTransactions.delta, reason: creditTransactions.reason, balanceAfter: creditTransactions.balanceAfter, jobId: creditTransactions.jobId })
    .from(creditTransactions)
    .where(eq(creditTransactions.teamId, teamId))
    .orderBy(asc(creditTransactions.id));
}

/** The team's balance as stored. */
export async function balance(db: Db, teamId: string): Promise<number> {
  const { orm, t: { teams } } = db;
  const [row] = await orm.select({ credits: teams.credits }).from(teams).where(eq(teams.id, teamId));
  assert.ok(row, `no team ${teamId}`);
  return row.credits;
}

export interface ErrorBody {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
  [k: string]: unknown;
}

/** Assert `res` is an error of `status` and `code` with a JSON `{code, detail}` body; returns the body. */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
  const text = await res.text();
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${text.slice(0, 300)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, 'error bodies are JSON');
  const body = JSON.parse(text) as ErrorBody;
  assert.equal(body.code, code, `expected code ${code}: ${text.slice(0, 300)}`);
  assert.equal(typeof body.detail, 'string');
  assert.ok(body.detail.length > 0, 'detail is a non-empty sentence');
  return body;
}

/** Assert a 400 VALIDATION_ERROR naming `path` among its field errors. */
export async function expectValidationError(res: Response, path: string): Promise<ErrorBody> {
  const body = await expectError(res, 400, 'VALIDATION_ERROR');
  assert.ok(Array.isArray(body.errors), 'VALIDATION_ERROR carries errors[]');
  assert.ok(
    body.errors!.some((e) => e.path === path),
    `expected an error at path "${path}", got ${JSON.stringify(body.errors)}`,
  );
  return body;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the CLI from the repository root with `env` over the process env: `npx tsx src/cli.ts ...args`
 * (as `npm run cli` does), or with `launcher: 'node'` the quicker `node --import tsx src/cli.ts ...args`.
 */
export function runCli(args: string[], env: Record<string, string>, opts: { launcher?: 'npx' | 'node'; timeoutMs?: number } = {}): Promise<CliResult> {
  const [cmd, pre] = opts.launcher === 'node' ? [process.execPath, ['--import', 'tsx']] : ['npx', ['tsx']];
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...pre, 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The single JSON object a `--json` CLI command printed on stdout. */
export function cliJson(r: CliResult): Record<string, unknown> {
  assert.equal(r.status, 0, `CLI failed (${r.status}): ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
  assert.equal(lines.length, 1, `expected exactly one line of JSON on stdout, got: ${r.stdout}`);
  const value = JSON.parse(lines[0]) as unknown;
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), 'stdout is one JSON object');
  return value as Record<string, unknown>;
}

/** How many rows table `name` holds. */
export async function rowCount(db: Db, name: keyof Tables): Promise<number> {
  const [row] = await db.orm.select({ n: count() }).from(db.t[name]);
  return row.n;
}

/**
 * Every row of table `table` (its SQL name) whose `column` equals `value`, as the database holds
 * it: column names as in SQL, values as the driver reads them (no mapping by the schema).
 */
export async function rawRows(db: Db, table: string, column: string, value: string): Promise<Record<string, unknown>[]> {
  if (!/^[a-z_]+$/.test(table) || !/^[a-z_]+$/.test(column)) throw new Error('plain SQL names only');
  if (db.dialect === 'sqlite') return (db as SqliteDb).client.prepare(`SELECT * FROM ${table} WHERE ${column} = ?`).all(value) as Record<string, unknown>[];
  return (await (db as PostgresDb).pool.query(`SELECT * FROM ${table} WHERE ${column} = $1`, [value])).rows as Record<string, unknown>[];
}
