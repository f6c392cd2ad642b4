/**
 * Assets with the shared file store (PLATEN_STORAGE_URL=s3://bucket/prefix) against a real
 * S3-compatible server: the bytes go to `<prefix>/assets/<id>.<ext>`, a second node renders with
 * them, and a delete removes the object.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TEST_DIALECT } from '../helpers/test-database.ts';

const BUCKET = 'platen-assets';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="teal"/></svg>';

let s3: TestS3;
let a: TestServer;
let b: TestServer;

before(async () => {
  s3 = await startS3([BUCKET]);
  const env = {
    PLATEN_STORAGE_URL: `s3://${BUCKET}/files/`,
    PLATEN_STORAGE_ENDPOINT: s3.endpoint,
    PLATEN_STORAGE_ACCESS_KEY_ID: s3.accessKeyId,
    PLATEN_STORAGE_SECRET_ACCESS_KEY: s3.secretAccessKey,
    PLATEN_SECRET: 'assets-secret-'.padEnd(48, 'x'),
    PLATEN_RENDER_THREADS: '1',
  };
  a = await startTestServer(env);
  // A second node on the same state: the same PostgreSQL database, or (SQLite) the same data dir.
  b =
    TEST_DIALECT === 'postgres'
      ? await startTestServer({ ...env, PLATEN_DATABASE_URL: readFileSync(join(a.dataDir, 'test-database-url'), 'utf8').trim() })
      : await startTestServer(env, { dataDir: a.dataDir, keepDataDir: true });
});
after(async () => {
  await b?.close();
  await a?.close();
  await s3?.close();
});

test('an asset uploaded to one node is stored in the bucket under assets/, rendered by another, deleted from the bucket', async () => {
  const { teamId, apiKey } = await a.team(3);
  const form = new FormData();
  form.append('file', new Blob([SVG], { type: 'image/svg+xml' }), 'mark.svg');
  const res = await a.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  assert.equal(res.status, 201);
  const { id } = (await res.json()) as { id: string };
  const key = `files/assets/${id}.svg`;
  assert.deepEqual(await s3.read(BUCKET, key), Buffer.from(SVG));
  const template = await a.template(teamId, { content: [{ image: `asset:${id}`, width: 50 }] });
  const pdf = await b.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: {}, export_type: 'binary' });
  assert.equal(pdf.status, 200, await pdf.clone().text());
  assert.equal((await b.api('DELETE', `/v1/assets/${id}`, apiKey)).status, 204);
  assert.equal(await s3.read(BUCKET, key), null, 'the object is gone');
  assert.equal((await a.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: {} })).status, 422);
});
