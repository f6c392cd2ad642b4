/**
 * What a process death in the middle of a render leaves behind, with the real `platen serve`
 * killed by SIGKILL and started again on the same data dir:
 * - a queued job the process died on twice (PLATEN_JOB_MAX_ATTEMPTS, default 2) fails for good
 *   with RENDER_CRASHED at the next start, is refunded once and gets its pdf.failed webhook row,
 *   instead of being run again at every start;
 * - a synchronous request whose process died mid-render has its credit refunded at the next start,
 *   exactly once, visible in GET /v1/account/transactions.
 * It runs on SQLite whatever PLATEN_TEST_DATABASE_URL says: on PostgreSQL a pending synchronous
 * debit is refunded only once it is older than the render deadline plus 5 minutes (several
 * processes share the table), and the cluster's poison-job limit is cluster-poison.slow.test.ts.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { killAllChildren, startChild, type Child, envWithoutPlaten } from '../helpers/child.ts';
import { SLOW_DEFINITION, slowDocumentData } from '../helpers/slow-document.ts';
import { waitFor } from '../helpers/wait.ts';
import { closedPort } from '../helpers/webhook-receiver.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CREDITS = 10;
// Seconds of rendering on a warm thread: long enough to be killed in the middle of.
const SLOW_DATA = slowDocumentData(600);

const dataDir = mkdtempSync(join(tmpdir(), 'platen-crash-refunds-'));
after(async () => {
  await killAllChildren();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Environment for the CLI and the server: nothing inherited that configures Platen. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = envWithoutPlaten();
  return { ...base, PLATEN_DATA_DIR: dataDir, PLATEN_SEED_DEMO: 'false', ...extra };
}

function serve(port: number): Child {
  return startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    // Two threads, one for each team's render; a deadline far beyond the slow document's time.
    env: env({ PORT: String(port), HOST: '127.0.0.1', PLATEN_RENDER_THREADS: '2', PLATEN_RENDER_TIMEOUT_MS: '600000', PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' }),
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
    60_000,
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

function createTeam(name: string): { teamId: string; key: string } {
  const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'teams', 'create', '--name', name, '--credits', String(CREDITS), '--json'], {
    cwd: ROOT,
    env: env(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(cli.status, 0, `teams create failed: ${cli.stderr}`);
  const { team_id: teamId, api_key: key } = JSON.parse(cli.stdout) as { team_id: string; api_key: string };
  return { teamId, key };
}

/** Wait until the job is processing (its render has a thread) and return its attempts so far. */
async function waitProcessing(base: string, key: string, jobId: string): Promise<void> {
  await waitFor(`job ${jobId} to be processing`, async () => {
    const r = await api(base, key, 'GET', `/v1/pdf/jobs/${jobId}`);
    if (r.json.status === 'completed' || r.json.status === 'failed') throw new Error(`job ended before the kill: ${JSON.stringify(r.json)}`);
    return r.json.status === 'processing';
  }, 60_000, 20);
}

/** The team's ledger as the API shows it, oldest first. */
async function transactions(base: string, key: string): Promise<{ delta: number; reason: string; job_id: string | null; balance_after: number }[]> {
  const r = await api(base, key, 'GET', '/v1/account/transactions?limit=100');
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return [...r.json.transactions].reverse();
}

test('SIGKILL mid-render: the job killed twice fails for good, refunded once; the sync request is refunded once at restart', async (t) => {
  const jobTeam = await createTeam('poison');
  const syncTeam = await createTeam('sync');
  const port = await closedPort();
  const hookPort = await closedPort();
  const base = `http://127.0.0.1:${port}`;

  // Start 1: a queued job for one team, a synchronous request for the other, both mid-render.
  let child = serve(port);
  await waitUntilUp(base, child);
  const jobTpl = await api(base, jobTeam.key, 'POST', '/v1/templates', { name: 'slow', type: 'pdf', definition: SLOW_DEFINITION });
  const syncTpl = await api(base, syncTeam.key, 'POST', '/v1/templates', { name: 'slow', type: 'pdf', definition: SLOW_DEFINITION });
  assert.equal(jobTpl.status, 201, JSON.stringify(jobTpl.json));
  assert.equal(syncTpl.status, 201, JSON.stringify(syncTpl.json));
  const created = await api(base, jobTeam.key, 'POST', '/v1/pdf/create-async', {
    template_id: jobTpl.json.id,
    data: SLOW_DATA,
    filename: 'poison',
    webhook_url: `http://127.0.0.1:${hookPort}/hook`,
  });
  assert.equal(created.status, 202, JSON.stringify(created.json));
  const jobId = created.json.job_id as string;
  const syncRequest = fetch(`${base}/v1/pdf/create`, {
    method: 'POST',
    headers: { 'x-api-key': syncTeam.key, 'content-type': 'application/json' },
    body: JSON.stringify({ template_id: syncTpl.json.id, data: SLOW_DATA, export_type: 'binary' }),
  }).then(
    (res) => `answered ${res.status}`,
    () => 'no answer',
  );
  await waitProcessing(base, jobTeam.key, jobId);
  await waitFor('the sync request to be debited', async () => (await api(base, syncTeam.key, 'GET', '/v1/account')).json.credits === CREDITS - 1, 30_000, 20);
  assert.equal((await child.stop('SIGKILL')).signal, 'SIGKILL');
  assert.equal(await syncRequest, 'no answer', 'the sync request was cut off by the kill');

  // Start 2: the sync debit is refunded; the job runs again (its second start) and is killed again.
  child = serve(port);
  await waitUntilUp(base, child);
  const syncLedger = await transactions(base, syncTeam.key);
  assert.deepEqual(
    syncLedger.map((r) => [r.reason, r.delta, r.balance_after]),
    [
      ['grant', CREDITS, CREDITS],
      ['generation', -1, CREDITS - 1],
      ['refund', 1, CREDITS],
    ],
    'one refund, after the debit',
  );
  await waitProcessing(base, jobTeam.key, jobId);
  assert.equal((await child.stop('SIGKILL')).signal, 'SIGKILL');

  // Start 3: the job has been started twice and the process died both times: it fails for good.
  child = serve(port);
  await waitUntilUp(base, child);
  const job = (await api(base, jobTeam.key, 'GET', `/v1/pdf/jobs/${jobId}`)).json;
  t.diagnostic(`job after the second restart: ${job.status} ${job.error_code}: ${job.error_message}`);
  assert.equal(job.status, 'failed');
  assert.equal(job.error_code, 'RENDER_CRASHED');
  assert.match(job.error_message, /2 times/);
  assert.deepEqual(
    (await transactions(base, jobTeam.key)).map((r) => [r.reason, r.delta, r.job_id]),
    [
      ['grant', CREDITS, null],
      ['generation', -1, jobId],
      ['refund', 1, jobId],
    ],
  );
  assert.equal((await api(base, jobTeam.key, 'GET', '/v1/account')).json.credits, CREDITS);
  assert.deepEqual(
    (await transactions(base, syncTeam.key)).map((r) => r.reason),
    ['grant', 'generation', 'refund'],
    'the sync debit is not refunded a second time',
  );
  // The server is up and renders.
  const small = await api(base, syncTeam.key, 'POST', '/v1/templates', { name: 'small', type: 'pdf', definition: { content: [{ text: 'still up' }] } });
  const pdf = await fetch(`${base}/v1/pdf/create`, {
    method: 'POST',
    headers: { 'x-api-key': syncTeam.key, 'content-type': 'application/json' },
    body: JSON.stringify({ template_id: small.json.id, data: {}, export_type: 'binary' }),
  });
  assert.equal(pdf.status, 200);
  assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');

  const stopped = await child.stop('SIGTERM', 30_000);
  assert.equal(stopped.code, 0, `clean shutdown: ${child.stderr().slice(-1000)}`);

  // On disk: the job ran exactly twice, one pdf.failed delivery row, nothing left pending.
  const db = new Database(join(dataDir, 'platen.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT status, attempts, error_code FROM jobs WHERE id = ?').get(jobId) as { status: string; attempts: number; error_code: string };
    assert.deepEqual(row, { status: 'failed', attempts: 2, error_code: 'RENDER_CRASHED' });
    const deliveries = db.prepare('SELECT event, body FROM webhook_deliveries WHERE job_id = ?').all(jobId) as { event: string; body: string }[];
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0]!.event, 'pdf.failed');
    assert.equal((JSON.parse(deliveries[0]!.body) as { error: { code: string } }).error.code, 'RENDER_CRASHED');
    assert.equal((db.prepare('SELECT count(*) AS n FROM pending_sync_debits').get() as { n: number }).n, 0);
  } finally {
    db.close();
  }
});
