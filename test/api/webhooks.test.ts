/**
 * Webhook delivery (spec §6; DESIGN §4) against real HTTP receivers on 127.0.0.1: headers,
 * signature, payloads, retries and their limits, redirects, target rules, restarts, secrets at
 * rest, and the verification snippets of docs/webhooks.md run exactly as written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../src/config.ts';
import { killAllChildren, startChild } from '../helpers/child.ts';
import { writeNamedBlocks } from '../helpers/doc-snippets.ts';
import { balance, createJob, deliveryOf, getJob, jobCount, ledger, UUID_RE, waitForJob, type DeliveryRow } from '../helpers/jobs.ts';
import { newDataDir, removeDataDir, startServerOn } from '../helpers/persistent-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { withStoredDatabase } from '../helpers/test-database.ts';
import { timersCreatedDuring } from '../helpers/timers.ts';
import { sleep, waitFor } from '../helpers/wait.ts';
import { closedPort, startReceiver, type Answer, type Received, type Receiver } from '../helpers/webhook-receiver.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = join(ROOT, 'docs/webhooks.md');
const DELAYS = [100, 200, 300];
const GOOD = { content: [{ text: 'Receipt for {{name}}' }] };
const BROKEN = { content: [{ image: '{{logo}}' }] };
const BROKEN_DATA = { logo: 'data:image/png;base64,AAAA' };

let s: TestServer; // webhooks may reach loopback; short retry delays
const receivers: Receiver[] = [];
const tempDirs: string[] = [];

before(async () => {
  s = await startTestServer({ PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', PLATEN_WEBHOOK_RETRY_DELAYS: DELAYS.join(','), PLATEN_RATE_LIMIT: '100000' });
});
after(async () => {
  await killAllChildren();
  await Promise.all(receivers.map((r) => r.close()));
  await s?.close();
  for (const d of tempDirs) await removeDataDir(d);
});

async function receiver(respond?: (req: Received, index: number) => Answer | number, port?: number): Promise<Receiver> {
  const r = await startReceiver(respond, port);
  receivers.push(r);
  return r;
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'platen-webhook-doc-'));
  tempDirs.push(d);
  return d;
}

function secret(): string {
  return `whsec_${randomBytes(18).toString('hex')}`;
}

/** A team with a good and a failing template. */
async function fixture(server: TestServer = s, credits = 20) {
  const { teamId, apiKey } = await server.team(credits);
  return { teamId, apiKey, good: await server.template(teamId, GOOD), broken: await server.template(teamId, BROKEN) };
}

/** Header value as received (one value; Node joins repeated custom headers). */
function header(d: Received, name: string): string | undefined {
  const v = d.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** How many times a header name was sent. */
function headerCount(d: Received, name: string): number {
  let n = 0;
  for (let i = 0; i < d.rawHeaders.length; i += 2) if (d.rawHeaders[i].toLowerCase() === name.toLowerCase()) n++;
  return n;
}

/** The signature check of §6.3, done independently of the service's code, in constant time. */
function signatureValid(key: string, d: Received): boolean {
  const ts = header(d, 'x-platen-timestamp') ?? '';
  const expected = Buffer.from(`sha256=${createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${ts}.`), d.body])).digest('hex')}`);
  const got = Buffer.from(header(d, 'x-platen-signature') ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

function assertCommonHeaders(d: Received, event: 'pdf.completed' | 'pdf.failed'): void {
  assert.equal(d.method, 'POST');
  assert.equal(header(d, 'content-type'), 'application/json');
  assert.equal(header(d, 'user-agent'), 'Platen-Webhook/1.0');
  assert.equal(header(d, 'x-platen-event'), event);
  for (const h of ['content-type', 'user-agent', 'x-platen-event', 'x-platen-timestamp']) assert.equal(headerCount(d, h), 1, `${h} sent once`);
  const ts = header(d, 'x-platen-timestamp')!;
  assert.match(ts, /^\d{10}$/, 'Unix epoch seconds');
  assert.ok(Math.abs(Number(ts) - d.at / 1000) <= 5, `timestamp ${ts} is close to the arrival time ${Math.floor(d.at / 1000)}`);
  assert.equal(Number(header(d, 'content-length')), d.body.length);
  assert.equal(header(d, 'x-api-key'), undefined, 'the API key is never sent');
}

function payload(d: Received): Record<string, unknown> {
  return JSON.parse(d.body.toString('utf8')) as Record<string, unknown>;
}

/** Wait until a job's delivery row leaves 'pending'. */
function settled(server: TestServer, jobId: string, timeoutMs = 8000): Promise<DeliveryRow> {
  return waitFor(`the webhook delivery of job ${jobId} to settle`, async () => {
    const row = await deliveryOf(server, jobId);
    return row && row.status !== 'pending' ? row : undefined;
  }, timeoutMs);
}

describe('delivery', () => {
  test('pdf.completed: §6.1 headers, a valid §6.3 signature and the exact §6.2 payload, sent once', async () => {
    const { apiKey, good } = await fixture();
    const r = await receiver();
    const key = secret();
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: { name: 'Ada' }, filename: 'receipt-7', webhook_url: `${r.url}/hooks/platen?x=1`, webhook_secret: key });
    const [d] = await r.waitForCount(1);
    // The job record is final by the time the event arrives.
    const job = await getJob(s, apiKey, job_id);
    assert.equal(job.status, 'completed');

    assert.equal(d.path, '/hooks/platen?x=1');
    assertCommonHeaders(d, 'pdf.completed');
    assert.equal(headerCount(d, 'x-platen-signature'), 1);
    assert.match(header(d, 'x-platen-signature')!, /^sha256=[0-9a-f]{64}$/);
    assert.ok(signatureValid(key, d), 'HMAC-SHA256(secret, timestamp + "." + raw body)');
    assert.ok(!signatureValid(`${key}x`, d), 'another secret does not verify');

    const body = payload(d);
    assert.deepEqual(Object.keys(body).sort(), ['event', 'job_id', 'result', 'status']);
    assert.equal(body.event, 'pdf.completed');
    assert.equal(body.job_id, job_id);
    assert.equal(body.status, 'completed');
    assert.deepEqual(body.result, { url: job.result_url, filename: 'receipt-7.pdf' });
    assert.equal(job.result_filename, 'receipt-7.pdf');
    const pdf = await fetch(String(job.result_url));
    assert.equal(pdf.status, 200);
    assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');

    await sleep(800); // well past every retry delay
    assert.equal(r.received.length, 1, 'one event per job');
    const row = (await deliveryOf(s, job_id))!;
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 1);
  });

  test("pdf.failed: the error object carries the job's error_code and error_message", async () => {
    const { teamId, apiKey, broken } = await fixture(s, 3);
    const r = await receiver();
    const key = secret();
    const { job_id } = await createJob(s, apiKey, { template_id: broken, data: BROKEN_DATA, webhook_url: `${r.url}/failed`, webhook_secret: key });
    const [d] = await r.waitForCount(1);
    const job = await getJob(s, apiKey, job_id);
    assert.equal(job.status, 'failed');
    assert.equal(await balance(s, teamId), 3, 'refunded before the event went out');

    assertCommonHeaders(d, 'pdf.failed');
    assert.ok(signatureValid(key, d));
    const body = payload(d);
    assert.deepEqual(Object.keys(body).sort(), ['error', 'event', 'job_id', 'status']);
    assert.equal(body.event, 'pdf.failed');
    assert.equal(body.job_id, job_id);
    assert.equal(body.status, 'failed');
    assert.deepEqual(body.error, { message: job.error_message, code: job.error_code });
    assert.ok(job.error_code === 'IMAGE_INVALID' || job.error_code === 'RENDER_ERROR', String(job.error_code));
    await sleep(500);
    assert.equal(r.received.length, 1);
  });

  test('no X-Platen-Signature header when the job has no webhook_secret', async () => {
    const { apiKey, good, broken } = await fixture();
    const r = await receiver();
    const a = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: r.url });
    const b = await createJob(s, apiKey, { template_id: broken, data: BROKEN_DATA, webhook_url: r.url });
    const got = await r.waitForCount(2);
    for (const d of got) {
      assert.equal(headerCount(d, 'x-platen-signature'), 0);
      assertCommonHeaders(d, payload(d).event as 'pdf.completed' | 'pdf.failed');
    }
    assert.deepEqual(got.map((d) => payload(d).job_id).sort(), [a.job_id, b.job_id].sort());
  });

  test('a job without webhook_url sends nothing and records no delivery', async () => {
    const { apiKey, good } = await fixture();
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_secret: secret() });
    await waitForJob(s, apiKey, job_id);
    assert.equal(await deliveryOf(s, job_id), undefined);
  });

  test('twelve jobs in flight: one event each, each signed with its own secret and its own delivery id', async () => {
    const { apiKey, good, broken } = await fixture(s, 30);
    const r = await receiver();
    const keys = new Map<string, string>();
    await Promise.all(
      Array.from({ length: 12 }, async (_, n) => {
        const key = secret();
        const body = n % 4 === 3 ? { template_id: broken, data: BROKEN_DATA } : { template_id: good, data: { name: `n${n}` } };
        const { job_id } = await createJob(s, apiKey, { ...body, webhook_url: `${r.url}/many`, webhook_secret: key });
        keys.set(job_id, key);
      }),
    );
    await r.waitForCount(12);
    await sleep(600);
    assert.equal(r.received.length, 12);
    const ids = r.received.map((d) => String(payload(d).job_id));
    assert.deepEqual([...ids].sort(), [...keys.keys()].sort(), 'each job exactly once');
    assert.equal(new Set(r.received.map((d) => header(d, 'x-platen-delivery'))).size, r.received.length, 'one delivery id per event');
    for (const d of r.received) assert.ok(signatureValid(keys.get(String(payload(d).job_id))!, d));
    assert.equal(r.received.filter((d) => payload(d).event === 'pdf.failed').length, 3);
  });
});

describe('retries and acknowledgement (§6.4)', { concurrency: true }, () => {
  test('500, 500, then 200: exactly 3 attempts, same body, fresh valid signatures, spaced by the delays', async () => {
    const { apiKey, good } = await fixture();
    const r = await receiver((_d, i) => (i < 2 ? 500 : 200));
    const key = secret();
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: r.url, webhook_secret: key });
    await r.waitForCount(3);
    await sleep(1200); // far past the remaining delays
    assert.equal(r.received.length, 3);
    const [a, b, c] = r.received;
    assert.ok(b.body.equals(a.body) && c.body.equals(a.body), 'every attempt carries the same bytes');
    for (const d of r.received) {
      assertCommonHeaders(d, 'pdf.completed');
      assert.ok(signatureValid(key, d));
    }
    const deliveryId = header(a, 'x-platen-delivery');
    assert.match(deliveryId ?? '', UUID_RE, 'X-Platen-Delivery is a UUID');
    assert.deepEqual(r.received.map((d) => header(d, 'x-platen-delivery')), [deliveryId, deliveryId, deliveryId], 'the same delivery id on every attempt');
    assert.equal((await deliveryOf(s, job_id))?.delivery_id, deliveryId, 'the id stored with the delivery');
    assert.ok(b.at - a.at >= DELAYS[0] - 5, `retry 1 after ${b.at - a.at} ms`);
    assert.ok(c.at - b.at >= DELAYS[1] - 5, `retry 2 after ${c.at - b.at} ms`);
    const row = (await deliveryOf(s, job_id))!;
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 3);
    assert.equal(row.last_status_code, 200);
  });

  test("the job record shows its webhook's delivery: pending while retried, then delivered; null without a webhook", async () => {
    const { apiKey, good } = await fixture();
    const r = await receiver((_req, i) => (i < 2 ? 503 : 200));
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: { name: 'Ada' }, webhook_url: r.url });
    await r.waitForCount(1);
    await waitFor('the first attempt recorded', async () => ((await deliveryOf(s, job_id))?.attempts ?? 0) >= 1, 5000, 5);
    const retrying = (await getJob(s, apiKey, job_id)).webhook!;
    assert.equal(retrying.status, 'pending');
    assert.equal(retrying.event, 'pdf.completed');
    assert.ok(retrying.attempts >= 1);
    assert.equal(retrying.last_status_code, 503);
    assert.equal(retrying.last_error, 'HTTP 503');
    if (retrying.attempts < 3) assert.ok(Date.parse(retrying.next_attempt_at!) > 0, 'a retry is due');
    await settled(s, job_id);
    const delivered = (await getJob(s, apiKey, job_id)).webhook!;
    assert.deepEqual(delivered, { status: 'delivered', event: 'pdf.completed', attempts: 3, last_status_code: 200, last_error: null, next_attempt_at: null });
    // The list shows the same.
    const listed = (await (await s.api('GET', '/v1/pdf/jobs?limit=100', apiKey)).json()) as { jobs: { id: string; webhook: unknown }[] };
    assert.deepEqual(listed.jobs.find((j) => j.id === job_id)!.webhook, delivered);
    const plain = await createJob(s, apiKey, { template_id: good, data: {} });
    assert.equal((await waitForJob(s, apiKey, plain.job_id)).webhook, null);
  });

  test('a 4xx answer is not retried: exactly 1 attempt', async () => {
    const { apiKey, good } = await fixture();
    const r = await receiver(() => 400);
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: r.url });
    await r.waitForCount(1);
    const row = await settled(s, job_id);
    await sleep(1000);
    assert.equal(r.received.length, 1);
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_status_code, 400);
    const r410 = await receiver(() => 410);
    await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: r410.url });
    await r410.waitForCount(1);
    await sleep(800);
    assert.equal(r410.received.length, 1);
  });

  test('a receiver that never answers 2xx gets exactly 4 attempts (1 + 3 retries)', async () => {
    const { apiKey, broken } = await fixture();
    const r = await receiver(() => 503);
    const { job_id } = await createJob(s, apiKey, { template_id: broken, data: BROKEN_DATA, webhook_url: r.url });
    await r.waitForCount(4);
    const row = await settled(s, job_id);
    await sleep(1200);
    assert.equal(r.received.length, 4, 'no fifth attempt');
    for (let i = 1; i < 4; i++) {
      const gap = r.received[i].at - r.received[i - 1].at;
      assert.ok(gap >= DELAYS[i - 1] - 5, `retry ${i} after ${gap} ms, delay ${DELAYS[i - 1]}`);
    }
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 4);
    assert.equal(row.last_status_code, 503);
    for (const d of r.received) assert.equal(payload(d).event, 'pdf.failed');
  });

  test('connection refused is a network error: retried, 4 attempts, then given up', async () => {
    const { apiKey, good } = await fixture();
    const port = await closedPort();
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: `http://127.0.0.1:${port}/nobody` });
    const row = await settled(s, job_id);
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 4);
    assert.equal(row.last_status_code, null);
    assert.ok(row.last_error && row.last_error.length > 0, 'the network error is recorded');
    assert.equal((await getJob(s, apiKey, job_id)).status, 'completed', 'the job is unaffected');
  });

  test('a receiver that comes up after a refused connection gets the retry', async () => {
    const { apiKey, good } = await fixture();
    const port = await closedPort();
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: `http://127.0.0.1:${port}/late` });
    await waitFor('the first (refused) attempt', async () => ((await deliveryOf(s, job_id))?.attempts ?? 0) >= 1, 8000, 5);
    const r = await receiver(() => 200, port);
    await r.waitForCount(1, 5000);
    const row = await settled(s, job_id);
    assert.equal(row.status, 'delivered');
    assert.ok(row.attempts >= 2 && row.attempts <= 4, `attempts ${row.attempts}`);
    assert.equal(payload(r.received[0]).job_id, job_id);
  });

  test('redirects are not followed and do not count as delivered', async () => {
    const { apiKey, good } = await fixture();
    const target = await receiver(() => 200);
    for (const status of [302, 307]) {
      const redirector = await receiver(() => ({ status, headers: { Location: `${target.url}/landed` } }));
      const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: `${redirector.url}/moved` });
      await redirector.waitForCount(1);
      const row = await settled(s, job_id);
      await sleep(800);
      assert.equal(target.received.length, 0, `${status}: the redirect target received nothing`);
      assert.notEqual(row.status, 'delivered', `${status} is not a successful delivery`);
      assert.equal(row.last_status_code, status);
      assert.equal(redirector.received.length, 1, `${status} is not retried`);
    }
  });
});

describe('webhook targets', () => {
  let strict: TestServer; // default configuration: public HTTPS targets only
  before(async () => {
    strict = await startTestServer({ PLATEN_RATE_LIMIT: '100000' });
  });
  after(async () => {
    await strict?.close();
  });

  test('loopback, private, reserved and non-https targets are refused at request time, costing nothing', async () => {
    const { teamId, apiKey } = await strict.team(10);
    const good = await strict.template(teamId, GOOD);
    const urls = [
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://10.0.0.1/x',
      'https://[::1]/x',
      'http://example.com/x',
      // more ways to say loopback, private or reserved
      'https://localhost:8443/hook',
      'https://127.1/x',
      'https://2130706433/x',
      'https://0x7f.0.0.1/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://0.0.0.0/x',
      'https://[::]/x',
      'https://169.254.169.254/latest/meta-data',
      'https://192.168.1.10/x',
      'https://172.16.5.4/x',
      'https://100.64.0.1/x',
      'https://[fd00::1]/x',
      'https://[fe80::1]/x',
      'https://192.0.2.10/x',
      'http://127.0.0.1/x',
      'ftp://example.com/x',
      'not a url',
      '',
    ];
    for (const webhook_url of urls) {
      const res = await strict.api('POST', '/v1/pdf/create-async', apiKey, { template_id: good, data: {}, webhook_url, webhook_secret: secret() });
      const body = (await res.json()) as { code: string; errors?: { path: string }[] };
      assert.equal(res.status, 400, `${webhook_url} -> ${res.status} ${JSON.stringify(body)}`);
      assert.equal(body.code, 'VALIDATION_ERROR', webhook_url);
      assert.ok(body.errors?.some((e) => e.path === 'webhook_url'), `${webhook_url}: ${JSON.stringify(body)}`);
    }
    // The template is checked before the webhook URL (whose check may need a DNS lookup).
    const unknown = await strict.api('POST', '/v1/pdf/create-async', apiKey, { template_id: 'nosuchtempla', data: {}, webhook_url: 'https://localhost/x' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, 'TEMPLATE_NOT_FOUND');
    assert.equal(await jobCount(strict, teamId), 0, 'no job created');
    assert.equal(await balance(strict, teamId), 10, 'no credit taken');
    assert.deepEqual((await ledger(strict, teamId)).filter((r) => r.reason !== 'grant'), [], 'nothing on the ledger but the grant');
  });

  test('by default, retries come after 1 s, 5 s and 30 s (§6.4) and private targets are refused', () => {
    const dir = tempDir();
    const config = loadConfig({ PLATEN_DATA_DIR: dir, PLATEN_SECRET: 'k'.repeat(40) });
    assert.deepEqual(config.webhookRetryDelays, [1000, 5000, 30000]);
    assert.equal(config.webhookAllowPrivate, false);
    assert.equal(strict.server.services.config.webhookAllowPrivate, false);
  });

  test('the same server takes a job without a webhook', async () => {
    const { teamId, apiKey } = await strict.team(1);
    const good = await strict.template(teamId, GOOD);
    const job = await waitForJob(strict, apiKey, (await createJob(strict, apiKey, { template_id: good, data: {} })).job_id);
    assert.equal(job.status, 'completed');
  });
});

describe('secrets at rest', () => {
  test('webhook_secret is stored encrypted and never returned', async () => {
    const { apiKey, good } = await fixture();
    const r = await receiver();
    const key = `plain-secret-${randomBytes(8).toString('hex')}`;
    const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: r.url, webhook_secret: key });
    await r.waitForCount(1);
    await waitForJob(s, apiKey, job_id);
    const { orm, t: { jobs } } = s.server.services.db;
    const [row] = await orm.select({ enc: jobs.webhookSecretEnc }).from(jobs).where(eq(jobs.id, job_id));
    const enc = row.enc;
    assert.ok(enc, 'a sealed secret is stored');
    for (const form of [key, Buffer.from(key).toString('base64'), Buffer.from(key).toString('base64url'), Buffer.from(key).toString('hex')]) {
      assert.ok(!enc.includes(form), 'the stored value does not contain the secret');
    }
    assert.equal(s.server.services.secrets.open(enc), key, 'it opens to the secret with the server key');
    // Not anywhere in the database files either.
    const dbPath = join(s.dataDir, 'platen.db');
    for (const f of [dbPath, `${dbPath}-wal`]) {
      if (existsSync(f)) assert.ok(!readFileSync(f).includes(Buffer.from(key)), `${f} does not hold the secret in clear`);
    }
    const one = await (await s.api('GET', `/v1/pdf/jobs/${job_id}`, apiKey)).text();
    const list = await (await s.api('GET', '/v1/pdf/jobs?limit=100', apiKey)).text();
    assert.ok(!one.includes(key) && !list.includes(key), 'no response carries the secret');
    assert.ok(!one.includes('webhook_secret'));
  });
});

describe('restarts', () => {
  test('retries survive restarts: one pending at a restart is sent when due, one that came due while stopped is sent at start', async () => {
    const dir = newDataDir();
    tempDirs.push(dir);
    const env = { PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', PLATEN_WEBHOOK_RETRY_DELAYS: '100,1500,1500', PLATEN_RATE_LIMIT: '100000' };
    const r = await receiver((_d, i) => (i < 3 ? 500 : 200));
    const key = secret();
    const servers: TestServer[] = [];
    const boot = async () => {
      const srv = await startServerOn(dir, env);
      servers.push(srv);
      return srv;
    };
    /** Stop `srv` once the delivery shows `attempts`, and return the row the database keeps. */
    const stopAfter = async (srv: TestServer, jobId: string, attempts: number): Promise<DeliveryRow> => {
      await waitFor(`attempt ${attempts} to be recorded`, async () => (await deliveryOf(srv, jobId))?.attempts === attempts);
      await srv.close();
      return withStoredDatabase(dir, async ({ orm, t: { webhookDeliveries: w } }) => {
        const [row] = await orm.select({ status: w.status, attempts: w.attempts, next_attempt_at: w.nextAttemptAt }).from(w).where(eq(w.jobId, jobId));
        return row as DeliveryRow;
      });
    };
    try {
      const first = await boot();
      const { apiKey, good } = await fixture(first);
      const { job_id } = await createJob(first, apiKey, { template_id: good, data: { name: 'restart' }, webhook_url: `${r.url}/restart`, webhook_secret: key });
      await r.waitForCount(2);
      const afterFirst = await stopAfter(first, job_id, 2);
      assert.equal(afterFirst.status, 'pending', 'a retry is scheduled');
      assert.ok(afterFirst.next_attempt_at > Date.now(), 'and not yet due');
      assert.equal(r.received.length, 2);

      // Restarted before the retry is due: it is sent when due, not before, not twice.
      const second = await boot();
      await r.waitForCount(3, 10_000);
      assert.ok(r.received[2].at >= afterFirst.next_attempt_at - 5, 'sent when due, not before');
      const afterSecond = await stopAfter(second, job_id, 3);
      assert.equal(afterSecond.status, 'pending');
      assert.equal(r.received.length, 3);

      // Stopped until the last retry is overdue: the next server sends it at once.
      await sleep(Math.max(0, afterSecond.next_attempt_at - Date.now()) + 300);
      const startedAt = Date.now();
      const third = await boot();
      await r.waitForCount(4, 30_000);
      assert.ok(r.received[3].at >= startedAt, 'sent by the restarted server, with no retry delay to wait for');
      const row = await settled(third, job_id);
      assert.equal(row.status, 'delivered');
      assert.equal(row.attempts, 4);
      await sleep(500);
      assert.equal(r.received.length, 4, 'never sent twice');

      for (const d of r.received) {
        assertCommonHeaders(d, 'pdf.completed');
        assert.ok(signatureValid(key, d), 'signed with the stored secret across restarts');
        assert.ok(d.body.equals(r.received[0].body), 'same body bytes');
      }
      assert.equal((await getJob(third, apiKey, job_id)).status, 'completed');
    } finally {
      for (const srv of servers) await srv.close();
      await removeDataDir(dir);
    }
  });

  test('a delivery whose stored secret cannot be opened (PLATEN_SECRET changed) is given up, never sent unsigned, and does not spin', async () => {
    const dir = newDataDir();
    tempDirs.push(dir);
    // (The job queue polls once a second: on PostgreSQL each idle poll arms a few timers.)
    const env = { PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', PLATEN_WEBHOOK_RETRY_DELAYS: '300,300', PLATEN_RATE_LIMIT: '100000', PLATEN_QUEUE_POLL_MS: '1000' };
    const r = await receiver((_d, i) => (i < 1 ? 500 : 200));
    const first = await startServerOn(dir, { ...env, PLATEN_SECRET: 'a'.repeat(40) });
    let second: TestServer | undefined;
    try {
      const { apiKey, good } = await fixture(first);
      const { job_id } = await createJob(first, apiKey, { template_id: good, data: {}, webhook_url: r.url, webhook_secret: secret() });
      await waitFor('the first attempt to be recorded', async () => (await deliveryOf(first, job_id))?.attempts === 1);
      await first.close();
      // What this process arms in a second without this test's server: the file's other servers
      // (on PostgreSQL, an idle job queue's polls arm about 25 timers a second each).
      const idle = await timersCreatedDuring(1000);

      second = await startServerOn(dir, { ...env, PLATEN_SECRET: 'b'.repeat(40) });
      await sleep(1000); // the retry is due
      const timers = await timersCreatedDuring(1000);
      assert.equal(r.received.length, 1, 'nothing sent without its signature');
      const row = (await deliveryOf(second, job_id))!;
      assert.ok(timers - idle < 50, `${timers} timers armed in 1 s (${idle} before this server started): the deliverer retries the undecryptable delivery in a tight loop (row ${JSON.stringify(row)})`);
      assert.equal(row.status, 'failed', `given up, as it can never be signed; the delivery row is ${JSON.stringify(row)}`);
    } finally {
      await first.close();
      await second?.close();
      await removeDataDir(dir);
    }
  });
});

describe('targets checked again at delivery', () => {
  test('after PLATEN_WEBHOOK_ALLOW_PRIVATE is turned off, pending retries to loopback are refused without connecting (host name or IP literal)', async () => {
    let connections = 0;
    const tcp = net.createServer((sock) => {
      connections++;
      sock.destroy(); // a network error: the delivery stays retryable
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const { port } = tcp.address() as AddressInfo;
    const dir = newDataDir();
    tempDirs.push(dir);
    const env = { PLATEN_WEBHOOK_RETRY_DELAYS: '100,600,600', PLATEN_RATE_LIMIT: '100000' };
    const servers: TestServer[] = [];
    try {
      const open = await startServerOn(dir, { ...env, PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true' });
      servers.push(open);
      const { apiKey, good } = await fixture(open);
      const literal = await createJob(open, apiKey, { template_id: good, data: {}, webhook_url: `https://127.0.0.1:${port}/literal` });
      const named = await createJob(open, apiKey, { template_id: good, data: {}, webhook_url: `https://localhost:${port}/named` });
      // Each attempt may take up to the deliverer's 10 s timeout under load: wait well past that.
      await waitFor('two attempts of each delivery', async () => (await deliveryOf(open, literal.job_id))?.attempts === 2 && (await deliveryOf(open, named.job_id))?.attempts === 2, 60_000);
      await open.close();
      const before = connections;
      assert.ok(before >= 4, `attempts reached the receiver while allowed (${before})`);

      const strict = await startServerOn(dir, { ...env, PLATEN_WEBHOOK_ALLOW_PRIVATE: 'false' });
      servers.push(strict);
      const a = await settled(strict, literal.job_id);
      const b = await settled(strict, named.job_id);
      await sleep(200);
      assert.notEqual(b.status, 'delivered');
      assert.notEqual(a.status, 'delivered');
      assert.equal(
        connections,
        before,
        `no connection to a loopback address once private targets are off (${connections - before} made; literal: ${a.last_error}; named: ${b.last_error})`,
      );
    } finally {
      for (const srv of servers) await srv.close();
      tcp.close();
      await removeDataDir(dir);
    }
  });
});

describe('a receiver slow to acknowledge', () => {
  test('is waited for without busy-waiting, and its late 2xx counts', async () => {
    const { apiKey, good } = await fixture();
    await waitForJob(s, apiKey, (await createJob(s, apiKey, { template_id: good, data: {} })).job_id); // render threads warm
    let arrived = 0;
    const holdMs = 1600;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived++;
        setTimeout(() => res.writeHead(200).end(), holdMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { job_id } = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: `http://127.0.0.1:${port}/slow` });
      await waitFor('the delivery to arrive', () => arrived === 1);
      // Nothing else is happening: the server only waits for the answer.
      const timers = await timersCreatedDuring(1200);
      const row = await settled(s, job_id);
      assert.equal(row.status, 'delivered');
      assert.equal(row.attempts, 1);
      assert.equal(arrived, 1);
      assert.ok(timers < 50, `${timers} timers were armed in 1.2 s while one webhook waited for its answer (polling in a loop)`);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('docs/webhooks.md snippets, run as written', () => {
  type Verify = (secret: string, rawBody: Buffer, timestamp: unknown, signature: unknown, nowSeconds?: number) => boolean;

  /** A real signed delivery (completed or failed) captured from the server. */
  async function captured(kind: 'good' | 'broken'): Promise<{ key: string; d: Received; ts: string; sig: string }> {
    const { apiKey, good, broken } = await fixture();
    const r = await receiver();
    const key = secret();
    const body = kind === 'good' ? { template_id: good, data: { name: 'Zoë "quoted" \u2603' } } : { template_id: broken, data: BROKEN_DATA };
    await createJob(s, apiKey, { ...body, webhook_url: r.url, webhook_secret: key });
    const [d] = await r.waitForCount(1);
    return { key, d, ts: header(d, 'x-platen-timestamp')!, sig: header(d, 'x-platen-signature')! };
  }

  /** The cases both snippets must get right, with the expected answer. */
  function cases(c: { key: string; d: Received; ts: string; sig: string }) {
    const now = Number(c.ts);
    const tampered = Buffer.from(c.d.body);
    tampered[tampered.indexOf('"status"') + 2] ^= 0x01;
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(c.d.body.toString('utf8')), null, 2));
    return [
      { name: 'genuine', secret: c.key, body: c.d.body, ts: c.ts, sig: c.sig, now, want: true },
      { name: 'genuine, 299 s later', secret: c.key, body: c.d.body, ts: c.ts, sig: c.sig, now: now + 299, want: true },
      { name: 'tampered body', secret: c.key, body: tampered, ts: c.ts, sig: c.sig, now, want: false },
      { name: 're-serialised body', secret: c.key, body: reserialised, ts: c.ts, sig: c.sig, now, want: false },
      { name: 'wrong secret', secret: `${c.key}!`, body: c.d.body, ts: c.ts, sig: c.sig, now, want: false },
      { name: 'other timestamp', secret: c.key, body: c.d.body, ts: String(now + 1), sig: c.sig, now, want: false },
      { name: 'older than 5 minutes', secret: c.key, body: c.d.body, ts: c.ts, sig: c.sig, now: now + 301, want: false },
      { name: 'from the future', secret: c.key, body: c.d.body, ts: c.ts, sig: c.sig, now: now - 301, want: false },
      { name: 'no signature', secret: c.key, body: c.d.body, ts: c.ts, sig: null, now, want: false },
      { name: 'no timestamp', secret: c.key, body: c.d.body, ts: null, sig: c.sig, now, want: false },
      { name: 'uppercase hex', secret: c.key, body: c.d.body, ts: c.ts, sig: c.sig.toUpperCase(), now, want: false },
      { name: 'truncated signature', secret: c.key, body: c.d.body, ts: c.ts, sig: c.sig.slice(0, -1), now, want: false },
      { name: 'non-ASCII signature', secret: c.key, body: c.d.body, ts: c.ts, sig: `${c.sig.slice(0, -1)}é`, now, want: false },
    ];
  }

  test('Node: verifyPlatenWebhook accepts real deliveries and refuses altered ones', async () => {
    const dir = tempDir();
    writeNamedBlocks(DOC, dir, ['verify-webhook.mjs']);
    const { verifyPlatenWebhook } = (await import(pathToFileURL(join(dir, 'verify-webhook.mjs')).href)) as { verifyPlatenWebhook: Verify };
    for (const kind of ['good', 'broken'] as const) {
      const c = await captured(kind);
      assert.equal(verifyPlatenWebhook(c.key, c.d.body, c.ts, c.sig), true, `${kind}: verifies with the real clock`);
      for (const k of cases(c)) {
        assert.equal(verifyPlatenWebhook(k.secret, k.body, k.ts ?? undefined, k.sig ?? undefined, k.now), k.want, `${kind}: ${k.name}`);
      }
    }
  });

  test('Python: verify_platen_webhook accepts real deliveries and refuses altered ones', async () => {
    const dir = tempDir();
    writeNamedBlocks(DOC, dir, ['platen_webhook.py']);
    for (const kind of ['good', 'broken'] as const) {
      const c = await captured(kind);
      const input = cases(c).map((k) => ({ ...k, body: k.body.toString('base64') }));
      const harness = [
        'import base64, json, sys',
        `sys.path.insert(0, ${JSON.stringify(dir)})`,
        'from platen_webhook import verify_platen_webhook',
        'cases = json.load(sys.stdin)',
        'out = [verify_platen_webhook(c["secret"], base64.b64decode(c["body"]), c["ts"], c["sig"], c["now"]) for c in cases]',
        'real = verify_platen_webhook(cases[0]["secret"], base64.b64decode(cases[0]["body"]), cases[0]["ts"], cases[0]["sig"])',
        'print(json.dumps({"cases": out, "real_clock": real}))',
      ].join('\n');
      const run = spawnSync('python3', ['-c', harness], { input: JSON.stringify(input), encoding: 'utf8', timeout: 20_000 });
      assert.equal(run.status, 0, `python3 failed: ${run.stderr}`);
      const out = JSON.parse(run.stdout) as { cases: boolean[]; real_clock: boolean };
      assert.equal(out.real_clock, true, `${kind}: verifies with the real clock`);
      assert.deepEqual(
        out.cases.map((v, i) => `${input[i].name}: ${v}`),
        input.map((k) => `${k.name}: ${k.want}`),
        kind,
      );
    }
  });

  /** Run a receiver program from the doc, point jobs at it, and read what it printed. */
  async function receiverProgram(command: string, file: string, dir: string): Promise<void> {
    const port = await closedPort();
    const key = secret();
    const child = startChild(command, [join(dir, file)], { cwd: dir, env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', PLATEN_WEBHOOK_SECRET: key } });
    const url = `http://127.0.0.1:${port}/hooks/platen`;
    await waitFor(`${file} to listen on ${port}`, async () => {
      const res = await fetch(url, { method: 'POST', body: '{}' }).catch(() => null);
      return res !== null && res.status === 401; // up, and refusing unsigned requests
    }, 10_000, 50);

    const { apiKey, good, broken } = await fixture();
    const done = await createJob(s, apiKey, { template_id: good, data: { name: 'doc' }, webhook_url: url, webhook_secret: key });
    const failed = await createJob(s, apiKey, { template_id: broken, data: BROKEN_DATA, webhook_url: url, webhook_secret: key });
    const wrong = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: url, webhook_secret: secret() });
    const unsigned = await createJob(s, apiKey, { template_id: good, data: {}, webhook_url: url });

    const doneJob = await waitForJob(s, apiKey, done.job_id);
    const failedJob = await waitForJob(s, apiKey, failed.job_id);
    const line1 = await child.waitForLine(new RegExp(`^completed ${done.job_id} `));
    assert.equal(line1, `completed ${done.job_id} ${doneJob.result_url}`);
    const line2 = await child.waitForLine(new RegExp(`^failed ${failed.job_id} `));
    assert.equal(line2, `failed ${failed.job_id} ${failedJob.error_code}: ${failedJob.error_message}`);
    for (const id of [done.job_id, failed.job_id]) {
      const row = await settled(s, id);
      assert.equal(row.status, 'delivered', `${file} acknowledged ${id}`);
      assert.equal(row.last_status_code, 204);
    }
    for (const id of [wrong.job_id, unsigned.job_id]) {
      const row = await settled(s, id);
      assert.equal(row.status, 'failed', `${file} refused ${id}`);
      assert.equal(row.last_status_code, 401);
      assert.equal(row.attempts, 1, 'a 401 is not retried');
      assert.ok(!child.stdout().includes(id), `${file} did not act on ${id}`);
    }
    await child.stop('SIGKILL');
  }

  test('Node: the server.mjs example receives real deliveries and refuses forged ones', async () => {
    const dir = tempDir();
    writeNamedBlocks(DOC, dir, ['verify-webhook.mjs', 'server.mjs']);
    await receiverProgram(process.execPath, 'server.mjs', dir);
  });

  test('Python: the http.server example receives real deliveries and refuses forged ones', async () => {
    const dir = tempDir();
    writeNamedBlocks(DOC, dir, ['platen_webhook.py']);
    await receiverProgram('python3', 'platen_webhook.py', dir);
  });
});
