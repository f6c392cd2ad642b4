/**
 * A cluster on one machine: a fresh PostgreSQL database (state and the pg-boss queue), an
 * S3-compatible server (s3rver) as the shared file store, two API processes and two worker
 * processes (`platen serve --role api|worker`). 300 queued jobs and 100 synchronous requests go to
 * both API nodes; one worker is SIGKILLed mid-batch and started again. Then: every job completed
 * exactly once, the ledger's debits equal the successful generations plus the refunds, each job's
 * webhook acknowledged (distinct X-Platen-Delivery ids == jobs), every signed URL served by the
 * other API node, and 50 concurrent creates on 20 credits over both nodes give exactly 20.
 * Needs PostgreSQL at PLATEN_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, count, eq } from 'drizzle-orm';
import { openPostgres, type PostgresDb } from '../../db/postgres.ts';
import { createTeam } from '../../src/services/teams.ts';
import { killAllChildren, startChild, type Child, envWithoutPlaten } from '../helpers/child.ts';
import { ROOT, freePort } from '../helpers/api.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/test-database.ts';
import { waitFor } from '../helpers/wait.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

const JOBS = 300;
const SYNC = 100;
const BUCKET = 'platen-cluster';
const SECRET = randomBytes(24).toString('hex');

let scratch: ScratchDatabase;
const dataDirs: string[] = [];

let s3: TestS3;
let hooks: Receiver;
let db: PostgresDb;

before(async () => {
  scratch = await createScratchDatabase('platen_cluster');
  s3 = await startS3([BUCKET]);
  // Every 10th delivery's first attempt answers 503: retried after 1 s with the same delivery id.
  const firstSeen = new Set<string>();
  hooks = await startReceiver((r) => {
    const id = String(r.headers['x-platen-delivery']);
    const n = Number(JSON.parse(r.body.toString()).job_id.replace(/\D/g, '').slice(-2));
    if (n % 10 === 0 && !firstSeen.has(id)) {
      firstSeen.add(id);
      return 503;
    }
    return 200;
  });
  db = await openPostgres(scratch.url, { poolSize: 3 });
});

after(async () => {
  await killAllChildren();
  await db?.close();
  await hooks?.close();
  await s3?.close();
  await scratch?.drop().catch(() => {});
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

interface Node {
  role: 'api' | 'worker';
  port: number;
  base: string;
  child: Child;
  env: NodeJS.ProcessEnv;
}

/** A node's environment: nothing inherited that configures Platen; a data dir of its own (no shared disk). */
function nodeEnv(role: 'api' | 'worker', port: number, publicUrl: string): NodeJS.ProcessEnv {
  const base = envWithoutPlaten();
  const dataDir = mkdtempSync(join(tmpdir(), `platen-cluster-${role}-`));
  dataDirs.push(dataDir);
  return {
    ...base,
    PORT: String(port),
    HOST: '127.0.0.1',
    PLATEN_ROLE: role,
    PLATEN_DATA_DIR: dataDir,
    PLATEN_DATABASE_URL: scratch.url,
    PLATEN_DATABASE_POOL_SIZE: '5',
    PLATEN_SECRET: SECRET,
    PLATEN_PUBLIC_URL: publicUrl,
    PLATEN_SEED_DEMO: 'false',
    PLATEN_STORAGE_URL: `s3://${BUCKET}/files/`,
    PLATEN_STORAGE_ENDPOINT: s3.endpoint,
    PLATEN_STORAGE_ACCESS_KEY_ID: s3.accessKeyId,
    PLATEN_STORAGE_SECRET_ACCESS_KEY: s3.secretAccessKey,
    PLATEN_RENDER_THREADS: '1',
    PLATEN_RENDER_TEAM_THREADS: '1',
    PLATEN_JOB_CONCURRENCY: '2',
    // A worker that dies holds its jobs for the lease: short here so the test does not wait long.
    PLATEN_RENDER_TIMEOUT_MS: '8000',
    PLATEN_JOB_LEASE_MS: '12000',
    PLATEN_QUEUE_POLL_MS: '100',
    PLATEN_RATE_LIMIT: '1000000',
    PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATEN_SHUTDOWN_TIMEOUT_MS: '20000',
  };
}

function launch(role: 'api' | 'worker', port: number, env: NodeJS.ProcessEnv): Node {
  const child = startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', role], { cwd: ROOT, env });
  return { role, port, base: `http://127.0.0.1:${port}`, child, env };
}

async function ready(n: Node): Promise<void> {
  await waitFor(
    `the ${n.role} node on port ${n.port} to be ready`,
    async () => {
      if (n.child.proc.exitCode !== null || n.child.proc.signalCode !== null) throw new Error(`the ${n.role} node exited: ${n.child.stderr().slice(-2000)}`);
      const res = await fetch(`${n.base}/readyz`).catch(() => null);
      return res?.status === 200;
    },
    90_000,
    100,
  );
}

async function call(node: Node, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${node.base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Run `fn` over `items` with at most `width` in flight. */
async function inPool<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
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

/** `url` with its origin replaced by `node`'s. */
function via(url: string, node: Node): string {
  const u = new URL(url);
  return `${node.base}${u.pathname}${u.search}`;
}

async function jobCount(status: 'completed' | 'failed' | 'processing', teamId: string): Promise<number> {
  const { orm, t } = db;
  const [row] = await orm.select({ n: count() }).from(t.jobs).where(and(eq(t.jobs.teamId, teamId), eq(t.jobs.status, status)));
  return row.n;
}

test('2 API nodes and 2 workers on PostgreSQL and S3: 300 jobs and 100 sync requests, a worker killed mid-batch, exact credits, webhooks, URLs from the other node', async (t) => {
  const started = Date.now();
  const [pa, pb, pw1, pw2] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const apiA = launch('api', pa, nodeEnv('api', pa, `http://127.0.0.1:${pa}`));
  const apiB = launch('api', pb, nodeEnv('api', pb, `http://127.0.0.1:${pb}`));
  // Workers write the URLs of queued jobs: they name the first API node (a load balancer in production).
  let w1 = launch('worker', pw1, nodeEnv('worker', pw1, `http://127.0.0.1:${pa}`));
  const w2 = launch('worker', pw2, nodeEnv('worker', pw2, `http://127.0.0.1:${pa}`));
  await Promise.all([apiA, apiB, w1, w2].map(ready));
  t.diagnostic(`4 nodes ready in ${Date.now() - started} ms`);
  const apis = [apiA, apiB];

  // A worker serves its health checks and nothing else.
  assert.equal((await fetch(`${w1.base}/healthz`)).status, 200);
  assert.equal((await fetch(`${w1.base}/v1/account`)).status, 404);

  const { teamId, apiKey } = await createTeam(db, 'cluster', JOBS + SYNC + 50);
  // A small template: one page, a table of 40 rows (renders of a few hundred ms at most).
  const definition = {
    content: [
      { text: 'Cluster job {{n}}', fontSize: 14 },
      { table: { columns: ['*', 60], header: [['Item', 'Qty']], rows: [{ each: 'rows', as: 'r', row: ['{{r.name}}', '{{r.qty}}'] }] } },
    ],
  };
  const rows = Array.from({ length: 40 }, (_, i) => ({ name: `Item ${i}, a line of some length`, qty: i }));
  const tpl = await call(apiA, apiKey, 'POST', '/v1/templates', { name: 'small', type: 'pdf', definition });
  assert.equal(tpl.status, 201, JSON.stringify(tpl.json));

  // 300 queued and 100 synchronous, interleaved, alternating between the API nodes.
  // Every fourth request synchronous.
  const work = Array.from({ length: JOBS + SYNC }, (_, i) => (i % 4 === 3 ? { kind: 'sync' as const, n: (i - 3) / 4 } : { kind: 'async' as const, n: i - Math.floor(i / 4) }));
  const jobIds: string[] = [];
  const syncUrls: { url: string; node: number }[] = [];
  let killed = false;
  let killedAt = 0;
  const killer = (async () => {
    // SIGKILL one worker once some jobs, but far from all, are completed, while both workers render.
    await waitFor('some jobs completed and both workers rendering', async () => (await jobCount('completed', teamId)) >= 20 && (await jobCount('processing', teamId)) >= 2, 120_000, 20);
    killedAt = await jobCount('completed', teamId);
    const r = await w1.child.stop('SIGKILL');
    killed = r.signal === 'SIGKILL';
    w1 = launch('worker', pw1, w1.env);
    await ready(w1);
  })();
  await inPool(work, 12, async (item, i) => {
    const node = apis[i % 2];
    if (item.kind === 'async') {
      const r = await call(node, apiKey, 'POST', '/v1/pdf/create-async', { template_id: tpl.json.id, data: { n: item.n, rows }, filename: `job-${item.n}`, webhook_url: `${hooks.url}/hook` });
      assert.equal(r.status, 202, JSON.stringify(r.json));
      jobIds.push(r.json.job_id);
    } else {
      const r = await call(node, apiKey, 'POST', '/v1/pdf/create', { template_id: tpl.json.id, data: { n: `sync ${item.n}`, rows }, export_type: 'url', filename: `sync-${item.n}` });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      syncUrls.push({ url: r.json.url, node: i % 2 });
    }
  });
  t.diagnostic(`all requests answered after ${Date.now() - started} ms`);
  await killer;
  assert.ok(killed, 'a worker was SIGKILLed');
  assert.ok(killedAt < JOBS, `the kill came mid-batch (${killedAt} completed)`);
  t.diagnostic(`worker killed with ${killedAt} jobs completed`);

  await waitFor(
    `all ${JOBS} jobs to complete`,
    async () => {
      const failed = await jobCount('failed', teamId);
      if (failed > 0) throw new Error(`${failed} job(s) failed`);
      return (await jobCount('completed', teamId)) === JOBS;
    },
    150_000,
    250,
  );
  t.diagnostic(`all jobs completed after ${Date.now() - started} ms`);

  // Every job: completed once, one debit, no refund; the restarted ones started twice.
  const { orm, t: tb } = db;
  const jobs = await orm.select().from(tb.jobs).where(eq(tb.jobs.teamId, teamId));
  assert.equal(jobs.length, JOBS);
  assert.deepEqual(new Set(jobs.map((j) => j.id)), new Set(jobIds));
  assert.ok(jobs.every((j) => j.status === 'completed' && j.completedAt !== null && j.resultUrl !== null && j.errorCode === null));
  const restarted = jobs.filter((j) => j.attempts > 1).length;
  assert.ok(jobs.every((j) => j.attempts === 1 || j.attempts === 2), 'no job started more than twice');
  // The killed worker's jobs came back when their lease ran out (pg-boss retried them).
  const retried = (await db.executeSql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'platen-render' AND retry_count > 0`)).rows[0].n as number;
  t.diagnostic(`jobs started again after the kill: ${restarted}; render jobs pg-boss handed out again: ${retried}`);
  assert.ok(retried >= 1, 'the killed worker held jobs, and the queue gave them to a worker again');

  // The ledger: debits == successful generations + refunds, exactly.
  const ledger = await orm.select().from(tb.creditTransactions).where(eq(tb.creditTransactions.teamId, teamId));
  const debits = ledger.filter((l) => l.reason === 'generation');
  const refunds = ledger.filter((l) => l.reason === 'refund');
  assert.equal(debits.length, JOBS + SYNC + refunds.length, 'debits = successful generations + refunds');
  assert.equal(refunds.length, 0, 'nothing failed, nothing refunded');
  const debitedJobs = debits.filter((d) => d.jobId !== null).map((d) => d.jobId);
  assert.equal(new Set(debitedJobs).size, JOBS, 'one debit per job');
  assert.equal(debitedJobs.length, JOBS);
  const [team] = await orm.select({ credits: tb.teams.credits }).from(tb.teams).where(eq(tb.teams.id, teamId));
  assert.equal(team.credits, 50);

  // Webhooks: each job's delivery acknowledged; duplicates (at least once) share their delivery id.
  await waitFor(
    'every job delivery acknowledged',
    async () => {
      const rows = await orm.select({ status: tb.webhookDeliveries.status }).from(tb.webhookDeliveries).innerJoin(tb.jobs, eq(tb.jobs.id, tb.webhookDeliveries.jobId)).where(eq(tb.jobs.teamId, teamId));
      return rows.length === JOBS && rows.every((r) => r.status === 'delivered');
    },
    60_000,
    250,
  );
  const byDelivery = new Map<string, Set<string>>();
  for (const r of hooks.received) {
    const id = String(r.headers['x-platen-delivery']);
    const body = JSON.parse(r.body.toString()) as { job_id: string; event: string };
    assert.equal(body.event, 'pdf.completed');
    byDelivery.set(id, (byDelivery.get(id) ?? new Set()).add(body.job_id));
  }
  assert.equal(byDelivery.size, JOBS, 'distinct delivery ids == jobs');
  assert.ok([...byDelivery.values()].every((s) => s.size === 1), 'a delivery id belongs to one job');
  assert.deepEqual(new Set([...byDelivery.values()].map((s) => [...s][0])), new Set(jobIds), 'every job delivered');
  t.diagnostic(`webhook requests: ${hooks.received.length} for ${JOBS} deliveries (retries of 503 answers and duplicates included)`);

  // Every signed URL works from the other API node (the files are in the shared bucket).
  await inPool(jobs, 8, async (j) => {
    const res = await fetch(via(j.resultUrl!, apiB));
    assert.equal(res.status, 200, `${j.id}: ${j.resultUrl}`);
    assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  });
  await inPool(syncUrls, 8, async ({ url, node }) => {
    const res = await fetch(via(url, apis[1 - node]));
    assert.equal(res.status, 200, url);
    assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  });

  // 50 concurrent creates on 20 credits, over both nodes: exactly 20.
  const small = await createTeam(db, 'twenty', 20);
  const tpl20 = await call(apiB, small.apiKey, 'POST', '/v1/templates', { name: 'small', type: 'pdf', definition: { content: [{ text: 'Twenty {{n}}' }] } });
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(apis[i % 2], small.apiKey, 'POST', '/v1/pdf/create', { template_id: tpl20.json.id, data: { n: i }, export_type: 'url' })));
  const codes = answers.map((a) => a.status);
  assert.equal(codes.filter((c) => c === 200).length, 20, `answers: ${codes.join(',')}`);
  assert.equal(codes.filter((c) => c === 402).length, 30);
  assert.deepEqual(answers.filter((a) => a.status === 200).map((a) => a.json.credits_remaining).sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i));
  const [twenty] = await orm.select({ credits: tb.teams.credits }).from(tb.teams).where(eq(tb.teams.id, small.teamId));
  assert.equal(twenty.credits, 0);
  const smallDebits = await orm.select({ n: count() }).from(tb.creditTransactions).where(and(eq(tb.creditTransactions.teamId, small.teamId), eq(tb.creditTransactions.reason, 'generation')));
  assert.equal(smallDebits[0].n, 20);

  // Every node stops cleanly.
  const exits = await Promise.all([apiA, apiB, w1, w2].map((n) => n.child.stop('SIGTERM', 30_000)));
  assert.deepEqual(exits.map((e) => e.code), [0, 0, 0, 0], exits.map((e, i) => `${i}: ${JSON.stringify(e)}`).join('; '));
  t.diagnostic(`whole run: ${Date.now() - started} ms`);
});
