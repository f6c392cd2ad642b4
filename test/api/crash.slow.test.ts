/**
 * Crash safety of queued generation (spec §3; DESIGN §2-§3): the real `platen serve` process is
 * killed with SIGKILL while 200 jobs are part done, started again on the same data dir, and every
 * job must complete with exactly one credit taken for it, none refunded, and a working result URL.
 * On SQLite (the in-process queue, recovered at the restart), or with PLATEN_TEST_DATABASE_URL on a
 * PostgreSQL database of its own (the pg-boss queue: the dead process's jobs come back when their
 * lease, shortened here, runs out).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, asc, count, eq, gt } from 'drizzle-orm';
import { databaseUrlFor, dropDatabaseOf, TEST_DATABASE_URL, withStoredDatabase } from '../helpers/test-database.ts';
import { killAllChildren, startChild, type Child, envWithoutPlaten } from '../helpers/child.ts';
import { waitFor } from '../helpers/wait.ts';
import { closedPort } from '../helpers/webhook-receiver.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const JOBS = 200;
const CREDITS = 300;

const dataDir = mkdtempSync(join(tmpdir(), 'platen-crash-'));
/** PostgreSQL mode: the database of this run, and a lease short enough to wait for. */
let databaseEnv: Record<string, string> = {};
after(async () => {
  await killAllChildren();
  await dropDatabaseOf(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Environment for the CLI and the server: nothing inherited that configures Platen. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = envWithoutPlaten();
  return { ...base, PLATEN_DATA_DIR: dataDir, PLATEN_SEED_DEMO: 'false', ...databaseEnv, ...extra };
}

function serve(port: number): Child {
  return startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: env({ PORT: String(port), HOST: '127.0.0.1', PLATEN_RENDER_THREADS: '2', PLATEN_RATE_LIMIT: '1000000' }),
  });
}

async function waitUntilUp(base: string, child: Child): Promise<void> {
  await waitFor(
    `the server at ${base} to answer /healthz`,
    async () => {
      const done = await Promise.race([child.exited.then(() => true), Promise.resolve(false)]);
      if (done) throw new Error(`the server exited: ${child.stderr().slice(-1000)}`);
      const res = await fetch(`${base}/healthz`).catch(() => null);
      return res?.status === 200;
    },
    30_000,
    50,
  );
}

async function api(base: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function total(base: string, key: string, status: string): Promise<number> {
  const r = await api(base, key, 'GET', `/v1/pdf/jobs?status=${status}&limit=1`);
  assert.equal(r.status, 200);
  return r.json.total as number;
}

/** Run `fn` over `items` with at most `width` in flight. */
async function pool<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

test('SIGKILL with 200 jobs in flight: after a restart every job completes, paid for exactly once', async (t) => {
  if (TEST_DATABASE_URL) {
    databaseEnv = { PLATEN_DATABASE_URL: await databaseUrlFor(dataDir), PLATEN_DATABASE_POOL_SIZE: '4', PLATEN_RENDER_TIMEOUT_MS: '20000', PLATEN_JOB_LEASE_MS: '21000' };
  }
  // A team through the CLI, on the data dir the server will use.
  const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'teams', 'create', '--name', 'crash', '--credits', String(CREDITS), '--json'], {
    cwd: ROOT,
    env: env(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(cli.status, 0, `teams create failed: ${cli.stderr}`);
  const { team_id: teamId, api_key: key } = JSON.parse(cli.stdout) as { team_id: string; api_key: string };
  assert.ok(teamId && key);

  const port = await closedPort();
  const base = `http://127.0.0.1:${port}`;
  let child = serve(port);
  await waitUntilUp(base, child);

  // A template whose renders take a little while (a table of every row of the data, ~5-10 pages).
  const created = await api(base, key, 'POST', '/v1/templates', {
    name: 'crash',
    type: 'pdf',
    definition: {
      content: [
        { text: 'Crash test job {{n}}', fontSize: 16 },
        { table: { columns: ['*', 60, 60], header: [['Item', 'Qty', 'Price']], rows: [{ each: 'rows', as: 'r', row: ['{{r.name}}', '{{r.qty}}', '{{r.price}}'] }] } },
      ],
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const templateId = created.json.id as string;
  const rows = Array.from({ length: 300 }, (_, i) => ({ name: `Item ${i}: a line long enough to need some shaping work`, qty: i, price: (i * 1.25).toFixed(2) }));

  // Queue the 200 jobs.
  const ids = await pool(
    Array.from({ length: JOBS }, (_, n) => n),
    16,
    async (n) => {
      const r = await api(base, key, 'POST', '/v1/pdf/create-async', { template_id: templateId, data: { n, rows }, filename: `crash-${n}` });
      assert.equal(r.status, 202, JSON.stringify(r.json));
      return r.json.job_id as string;
    },
  );
  assert.equal(new Set(ids).size, JOBS);

  // Kill it hard once some, but not all, are completed.
  const doneBeforeKill = await waitFor('some jobs to complete', async () => {
    const n = await total(base, key, 'completed');
    return n >= 10 ? n : undefined;
  }, 60_000, 10);
  assert.ok(doneBeforeKill < JOBS, `all ${JOBS} jobs completed before the kill; the renders are too quick for this test`);
  const killed = await child.stop('SIGKILL');
  assert.equal(killed.signal, 'SIGKILL');

  // What the crash left behind (a read-only look at the database while no server runs).
  const left = await withStoredDatabase(dataDir, async ({ orm, t: { jobs } }) =>
    Object.fromEntries((await orm.select({ status: jobs.status, n: count() }).from(jobs).groupBy(jobs.status)).map((r) => [r.status, r.n])),
  ) as Record<string, number>;
  t.diagnostic(`completed when killed: ${doneBeforeKill}; jobs left by the crash: ${JSON.stringify(left)}`);
  assert.ok((left.completed ?? 0) >= doneBeforeKill && (left.completed ?? 0) < JOBS, `after the kill: ${JSON.stringify(left)}`);
  assert.equal((left.completed ?? 0) + (left.pending ?? 0) + (left.processing ?? 0), JOBS, `after the kill: ${JSON.stringify(left)}`);

  // Start again on the same data dir and port; the unfinished jobs run again.
  child = serve(port);
  await waitUntilUp(base, child);
  await waitFor(`all ${JOBS} jobs to complete after the restart`, async () => {
    const failed = await total(base, key, 'failed');
    if (failed > 0) throw new Error(`${failed} job(s) failed`);
    return (await total(base, key, 'completed')) === JOBS;
  }, 120_000, 200);

  // Every job: completed, with a URL that serves its PDF.
  const listed = [
    ...(await api(base, key, 'GET', '/v1/pdf/jobs?limit=100&offset=0')).json.jobs,
    ...(await api(base, key, 'GET', '/v1/pdf/jobs?limit=100&offset=100')).json.jobs,
  ] as { id: string; status: string }[];
  assert.deepEqual(listed.map((j) => j.id).sort(), [...ids].sort());
  const urls = await pool(ids, 8, async (id, n) => {
    const r = await api(base, key, 'GET', `/v1/pdf/jobs/${id}`);
    assert.equal(r.json.status, 'completed', id);
    assert.equal(r.json.error_code, null);
    assert.equal(r.json.result_filename, `crash-${n}.pdf`);
    const pdf = await fetch(r.json.result_url as string);
    assert.equal(pdf.status, 200, `${id}: ${r.json.result_url}`);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-', id);
    return r.json.result_url as string;
  });
  assert.equal(new Set(urls).size, JOBS, 'one result per job');
  const account = await api(base, key, 'GET', '/v1/account');
  assert.equal(account.json.credits, CREDITS - JOBS);

  // Stop it cleanly, then check the ledger on disk.
  const stopped = await child.stop('SIGTERM', 15_000);
  assert.equal(stopped.code, 0, `clean shutdown: ${child.stderr().slice(-1000)}`);
  await withStoredDatabase(dataDir, async ({ orm, t: tb }) => {
    const tx = await orm.select({ reason: tb.creditTransactions.reason, delta: tb.creditTransactions.delta, jobId: tb.creditTransactions.jobId }).from(tb.creditTransactions).where(eq(tb.creditTransactions.teamId, teamId)).orderBy(asc(tb.creditTransactions.id));
    const generation = tx.filter((t) => t.reason === 'generation');
    assert.equal(generation.length, JOBS, 'exactly one debit per job');
    assert.ok(generation.every((t) => t.delta === -1));
    assert.deepEqual(generation.map((t) => t.jobId).sort(), [...ids].sort(), 'one debit for each job id');
    assert.equal(tx.filter((t) => t.reason === 'refund').length, 0, 'no refunds');
    const [team] = await orm.select({ credits: tb.teams.credits }).from(tb.teams).where(eq(tb.teams.id, teamId));
    assert.equal(team.credits, CREDITS - JOBS);
    const [{ n: reruns }] = await orm.select({ n: count() }).from(tb.jobs).where(and(eq(tb.jobs.teamId, teamId), gt(tb.jobs.attempts, 1)));
    t.diagnostic(`jobs started more than once (interrupted by the kill): ${reruns}`);
    assert.equal(reruns, left.processing ?? 0, 'exactly the jobs caught processing were run again');
    const statuses = await orm.select({ status: tb.jobs.status, n: count() }).from(tb.jobs).where(eq(tb.jobs.teamId, teamId)).groupBy(tb.jobs.status);
    assert.deepEqual(statuses, [{ status: 'completed', n: JOBS }]);
  });
});
