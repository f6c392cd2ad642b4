/**
 * S3 output (spec §1, §2.1, §2.3, §2.5, §4.5, §6.2; DESIGN §4) against a real S3-compatible server
 * (s3rver on a loopback port, checking request signatures with its own key pair): the integration's
 * CRUD, its test endpoint, sync and async uploads with every prefix and bucket override, upload
 * failures and their refunds, private endpoints, other teams, and the secret never leaving.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import type { SqliteDb } from '../../db/sqlite.ts';
import { saveS3Integration } from '../../src/services/integrations.ts';
import { insertJob } from '../../src/services/jobs.ts';
import { joinKey } from '../../src/services/s3.ts';
import { balance, expectError, expectValidationError, freePort, ledger, startUrlServer } from '../helpers/api.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import type { TestServer } from '../helpers/server.ts';

const TINY = { content: [{ text: 'Hello {{name}}' }] };
const BUCKET = 'platen-out';
const OTHER_BUCKET = 'platen-other';

let s3: TestS3;
let s: TestServer;
/** Every log line the server wrote. */
const logs: string[] = [];
/** Every response body this file received from Platen. */
const bodies: string[] = [];
let hook: { url: string; received: { event: string; body: Record<string, unknown> }[]; close(): Promise<void> };

before(async () => {
  s3 = await startS3([BUCKET]);
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  s = await startUrlServer({
    env: { PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS: 'true', PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', PLATEN_WEBHOOK_RETRY_DELAYS: '100,100,100' },
    log: pino({ level: 'debug' }, stream),
  });
  hook = await startHookReceiver();
});
after(async () => {
  await s?.close();
  await s3?.close();
  await hook?.close();
});

/** A request whose body is kept for the "secret never in a response" check. */
async function call(method: string, path: string, key: string | null, body?: unknown): Promise<{ status: number; text: string; json: any; res: Response }> {
  const res = await s.api(method, path, key, body);
  const text = await res.text();
  bodies.push(text);
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, text, json, res: new Response(text, { status: res.status, headers: res.headers }) };
}

function integration(extra: Record<string, unknown> = {}) {
  return { bucket: BUCKET, access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, endpoint: s3.endpoint, ...extra };
}

/** A fresh team with a template and an integration (`extra` over the defaults; null: none). */
async function setup(extra: Record<string, unknown> | null = {}, credits = 10) {
  const team = await s.team(credits);
  const tpl = await s.template(team.teamId, TINY);
  if (extra !== null) {
    const r = await call('POST', '/v1/integrations/s3', team.apiKey, integration(extra));
    assert.equal(r.status, 201, r.text);
  }
  return { ...team, tpl };
}

async function waitJob(key: string, id: string, timeoutMs = 15_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await call('GET', `/v1/pdf/jobs/${id}`, key);
    assert.equal(r.status, 200, r.text);
    if (r.json.status === 'completed' || r.json.status === 'failed') return r.json;
    if (Date.now() > end) assert.fail(`job ${id} still ${r.json.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function startHookReceiver() {
  const received: { event: string; body: Record<string, unknown> }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ event: String(req.headers['x-platen-event']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function waitHook(jobId: string, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = hook.received.find((h) => h.body.job_id === jobId);
    if (hit) return hit;
    if (Date.now() > end) assert.fail(`no webhook for job ${jobId}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

function assertPdf(bytes: Buffer | null, what: string): void {
  assert.ok(bytes, `${what}: no object`);
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', `${what}: the object is a PDF`);
}

describe('object keys', () => {
  test('prefix and filename joined without leading or doubled slashes', () => {
    assert.equal(joinKey('', 'a.pdf'), 'a.pdf');
    assert.equal(joinKey('/', 'a.pdf'), 'a.pdf');
    assert.equal(joinKey('reports/', 'a.pdf'), 'reports/a.pdf');
    assert.equal(joinKey('reports', 'a.pdf'), 'reports/a.pdf');
    assert.equal(joinKey('/reports//2025/', 'a.pdf'), 'reports/2025/a.pdf');
  });
});

describe('POST/GET/DELETE /v1/integrations/s3', () => {
  test('create (201), read, replace (200), delete (204); 404 INTEGRATION_NOT_FOUND without one', async () => {
    const { apiKey } = await s.team(1);
    await expectError((await call('GET', '/v1/integrations/s3', apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');
    await expectError((await call('DELETE', '/v1/integrations/s3', apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');
    await expectError((await call('POST', '/v1/integrations/s3/test', apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');

    const created = await call('POST', '/v1/integrations/s3', apiKey, integration({ endpoint: `${s3.endpoint}/`, default_prefix: 'invoices/' }));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), [
      'access_key_id', 'bucket', 'created_at', 'default_prefix', 'endpoint', 'path_style', 'region', 'secret_access_key_set', 'updated_at',
    ]);
    assert.equal(created.json.bucket, BUCKET);
    assert.equal(created.json.region, 'us-east-1', 'region defaults to us-east-1');
    assert.equal(created.json.access_key_id, s3.accessKeyId);
    assert.equal(created.json.secret_access_key_set, true);
    assert.equal(created.json.endpoint, s3.endpoint, 'the endpoint is kept as its origin');
    assert.equal(created.json.path_style, true);
    assert.equal(created.json.default_prefix, 'invoices/');

    const got = await call('GET', '/v1/integrations/s3', apiKey);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, created.json, 'POST answers like GET');

    await new Promise((r) => setTimeout(r, 5));
    const replaced = await call('POST', '/v1/integrations/s3', apiKey, integration({ region: 'eu-west-1', default_prefix: '' }));
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json.region, 'eu-west-1');
    assert.equal(replaced.json.default_prefix, '', 'every field is replaced');
    assert.equal(replaced.json.created_at, created.json.created_at);
    assert.ok(replaced.json.updated_at > created.json.updated_at);
    assert.equal((await s.server.services.db.orm.select().from(s.server.services.db.t.s3Integrations)).filter((r) => r.accessKeyId === s3.accessKeyId && r.region === 'eu-west-1').length, 1, 'one row per team');

    const del = await call('DELETE', '/v1/integrations/s3', apiKey);
    assert.equal(del.status, 204);
    assert.equal(del.text, '');
    await expectError((await call('GET', '/v1/integrations/s3', apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');
  });

  test('field rules: bucket, region, keys, endpoint, default_prefix, unknown fields', async () => {
    const { apiKey } = await s.team(1);
    const post = async (body: unknown) => (await call('POST', '/v1/integrations/s3', apiKey, body)).res;
    for (const bucket of ['ab', 'b'.repeat(64), 'My-Bucket', 'my_bucket', '-bucket', 'a..b', '192.168.1.1']) {
      await expectValidationError(await post(integration({ bucket })), 'bucket');
    }
    for (const endpoint of ['minio:9000', 'ftp://minio.example.com', 'https://user:pw@minio.example.com', `${s3.endpoint}/${BUCKET}`, `${s3.endpoint}/?x=1`]) {
      await expectValidationError(await post(integration({ endpoint })), 'endpoint');
    }
    const { endpoint: _drop, ...aws } = integration();
    await expectValidationError(await post({ ...aws, region: 'auto' }), 'region');
    await expectValidationError(await post(integration({ region: 'eu west' })), 'region');
    await expectValidationError(await post(integration({ default_prefix: 'p'.repeat(501) })), 'default_prefix');
    await expectValidationError(await post(integration({ secret_access_key: '' })), 'secret_access_key');
    await expectValidationError(await post(integration({ access_key_id: 'with space' })), 'access_key_id');
    await expectValidationError(await post({ bucket: BUCKET, secret_access_key: 'x' }), 'access_key_id');
    await expectError(await post(integration({ path_style: true })), 400, 'VALIDATION_ERROR');

    // R2: region "auto" with an endpoint; AWS: an AWS region and no endpoint. Saved without contacting the store.
    const r2 = await call('POST', '/v1/integrations/s3', apiKey, integration({ region: 'auto', default_prefix: 'p'.repeat(500) }));
    assert.equal(r2.status, 201, r2.text);
    const awsSaved = await call('POST', '/v1/integrations/s3', apiKey, { ...aws, region: 'eu-central-1' });
    assert.equal(awsSaved.status, 200, awsSaved.text);
    assert.equal(awsSaved.json.endpoint, null);
    assert.equal(awsSaved.json.path_style, false);
  });

  test('the secret is sealed at rest (not in the SQLite files in clear text)', async () => {
    const { teamId } = await setup();
    const db = s.server.services.db;
    const [row] = await db.orm.select().from(db.t.s3Integrations).where(eq(db.t.s3Integrations.teamId, teamId));
    assert.match(row.secretAccessKeyEnc, /^v1\./);
    assert.ok(!row.secretAccessKeyEnc.includes(s3.secretAccessKey));
    assert.equal(s.server.services.secrets.open(row.secretAccessKeyEnc), s3.secretAccessKey);
    if (db.dialect === 'sqlite') (db as SqliteDb).client.pragma('wal_checkpoint(PASSIVE)');
    for (const f of ['platen.db', 'platen.db-wal', 'platen.db-shm']) {
      const file = join(s.dataDir, f);
      if (!existsSync(file)) continue;
      assert.equal(readFileSync(file).indexOf(s3.secretAccessKey), -1, `${f} holds the secret in clear text`);
    }
  });
});

describe('POST /v1/integrations/s3/test', () => {
  test('success: connect, write and delete a probe object under the default prefix', async () => {
    const { apiKey } = await setup({ default_prefix: 'probe//here/' });
    const r = await call('POST', '/v1/integrations/s3/test', apiKey);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ok, true, r.text);
    assert.equal(r.json.bucket, BUCKET);
    assert.match(r.json.key, /^probe\/here\/\.platen-probe-[0-9a-f]{16}$/);
    assert.deepEqual(r.json.steps.map((x: { step: string; ok: boolean }) => [x.step, x.ok]), [['connect', true], ['write', true], ['delete', true]]);
    assert.equal(r.json.step, undefined);
    assert.equal(await s3.read(BUCKET, r.json.key), null, 'the probe object was removed');
  });

  test('failure: a closed port fails at "connect", a missing bucket too, a wrong secret at "write"', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const a = await setup({ endpoint: closed });
    const r = await call('POST', '/v1/integrations/s3/test', a.apiKey);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.step, 'connect');
    assert.match(r.json.error, /ECONNREFUSED/);
    assert.deepEqual(r.json.steps.map((x: { step: string; ok: boolean }) => [x.step, x.ok]), [['connect', false]]);

    const b = await setup({ bucket: 'no-such-bucket' });
    const rb = await call('POST', '/v1/integrations/s3/test', b.apiKey);
    assert.equal(rb.json.ok, false);
    assert.equal(rb.json.step, 'connect');
    assert.match(rb.json.error, /no-such-bucket.*does not exist/);

    const c = await setup({ secret_access_key: 'wrong-secret-0123456789' });
    const rc = await call('POST', '/v1/integrations/s3/test', c.apiKey);
    assert.equal(rc.json.ok, false, rc.text);
    assert.equal(rc.json.step, 'write', rc.text);
    assert.match(rc.json.error, /Signature/i);
  });
});

describe('store_s3 on POST /v1/pdf/create', () => {
  test('uploads the PDF and answers {s3_bucket, s3_key, filename, credits_remaining} (§2.3)', async () => {
    const t = await setup({ default_prefix: 'invoices//2025/' }, 5);
    const r = await call('POST', '/v1/pdf/create', t.apiKey, { template_id: t.tpl, data: { name: 'Ada' }, store_s3: true, filename: 'inv-1' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['credits_remaining', 'filename', 's3_bucket', 's3_key', 'warnings']);
    assert.deepEqual(r.json, { s3_bucket: BUCKET, s3_key: 'invoices/2025/inv-1.pdf', filename: 'inv-1.pdf', credits_remaining: 4, warnings: [] });
    assertPdf(await s3.read(BUCKET, 'invoices/2025/inv-1.pdf'), 'sync upload');
    const stat = await s3.client.statObject(BUCKET, 'invoices/2025/inv-1.pdf');
    assert.equal(stat.metaData['content-type'], 'application/pdf');
    assert.equal(await balance(s.server.services.db, t.teamId), 4);
    assert.deepEqual((await ledger(s.server.services.db, t.teamId)).filter((l) => l.reason !== 'grant').map((l) => l.delta), [-1], 'one debit, no refund');
  });

  test('s3_filepath over default_prefix ("reports/", "reports//2025/", ""), default_prefix "", s3_bucket override', async () => {
    const t = await setup({ default_prefix: 'default/' }, 20);
    const cases: [Record<string, unknown>, string][] = [
      [{ s3_filepath: 'reports/' }, 'reports/f1.pdf'],
      [{ s3_filepath: 'reports//2025/' }, 'reports/2025/f2.pdf'],
      [{ s3_filepath: '' }, 'f3.pdf'],
      [{}, 'default/f4.pdf'],
    ];
    for (const [i, [extra, key]] of cases.entries()) {
      const r = await call('POST', '/v1/pdf/create', t.apiKey, { template_id: t.tpl, data: { name: 'x' }, store_s3: true, filename: `f${i + 1}`, ...extra });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.s3_key, key, JSON.stringify(extra));
      assertPdf(await s3.read(BUCKET, key), key);
    }

    const u = await setup({ default_prefix: '' }, 5);
    const root = await call('POST', '/v1/pdf/create', u.apiKey, { template_id: u.tpl, data: { name: 'x' }, store_s3: true, filename: 'at-root' });
    assert.equal(root.json.s3_key, 'at-root.pdf');

    await s3.client.makeBucket(OTHER_BUCKET, 'us-east-1');
    const other = await call('POST', '/v1/pdf/create', t.apiKey, { template_id: t.tpl, data: { name: 'x' }, store_s3: true, s3_bucket: OTHER_BUCKET, s3_filepath: 'x/', filename: 'elsewhere' });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.json.s3_bucket, OTHER_BUCKET);
    assert.equal(other.json.s3_key, 'x/elsewhere.pdf');
    assertPdf(await s3.read(OTHER_BUCKET, 'x/elsewhere.pdf'), 's3_bucket override');
    assert.equal(await s3.read(BUCKET, 'x/elsewhere.pdf'), null, 'not in the integration bucket');
  });

  test('export_type "binary" ignores the S3 options (§2.3): bytes back, nothing uploaded', async () => {
    const t = await setup({ default_prefix: 'bin/' }, 3);
    const res = await s.api('POST', '/v1/pdf/create', t.apiKey, { template_id: t.tpl, data: { name: 'x' }, export_type: 'binary', store_s3: true, filename: 'never' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
    assert.equal(await s3.read(BUCKET, 'bin/never.pdf'), null);
  });

  test('an upload failure refunds the credit: 502 S3_UPLOAD_FAILED with the storage error (closed port, missing bucket)', async () => {
    const t = await setup({ endpoint: `http://127.0.0.1:${await freePort()}` }, 3);
    const r = await call('POST', '/v1/pdf/create', t.apiKey, { template_id: t.tpl, data: { name: 'x' }, store_s3: true });
    const body = await expectError(r.res, 502, 'S3_UPLOAD_FAILED');
    assert.match(body.detail, /ECONNREFUSED/);
    assert.match(body.detail, /refunded/);
    assert.equal(body.s3_bucket, BUCKET);
    assert.equal(body.s3_key, 'document.pdf');
    assert.equal(await balance(s.server.services.db, t.teamId), 3, 'balance unchanged');
    assert.deepEqual(
      (await ledger(s.server.services.db, t.teamId)).slice(-2).map((l) => [l.delta, l.reason, l.balanceAfter]),
      [[-1, 'generation', 2], [1, 'refund', 3]],
    );

    const u = await setup({}, 2);
    const nb = await call('POST', '/v1/pdf/create', u.apiKey, { template_id: u.tpl, data: { name: 'x' }, store_s3: true, s3_bucket: 'missing-bucket' });
    const nbBody = await expectError(nb.res, 502, 'S3_UPLOAD_FAILED');
    assert.match(nbBody.detail, /NoSuchBucket|does not exist/);
    assert.equal(await balance(s.server.services.db, u.teamId), 2);
  });

  test('store_s3 without an integration: 400 S3_INTEGRATION_MISSING naming the fix, no credit taken (sync and async)', async () => {
    const t = await setup(null, 2);
    const r = await call('POST', '/v1/pdf/create', t.apiKey, { template_id: t.tpl, data: {}, store_s3: true });
    const body = await expectError(r.res, 400, 'S3_INTEGRATION_MISSING');
    assert.match(body.detail, /POST \/v1\/integrations\/s3/);
    const a = await call('POST', '/v1/pdf/create-async', t.apiKey, { template_id: t.tpl, data: {}, store_s3: true });
    await expectError(a.res, 400, 'S3_INTEGRATION_MISSING');
    assert.equal(await balance(s.server.services.db, t.teamId), 2);
    assert.equal((await ledger(s.server.services.db, t.teamId)).filter((l) => l.reason !== 'grant').length, 0);
  });
});

describe('store_s3 on POST /v1/pdf/create-async', () => {
  test('the job gets result_s3_bucket/result_s3_key with result_url null; pdf.completed carries s3_bucket and s3_key', async () => {
    const t = await setup({ default_prefix: 'jobs/' }, 5);
    const created = await call('POST', '/v1/pdf/create-async', t.apiKey, {
      template_id: t.tpl, data: { name: 'x' }, store_s3: true, s3_filepath: 'async/out/', filename: 'queued', webhook_url: hook.url,
    });
    assert.equal(created.status, 202, created.text);
    const job = await waitJob(t.apiKey, created.json.job_id);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.store_s3, true);
    assert.equal(job.result_url, null);
    assert.equal(job.result_expires_at, null);
    assert.equal(job.result_s3_bucket, BUCKET);
    assert.equal(job.result_s3_key, 'async/out/queued.pdf');
    assert.equal(job.result_filename, 'queued.pdf');
    assertPdf(await s3.read(BUCKET, 'async/out/queued.pdf'), 'async upload');

    const h = await waitHook(job.id);
    assert.equal(h.event, 'pdf.completed');
    assert.deepEqual(h.body.result, { s3_bucket: BUCKET, s3_key: 'async/out/queued.pdf', filename: 'queued.pdf' });
    assert.ok(!('url' in (h.body.result as object)));

    const bucketJob = await call('POST', '/v1/pdf/create-async', t.apiKey, { template_id: t.tpl, data: { name: 'x' }, store_s3: true, filename: 'dflt' });
    const done = await waitJob(t.apiKey, bucketJob.json.job_id);
    assert.equal(done.result_s3_key, 'jobs/dflt.pdf', 'default_prefix when no s3_filepath');
  });

  test('an upload failure fails the job with S3_UPLOAD_FAILED and refunds it (ledger -1 then +1); pdf.failed says so', async () => {
    const t = await setup({ endpoint: `http://127.0.0.1:${await freePort()}` }, 3);
    const created = await call('POST', '/v1/pdf/create-async', t.apiKey, { template_id: t.tpl, data: { name: 'x' }, store_s3: true, webhook_url: hook.url });
    assert.equal(created.status, 202, created.text);
    assert.equal(created.json.credits_remaining, 2);
    const job = await waitJob(t.apiKey, created.json.job_id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error_code, 'S3_UPLOAD_FAILED');
    assert.match(job.error_message, /ECONNREFUSED/);
    assert.equal(job.result_s3_key, null);
    assert.equal(await balance(s.server.services.db, t.teamId), 3);
    assert.deepEqual(
      (await ledger(s.server.services.db, t.teamId)).slice(-2).map((l) => [l.delta, l.jobId]),
      [[-1, job.id], [1, job.id]],
    );
    const h = await waitHook(job.id);
    assert.equal(h.event, 'pdf.failed');
    assert.equal((h.body.error as { code: string }).code, 'S3_UPLOAD_FAILED');
  });

  test('a queued job whose team deleted its integration meanwhile fails with S3_INTEGRATION_MISSING, refunded', async () => {
    const t = await setup(null, 2);
    // As if the integration existed when the job was accepted (the request checks it) and was deleted since.
    const { job } = await insertJob(s.server.services.db, t.teamId, { templateId: t.tpl, definition: JSON.stringify(TINY), data: {}, filename: 'gone', expiration: 3600, storeS3: true });
    s.server.services.runner.enqueue(job.id, t.teamId);
    const done = await waitJob(t.apiKey, job.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.error_code, 'S3_INTEGRATION_MISSING');
    assert.match(done.error_message, /POST \/v1\/integrations\/s3/);
    assert.equal(await balance(s.server.services.db, t.teamId), 2);
  });
});

describe('isolation and private endpoints', () => {
  test("another team cannot see, test, delete or use a team's integration", async () => {
    const a = await setup({ default_prefix: 'team-a/' });
    const b = await setup(null, 2);
    await expectError((await call('GET', '/v1/integrations/s3', b.apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');
    await expectError((await call('POST', '/v1/integrations/s3/test', b.apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');
    await expectError((await call('DELETE', '/v1/integrations/s3', b.apiKey)).res, 404, 'INTEGRATION_NOT_FOUND');
    await expectError((await call('POST', '/v1/pdf/create', b.apiKey, { template_id: b.tpl, data: {}, store_s3: true })).res, 400, 'S3_INTEGRATION_MISSING');
    const still = await call('GET', '/v1/integrations/s3', a.apiKey);
    assert.equal(still.status, 200);
    assert.equal(still.json.default_prefix, 'team-a/');
  });

  test('without PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS, private endpoints are refused when saved and when used', async () => {
    const strict = await startUrlServer();
    try {
      const { teamId, apiKey } = await strict.team(3);
      for (const endpoint of [s3.endpoint, `http://localhost:${s3.port}`, 'http://10.1.2.3:9000', 'http://[::1]:9000']) {
        const res = await strict.api('POST', '/v1/integrations/s3', apiKey, integration({ endpoint }));
        const body = await expectValidationError(res, 'endpoint');
        assert.match(body.detail, /private|loopback/);
        assert.match(body.detail, /PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS/);
      }
      // One saved while the flag was on is refused at use: an IP literal before connecting, a host
      // name on the address the socket would connect to.
      const db = strict.server.services.db;
      const tpl = await strict.template(teamId, TINY);
      for (const endpoint of [s3.endpoint, `http://localhost:${s3.port}`, `http://[::1]:${s3.port}`]) {
        await saveS3Integration(db, strict.server.services.secrets, teamId, { bucket: BUCKET, region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, endpoint, default_prefix: 'strict/' });
        const res = await strict.api('POST', '/v1/pdf/create', apiKey, { template_id: tpl, data: {}, store_s3: true, filename: 'blocked' });
        const body = await expectError(res, 502, 'S3_UPLOAD_FAILED');
        assert.match(body.detail, /private/, endpoint);
        assert.match(body.detail, /PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS/, endpoint);
        assert.equal(await balance(db, teamId), 3);
        assert.equal(await s3.read(BUCKET, 'strict/blocked.pdf'), null, `nothing reached the store (${endpoint})`);
        const probe = (await (await strict.api('POST', '/v1/integrations/s3/test', apiKey)).json()) as { ok: boolean; step: string; error: string };
        assert.equal(probe.ok, false);
        assert.equal(probe.step, 'connect');
        assert.match(probe.error, /private/, endpoint);
      }
    } finally {
      await strict.close();
    }
  });
});

describe('the secret never leaves', () => {
  test('no response and no log line carried the secret access key', () => {
    assert.ok(bodies.length > 30, 'responses were collected');
    for (const b of bodies) assert.ok(!b.includes(s3.secretAccessKey), `a response carried the secret: ${b.slice(0, 200)}`);
    assert.ok(logs.length > 0, 'log lines were collected');
    for (const l of logs) assert.ok(!l.includes(s3.secretAccessKey), `a log line carried the secret: ${l.slice(0, 200)}`);
  });
});
