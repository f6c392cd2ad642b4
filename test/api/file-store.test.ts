/**
 * The shared file store (PLATEN_STORAGE_URL=s3://bucket/prefix) against a real S3-compatible
 * server (s3rver behind a Signature V4 check): a PDF rendered on one node lands in the bucket and
 * its signed URL is served by a second node sharing the database and the store; presigned S3 URLs;
 * the sweeper deletes expired objects; an unreachable store fails /readyz and renders clearly.
 * Runs on SQLite and (PLATEN_TEST_DATABASE_URL) PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { S3Store } from '../../src/storage/s3.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { balance, createJob, waitForJob } from '../helpers/jobs.ts';
import { pdfToText } from '../helpers/pdf.ts';
import { TEST_DIALECT } from '../helpers/test-database.ts';

const BUCKET = 'platen-files';
const SECRET = 'cluster-secret-'.padEnd(48, 'x');

let s3: TestS3;
let a: TestServer;
let b: TestServer;

const storeEnv = (extra: Record<string, string> = {}, s = s3): Record<string, string> => ({
  PLATEN_STORAGE_URL: `s3://${BUCKET}/generated/`,
  PLATEN_STORAGE_ENDPOINT: s.endpoint,
  PLATEN_STORAGE_ACCESS_KEY_ID: s.accessKeyId,
  PLATEN_STORAGE_SECRET_ACCESS_KEY: s.secretAccessKey,
  PLATEN_SECRET: SECRET,
  ...extra,
});

/** Start a second node on the first's state: its PostgreSQL database, or (SQLite) its data dir. */
async function secondNode(first: TestServer, env: Record<string, string>): Promise<TestServer> {
  if (TEST_DIALECT === 'postgres') {
    const url = readFileSync(join(first.dataDir, 'test-database-url'), 'utf8').trim();
    return startTestServer({ ...env, PLATEN_DATABASE_URL: url });
  }
  return startTestServer(env, { dataDir: first.dataDir, keepDataDir: true });
}

async function createUrl(s: TestServer, apiKey: string, templateId: string, extra: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: templateId, data: { name: 'Ada' }, export_type: 'url', ...extra });
  const body = (await res.json()) as { url: string; filename: string; code?: string; detail?: string };
  return { status: res.status, body };
}

before(async () => {
  s3 = await startS3([BUCKET]);
  a = await startTestServer(storeEnv());
  b = await secondNode(a, storeEnv());
});
after(async () => {
  await b?.close();
  await a?.close();
  await s3?.close();
});

describe('S3 file store shared by two nodes', () => {
  test('a URL made on node A is in the bucket, not on A\'s disk, and node B serves it', async () => {
    const { teamId, apiKey } = await a.team(3);
    const id = await a.template(teamId, { content: [{ text: 'Hello {{name}} from the bucket' }] });
    const { status, body } = await createUrl(a, apiKey, id, { filename: 'shared' });
    assert.equal(status, 200, JSON.stringify(body));
    const u = new URL(body.url);
    assert.equal(u.origin, a.url.replace('127.0.0.1', 'localhost'), 'a service URL of node A');
    const fileId = u.pathname.split('/')[2];
    assert.match(fileId, /^[0-9a-f]{32}$/);

    const object = await s3.read(BUCKET, `generated/files/${fileId}.pdf`);
    assert.ok(object, 'the PDF is in the bucket under the prefix');
    assert.match(pdfToText(object), /Hello Ada from the bucket/);
    const stat = await s3.client.statObject(BUCKET, `generated/files/${fileId}.pdf`);
    assert.equal(stat.metaData['content-type'], 'application/pdf');
    assert.equal(Number(stat.metaData['platen-expires-at']), Number(u.searchParams.get('expires')));
    assert.equal(stat.metaData['platen-team'], teamId);
    const localDir = join(a.dataDir, 'files');
    assert.ok(!existsSync(localDir) || readdirSync(localDir).length === 0, 'nothing on the local disk');

    // Node B: another process with the same database, store and secret.
    const res = await b.fetch(`${u.pathname}${u.search}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('content-length'), String(object.length));
    const served = Buffer.from(await res.arrayBuffer());
    assert.deepEqual(served, object, 'node B serves the bytes of the bucket');

    const tampered = await b.fetch(`${u.pathname}?expires=${u.searchParams.get('expires')}&signature=${'0'.repeat(64)}`);
    assert.equal(tampered.status, 403);
  });

  test('a queued job rendered on node A stores its file in the bucket; its result_url works on node B', async () => {
    const { teamId, apiKey } = await a.team(2);
    const id = await a.template(teamId, { content: [{ text: 'Queued {{name}}' }] });
    const { job_id } = await createJob(a, apiKey, { template_id: id, data: { name: 'Grace' } });
    const job = await waitForJob(a, apiKey, job_id);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const u = new URL(job.result_url as string);
    const res = await b.fetch(`${u.pathname}${u.search}`);
    assert.equal(res.status, 200);
    assert.match(pdfToText(Buffer.from(await res.arrayBuffer())), /Queued Grace/);
    assert.ok(await s3.read(BUCKET, `generated/files/${u.pathname.split('/')[2]}.pdf`));
  });

  test('the sweeper on either node deletes expired objects from the bucket and their rows', async () => {
    const { teamId, apiKey } = await a.team(2);
    const id = await a.template(teamId, { content: [{ text: 'Short-lived' }] });
    const short = new URL((await createUrl(a, apiKey, id, { expiration: 60 })).body.url);
    const long = new URL((await createUrl(a, apiKey, id, { expiration: 3600 })).body.url);
    const keyOf = (u: URL) => `generated/files/${u.pathname.split('/')[2]}.pdf`;
    assert.ok((await s3.read(BUCKET, keyOf(short))) && (await s3.read(BUCKET, keyOf(long))));

    const deleted = await b.server.services.files.sweep(new Date(Date.now() + 120_000));
    assert.ok(deleted >= 1);
    assert.equal(await s3.read(BUCKET, keyOf(short)), null, 'the expired object is gone from the bucket');
    assert.ok(await s3.read(BUCKET, keyOf(long)), 'the unexpired object stays');
    const { orm, t } = a.server.services.db;
    const rows = (await orm.select({ id: t.generatedFiles.id }).from(t.generatedFiles)).map((r) => r.id);
    assert.ok(!rows.includes(short.pathname.split('/')[2]), 'its row is gone');
    // A second sweep (the other node) finds nothing more of it and does not fail.
    await a.server.services.files.sweep(new Date(Date.now() + 120_000));
    const res = await a.fetch(`${long.pathname}${long.search}`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  test('/healthz and /readyz report the store', async () => {
    const res = await b.fetch('/readyz');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { checks: { store: { status: string; kind: string; location: string; ms: number } } };
    assert.equal(body.checks.store.status, 'ok');
    assert.equal(body.checks.store.kind, 's3');
    assert.equal(body.checks.store.location, `s3://${BUCKET}/generated/files at ${s3.endpoint}`);
  });
});

describe('presigned URLs (PLATEN_STORAGE_PUBLIC_URLS=presigned)', () => {
  test('the URL is a presigned GET of the bucket; it downloads the PDF; a changed signature is refused', async () => {
    const c = await secondNode(a, storeEnv({ PLATEN_STORAGE_PUBLIC_URLS: 'presigned' }));
    try {
      const { teamId, apiKey } = await c.team(2);
      const id = await c.template(teamId, { content: [{ text: 'Presigned {{name}}' }] });
      const { status, body } = await createUrl(c, apiKey, id, { filename: 'direct', expiration: 600 });
      assert.equal(status, 200, JSON.stringify(body));
      const u = new URL(body.url);
      assert.equal(u.origin, s3.endpoint);
      assert.match(u.pathname, new RegExp(`^/${BUCKET}/generated/files/[0-9a-f]{32}\\.pdf$`));
      assert.equal(u.searchParams.get('X-Amz-Expires'), '600');
      const res = await fetch(body.url);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-disposition') ?? '', /filename="direct\.pdf"/);
      assert.match(pdfToText(Buffer.from(await res.arrayBuffer())), /Presigned Ada/);
      u.searchParams.set('X-Amz-Signature', '0'.repeat(64));
      const bad = await fetch(u);
      assert.equal(bad.status, 403);
      await bad.arrayBuffer();
    } finally {
      await c.close();
    }
  });

  test('with PLATEN_CDN_URL the URL is signed for that origin (a proxy keeping the Host header reaches the bucket with it)', async () => {
    const cdn = `http://localhost:${s3.port}`;
    const c = await secondNode(a, storeEnv({ PLATEN_STORAGE_PUBLIC_URLS: 'presigned', PLATEN_CDN_URL: cdn }));
    try {
      const { teamId, apiKey } = await c.team(1);
      const id = await c.template(teamId, { content: [{ text: 'Through the CDN' }] });
      const { body } = await createUrl(c, apiKey, id);
      const u = new URL(body.url);
      assert.equal(u.origin, cdn);
      const got = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: s3.port, path: `${u.pathname}${u.search}`, headers: { host: u.host } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (d: Buffer) => chunks.push(d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
      assert.equal(got.status, 200);
      assert.match(pdfToText(got.body), /Through the CDN/);
    } finally {
      await c.close();
    }
  });
});

describe('kept-alive connections the store closes', () => {
  test('a call on a connection the store dropped meanwhile is sent again on a new one (it failed as STORAGE_UNAVAILABLE)', async () => {
    // A TCP relay to the store that lets one request through per connection and drops the
    // connection when a second one arrives on it: a kept-alive socket the store closed just as
    // it was reused (Node's 5 s keep-alive timeout, S3's idle timeout).
    const dropped: number[] = [];
    const relay = net.createServer((client) => {
      const upstream = net.connect(s3.port, '127.0.0.1');
      let requests = 0;
      client.on('data', (chunk) => {
        if (/^(PUT|GET|HEAD|DELETE|POST) /.test(chunk.toString('latin1', 0, 7)) && ++requests > 1) {
          dropped.push(requests);
          client.destroy();
          upstream.destroy();
          return;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk) => client.write(chunk));
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
    const store = new S3Store({ bucket: BUCKET, prefix: 'relay', endpoint: `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}`, region: 'us-east-1', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true, timeoutMs: 10_000 });
    try {
      for (let i = 0; i < 3; i++) await store.put(`f${i}.pdf`, Buffer.from(`%PDF-${i}`), { contentType: 'application/pdf', expiresAt: 2_000_000_000, teamId: 't' });
      assert.ok(dropped.length >= 1, 'a kept-alive connection was dropped');
      for (let i = 0; i < 3; i++) assert.equal((await s3.read(BUCKET, `relay/f${i}.pdf`))?.toString(), `%PDF-${i}`);
    } finally {
      store.close();
      await new Promise<void>((r) => relay.close(() => r()));
    }
  });
});

describe('configuration', () => {
  test('bad store settings stop start-up naming the variable', () => {
    const fails = (env: Record<string, string>, re: RegExp) => assert.throws(() => loadConfig({ PLATEN_SECRET: SECRET, ...env }), (e: unknown) => e instanceof ConfigError && re.test((e as Error).message));
    fails({ PLATEN_STORAGE_URL: 'https://bucket/prefix' }, /PLATEN_STORAGE_URL: must be s3:\/\//);
    fails({ PLATEN_STORAGE_URL: 's3://b' }, /PLATEN_STORAGE_URL/);
    fails({ PLATEN_STORAGE_URL: 's3://bucket' }, /PLATEN_STORAGE_ACCESS_KEY_ID: required[\s\S]*PLATEN_STORAGE_SECRET_ACCESS_KEY: required/);
    fails({ PLATEN_STORAGE_PUBLIC_URLS: 'presigned' }, /PLATEN_STORAGE_PUBLIC_URLS: presigned needs an S3 file store/);
    fails({ PLATEN_STORAGE_URL: 's3://bucket', PLATEN_STORAGE_ACCESS_KEY_ID: 'k', PLATEN_STORAGE_SECRET_ACCESS_KEY: 's', PLATEN_STORAGE_PUBLIC_URLS: 'presigned', PLATEN_CDN_URL: 'https://cdn.example.com/files' }, /PLATEN_CDN_URL: .*without a path/);
    fails({ PLATEN_STORAGE_ENDPOINT: 'ftp://x' }, /PLATEN_STORAGE_ENDPOINT/);
    const ok = loadConfig({ PLATEN_SECRET: SECRET, PLATEN_STORAGE_URL: 's3://my-bucket//a/b/', PLATEN_STORAGE_ACCESS_KEY_ID: 'k', PLATEN_STORAGE_SECRET_ACCESS_KEY: 's' });
    assert.deepEqual(ok.storage, { kind: 's3', bucket: 'my-bucket', prefix: 'a/b', endpoint: undefined, region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: false });
    assert.deepEqual(loadConfig({ PLATEN_SECRET: SECRET }).storage, { kind: 'local' });
  });
});

describe('the local store (default)', () => {
  test('/healthz reports the data dir\'s files folder; a URL is served from it', async () => {
    const d = await startTestServer();
    try {
      const body = (await (await d.fetch('/healthz')).json()) as { checks: { store: { status: string; kind: string; location: string } } };
      assert.deepEqual({ ...body.checks.store, ms: undefined }, { status: 'ok', kind: 'local', location: join(d.dataDir, 'files'), ms: undefined });
      const { teamId, apiKey } = await d.team(1);
      const id = await d.template(teamId, { content: [{ text: 'On the local disk' }] });
      const u = new URL((await createUrl(d, apiKey, id)).body.url);
      assert.ok(existsSync(join(d.dataDir, 'files', `${u.pathname.split('/')[2]}.pdf`)));
      const res = await d.fetch(`${u.pathname}${u.search}`);
      assert.match(pdfToText(Buffer.from(await res.arrayBuffer())), /On the local disk/);
    } finally {
      await d.close();
    }
  });
});

describe('an unreachable store', () => {
  test('a missing bucket fails /readyz naming it', async () => {
    const d = await startTestServer(storeEnv({ PLATEN_STORAGE_URL: 's3://no-such-bucket' }));
    try {
      const res = await d.fetch('/readyz');
      assert.equal(res.status, 503);
      const body = (await res.json()) as { checks: { store: { status: string; error: string }; database: { status: string } } };
      assert.equal(body.checks.database.status, 'ok');
      assert.equal(body.checks.store.status, 'error');
      assert.match(body.checks.store.error, /bucket "no-such-bucket" does not exist/);
    } finally {
      await d.close();
    }
  });

  test('store down: /readyz 503 naming the store, renders 503 STORAGE_UNAVAILABLE with the credit refunded, links 503, jobs fail with STORAGE_UNAVAILABLE', async () => {
    const own = await startS3([BUCKET]);
    const d = await startTestServer(storeEnv({}, own));
    try {
      const { teamId, apiKey } = await d.team(3);
      const id = await d.template(teamId, { content: [{ text: 'Before the outage' }] });
      const before = new URL((await createUrl(d, apiKey, id)).body.url);
      assert.equal((await d.fetch('/readyz')).status, 200);
      await own.close();

      const ready = await d.fetch('/readyz');
      assert.equal(ready.status, 503);
      const report = (await ready.json()) as { status: string; checks: { store: { status: string; error: string } } };
      assert.equal(report.status, 'unavailable');
      assert.equal(report.checks.store.status, 'error');
      assert.match(report.checks.store.error, new RegExp(`the file store s3://${BUCKET}/generated/files at ${own.endpoint} failed to reach: .*(ECONNREFUSED|ECONNRESET)`));
      assert.equal((await d.fetch('/healthz')).status, 200, 'liveness does not depend on the store');

      const { status, body } = await createUrl(d, apiKey, id);
      assert.equal(status, 503);
      assert.equal(body.code, 'STORAGE_UNAVAILABLE');
      assert.match(body.detail ?? '', /the file store s3:\/\/platen-files\/generated\/files .* failed to write: .*; the credit was refunded/);
      assert.equal(await balance(d, teamId), 2, 'only the first render was paid');

      const link = await d.fetch(`${before.pathname}${before.search}`);
      assert.equal(link.status, 503);
      assert.equal(((await link.json()) as { code: string }).code, 'STORAGE_UNAVAILABLE');

      const { job_id } = await createJob(d, apiKey, { template_id: id, data: {} });
      const job = await waitForJob(d, apiKey, job_id);
      assert.equal(job.status, 'failed');
      assert.equal(job.error_code, 'STORAGE_UNAVAILABLE');
      assert.match(job.error_message ?? '', /failed to write/);
    } finally {
      await d.close();
    }
  });
});
