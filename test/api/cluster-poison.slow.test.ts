/**
 * The poison-job limit in cluster mode (PostgreSQL, pg-boss): a job whose worker dies while
 * rendering it is handed out again when its lease (PLATEN_JOB_LEASE_MS) runs out; once it was cut
 * short PLATEN_JOB_MAX_ATTEMPTS times (2) it fails for good with RENDER_CRASHED, is refunded once
 * and gets one pdf.failed webhook, instead of taking workers down forever. The real `platen serve
 * --role worker` is SIGKILLed twice mid-render; an API node takes the request.
 * Needs PostgreSQL at PLATEN_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { openPostgres, type PostgresDb } from '../../db/postgres.ts';
import { createTeam } from '../../src/services/teams.ts';
import { killAllChildren, startChild, type Child, envWithoutPlaten } from '../helpers/child.ts';
import { ROOT, freePort } from '../helpers/api.ts';
import { SLOW_DEFINITION, slowDocumentData } from '../helpers/slow-document.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';
import { closedPort } from '../helpers/webhook-receiver.ts';

let scratch: ScratchDatabase;
const dataDir = mkdtempSync(join(tmpdir(), 'platen-poison-'));
let db: PostgresDb;

before(async () => {
  scratch = await createScratchDatabase('platen_poison');
  db = await openPostgres(scratch.url, { poolSize: 2 });
});
after(async () => {
  await killAllChildren();
  await db?.close();
  await scratch?.drop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

function serve(role: 'api' | 'worker', port: number): Child {
  const base = envWithoutPlaten();
  return startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', role], {
    cwd: ROOT,
    env: {
      ...base,
      PORT: String(port),
      HOST: '127.0.0.1',
      PLATEN_DATA_DIR: dataDir,
      PLATEN_DATABASE_URL: scratch.url,
      PLATEN_DATABASE_POOL_SIZE: '4',
      PLATEN_SECRET: 's'.repeat(40),
      PLATEN_SEED_DEMO: 'false',
      PLATEN_RENDER_THREADS: '1',
      // The deadline is far beyond the slow document's time; the lease just above it.
      PLATEN_RENDER_TIMEOUT_MS: '60000',
      PLATEN_JOB_LEASE_MS: '61000',
      PLATEN_QUEUE_POLL_MS: '100',
      PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  });
}

async function ready(child: Child, port: number): Promise<void> {
  await waitFor(
    `the node on port ${port} to be ready`,
    async () => {
      if (child.proc.exitCode !== null) throw new Error(`exited: ${child.stderr().slice(-1000)}`);
      return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200;
    },
    60_000,
    100,
  );
}

/** Make the job's lease run out now (as if the time had passed), so the queue hands it out again. */
async function expireLease(jobId: string): Promise<void> {
  await db.executeSql(`UPDATE pgboss.job SET started_on = now() - interval '1 hour' WHERE name = 'platen-render' AND id = $1 AND state = 'active'`, [jobId]);
}

async function jobRow(jobId: string) {
  const [row] = await db.orm.select({ status: db.t.jobs.status, attempts: db.t.jobs.attempts, errorCode: db.t.jobs.errorCode, errorMessage: db.t.jobs.errorMessage }).from(db.t.jobs).where(eq(db.t.jobs.id, jobId));
  return row;
}

test('a job whose worker is killed twice mid-render fails for good (RENDER_CRASHED), refunded once, one pdf.failed webhook', async (t) => {
  const { teamId, apiKey } = await createTeam(db, 'poison', 5);
  const apiPort = await freePort();
  const workerPort = await freePort();
  const hookPort = await closedPort();
  const api = serve('api', apiPort);
  let worker = serve('worker', workerPort);
  await Promise.all([ready(api, apiPort), ready(worker, workerPort)]);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${apiPort}${path}`, { method, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  };
  const tpl = await call('POST', '/v1/templates', { name: 'slow', type: 'pdf', definition: SLOW_DEFINITION });
  assert.equal(tpl.status, 201);
  const created = await call('POST', '/v1/pdf/create-async', { template_id: tpl.json.id, data: slowDocumentData(800), webhook_url: `http://127.0.0.1:${hookPort}/hook` });
  assert.equal(created.status, 202, JSON.stringify(created.json));
  const jobId = created.json.job_id as string;

  for (const start of [1, 2]) {
    await waitFor(`start ${start} of the job`, async () => {
      const r = await jobRow(jobId);
      return r.status === 'processing' && r.attempts === start;
    }, 90_000, 50);
    assert.equal((await worker.stop('SIGKILL')).signal, 'SIGKILL');
    await expireLease(jobId);
    worker = serve('worker', workerPort);
    await ready(worker, workerPort);
  }

  // Taken a third time: cut short twice already, so it fails for good instead of running.
  await waitFor('the job to fail for good', async () => (await jobRow(jobId)).status === 'failed', 60_000, 100);
  const row = await jobRow(jobId);
  t.diagnostic(`${row.errorCode}: ${row.errorMessage}`);
  assert.equal(row.errorCode, 'RENDER_CRASHED');
  assert.equal(row.attempts, 2);
  assert.match(row.errorMessage!, /2 times/);
  const ledger = await db.orm.select({ reason: db.t.creditTransactions.reason, jobId: db.t.creditTransactions.jobId }).from(db.t.creditTransactions).where(eq(db.t.creditTransactions.teamId, teamId));
  assert.deepEqual(ledger.map((l) => [l.reason, l.jobId]).sort(), [['generation', jobId], ['grant', null], ['refund', jobId]].sort());
  const [team] = await db.orm.select({ credits: db.t.teams.credits }).from(db.t.teams).where(eq(db.t.teams.id, teamId));
  assert.equal(team.credits, 5);
  const deliveries = await db.orm.select().from(db.t.webhookDeliveries).where(and(eq(db.t.webhookDeliveries.jobId, jobId)));
  assert.equal(deliveries.length, 1);
  assert.equal(deliveries[0].event, 'pdf.failed');
  assert.equal((JSON.parse(deliveries[0].body) as { error: { code: string } }).error.code, 'RENDER_CRASHED');

  // The queue holds nothing more of it, and the worker is up and renders.
  const small = await call('POST', '/v1/templates', { name: 'small', type: 'pdf', definition: { content: [{ text: 'still up' }] } });
  const next = await call('POST', '/v1/pdf/create-async', { template_id: small.json.id, data: {} });
  await waitFor('a small job to complete', async () => (await jobRow(next.json.job_id)).status === 'completed', 60_000, 100);
  const exits = await Promise.all([api.stop('SIGTERM', 30_000), worker.stop('SIGTERM', 30_000)]);
  assert.deepEqual(exits.map((e) => e.code), [0, 0]);
});
