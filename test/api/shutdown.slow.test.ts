/**
 * Graceful shutdown of the real `platen serve` process (SIGTERM): readiness fails, no new requests
 * are taken, running jobs finish within PLATEN_SHUTDOWN_TIMEOUT_MS, or are handed back to the
 * queue when they cannot (pending again, their start not counted) and run after a restart; exit
 * status 0 either way. On SQLite, or on PostgreSQL (cluster queue) with PLATEN_TEST_DATABASE_URL.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { createTeam } from '../../src/services/teams.ts';
import { killAllChildren, startChild, type Child, envWithoutPlaten } from '../helpers/child.ts';
import { ROOT, freePort } from '../helpers/api.ts';
import { SLOW_DEFINITION, slowDocumentData } from '../helpers/slow-document.ts';
import { databaseUrlFor, dropDatabaseOf, TEST_DATABASE_URL, withStoredDatabase } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';

const dirs: string[] = [];
after(async () => {
  await killAllChildren();
  for (const d of dirs) {
    await dropDatabaseOf(d);
    rmSync(d, { recursive: true, force: true });
  }
});

/** Environment of a server child: nothing inherited that configures Platen. */
async function env(dataDir: string, port: number, extra: Record<string, string>): Promise<NodeJS.ProcessEnv> {
  const base = envWithoutPlaten();
  const database = TEST_DATABASE_URL ? { PLATEN_DATABASE_URL: await databaseUrlFor(dataDir), PLATEN_DATABASE_POOL_SIZE: '4' } : {};
  return {
    ...base,
    ...database,
    PLATEN_DATA_DIR: dataDir,
    PLATEN_SEED_DEMO: 'false',
    PORT: String(port),
    HOST: '127.0.0.1',
    PLATEN_RENDER_THREADS: '2',
    PLATEN_JOB_CONCURRENCY: '2',
    PLATEN_RENDER_TEAM_THREADS: '2',
    PLATEN_RATE_LIMIT: '100000',
    PLATEN_QUEUE_POLL_MS: '100',
    ...extra,
  };
}

async function serve(dataDir: string, port: number, extra: Record<string, string> = {}): Promise<Child> {
  const child = startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], { cwd: ROOT, env: await env(dataDir, port, extra) });
  await waitFor(
    'the server to answer /readyz',
    async () => {
      if (child.proc.exitCode !== null) throw new Error(`the server exited: ${child.stderr().slice(-1000)}`);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      return res?.status === 200;
    },
    60_000,
    100,
  );
  return child;
}

interface Setup {
  dataDir: string;
  port: number;
  apiKey: string;
  teamId: string;
}

/** A data dir (and database) with a team of 10 credits, made before any server runs. */
async function setup(): Promise<Setup> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platen-shutdown-'));
  dirs.push(dataDir);
  if (TEST_DATABASE_URL) await databaseUrlFor(dataDir);
  const { teamId, apiKey } = await withStoredDatabase(dataDir, (db) => createTeam(db, 'shutdown', 10));
  return { dataDir, port: await freePort(), apiKey, teamId };
}

async function api(s: Setup, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, {
    method,
    headers: { 'x-api-key': s.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Store the slow template and queue `n` jobs of `paragraphs` paragraphs each; @returns their ids. */
async function queueSlowJobs(s: Setup, n: number, paragraphs: number): Promise<string[]> {
  const t = await api(s, 'POST', '/v1/templates', { name: 'slow', type: 'pdf', definition: SLOW_DEFINITION });
  assert.equal(t.status, 201, JSON.stringify(t.json));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await api(s, 'POST', '/v1/pdf/create-async', { template_id: t.json.id, data: slowDocumentData(paragraphs, i), filename: `slow-${i}` });
    assert.equal(r.status, 202, JSON.stringify(r.json));
    ids.push(r.json.job_id);
  }
  return ids;
}

async function statuses(s: Setup, ids: string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await api(s, 'GET', `/v1/pdf/jobs/${id}`)).json.status as string));
}

/** The jobs and the team's ledger as the database holds them (no server running). */
async function stored(s: Setup, ids: string[]) {
  return withStoredDatabase(s.dataDir, async (db) => {
    const { orm, t } = db;
    const jobs = await Promise.all(ids.map(async (id) => (await orm.select({ status: t.jobs.status, attempts: t.jobs.attempts }).from(t.jobs).where(eq(t.jobs.id, id)))[0]));
    const ledger = await orm.select({ reason: t.creditTransactions.reason, jobId: t.creditTransactions.jobId }).from(t.creditTransactions).where(eq(t.creditTransactions.teamId, s.teamId));
    const [team] = await orm.select({ credits: t.teams.credits }).from(t.teams).where(eq(t.teams.id, s.teamId));
    return { jobs, ledger, credits: team.credits };
  });
}

test('SIGTERM with a job rendering: readiness fails at once, no new connection is taken, the job finishes, exit 0', async (t) => {
  const s = await setup();
  const child = await serve(s.dataDir, s.port, { PLATEN_SHUTDOWN_TIMEOUT_MS: '120000' });
  const [id] = await queueSlowJobs(s, 1, 200);
  await waitFor('the job to be rendering', async () => (await statuses(s, [id]))[0] === 'processing', 120_000, 200);

  const signalled = Date.now();
  child.proc.kill('SIGTERM');
  // Readiness fails first; the listener closes: from here no request is answered 200.
  await new Promise((r) => setTimeout(r, 300));
  const ready = await fetch(`http://127.0.0.1:${s.port}/readyz`).then((r) => r.status, () => 'refused');
  assert.notEqual(ready, 200, 'a draining node is not ready');
  const refused = await fetch(`http://127.0.0.1:${s.port}/v1/account`, { headers: { 'x-api-key': s.apiKey } }).then((r) => r.status, () => 'refused');
  assert.equal(refused, 'refused', 'no new connections once shutting down');

  const exit = await child.exited;
  t.diagnostic(`exited ${JSON.stringify(exit)} ${Date.now() - signalled} ms after SIGTERM`);
  assert.equal(exit.code, 0, `clean exit: ${child.stderr().slice(-2000)}`);
  assert.match(child.stdout(), /platen stopped/);

  const after = await stored(s, [id]);
  assert.deepEqual(after.jobs, [{ status: 'completed', attempts: 1 }], 'the running job finished before the exit');
  assert.equal(after.ledger.filter((l) => l.reason === 'generation').length, 1);
  assert.equal(after.ledger.filter((l) => l.reason === 'refund').length, 0);
  assert.equal(after.credits, 9);
});

test('SIGTERM past PLATEN_SHUTDOWN_TIMEOUT_MS: running jobs are handed back uncounted and run after a restart, paid once', async (t) => {
  const s = await setup();
  let child = await serve(s.dataDir, s.port, { PLATEN_SHUTDOWN_TIMEOUT_MS: '300' });
  // Renders of several seconds: they cannot finish in 300 ms.
  const ids = await queueSlowJobs(s, 3, 400);
  await waitFor('a job to be rendering', async () => (await statuses(s, ids)).includes('processing'), 120_000, 200);

  const signalled = Date.now();
  child.proc.kill('SIGTERM');
  const exit = await child.exited;
  const took = Date.now() - signalled;
  t.diagnostic(`exited ${JSON.stringify(exit)} ${took} ms after SIGTERM`);
  assert.equal(exit.code, 0, `clean exit: ${child.stderr().slice(-2000)}`);
  assert.match(child.stdout(), /job handed back at shutdown/);

  const left = await stored(s, ids);
  assert.deepEqual(left.jobs, ids.map(() => ({ status: 'pending', attempts: 0 })), 'every job pending again, no start counted');
  assert.equal(left.ledger.filter((l) => l.reason === 'refund').length, 0, 'nothing refunded: the jobs still run');
  assert.equal(left.credits, 7);

  child = await serve(s.dataDir, s.port, { PLATEN_SHUTDOWN_TIMEOUT_MS: '120000' });
  await waitFor('every job to complete after the restart', async () => {
    const st = await statuses(s, ids);
    if (st.includes('failed')) throw new Error(`a job failed: ${st}`);
    return st.every((x) => x === 'completed');
  }, 180_000, 200);
  const stop = await child.stop('SIGTERM', 60_000);
  assert.equal(stop.code, 0);
  const done = await stored(s, ids);
  assert.deepEqual(done.jobs, ids.map(() => ({ status: 'completed', attempts: 1 })), 'each job started once after the hand-back');
  assert.deepEqual(done.ledger.map((l) => l.reason).sort(), ['generation', 'generation', 'generation', 'grant']);
  assert.equal(done.credits, 7);
});
