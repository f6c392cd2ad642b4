import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('GET /healthz answers without a key', async () => {
  const res = await s.fetch('/healthz');
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 'ok' });
});

test('a created team renders a template as binary and pays one credit', async () => {
  const { teamId, apiKey } = s.team(3);
  const id = s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Ada' }, export_type: 'binary' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-credits-remaining'), '2');
  const pdf = Buffer.from(await res.arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
});
