/**
 * Saving a template whose properties would do nothing is refused with the path (real server):
 * offsets without absolute position, a second node with an id already used, a QR code with
 * both size and width. A QR code sized by width and height is saved and renders.
 */
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

async function refused(apiKey: string, definition: unknown): Promise<{ path: string; message: string }[]> {
  const res = await s.api('POST', '/v1/templates', apiKey, { name: 'bad', type: 'pdf', definition });
  const text = await res.text();
  assert.equal(res.status, 400, text);
  const body = JSON.parse(text) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  return body.errors;
}

test('offsets without position absolute, duplicate ids and a QR code with size and width are 400 with their paths', async () => {
  const { apiKey } = await s.team(1);
  const offsets = await refused(apiKey, { content: [{ text: 'a' }, { text: 'b', top: 20, left: 10 }] });
  assert.deepEqual(offsets.map((e) => e.path), ['definition.content[1].top']);
  assert.match(offsets[0].message, /position.*absolute/);
  const ids = await refused(apiKey, { content: [{ text: 'a', id: 'x' }, { text: 'b', id: 'x' }] });
  assert.deepEqual(ids.map((e) => e.path), ['definition.content[1].id']);
  const qr = await refused(apiKey, { content: [{ qrcode: 'hi', size: 40, height: 60 }] });
  assert.deepEqual(qr.map((e) => e.path), ['definition.content[0].height']);
  // Updating a template to such a definition is refused the same way.
  const ok = await s.api('POST', '/v1/templates', apiKey, { name: 'ok', type: 'pdf', definition: { content: [{ text: 'a', position: 'absolute', top: 20 }] } });
  assert.equal(ok.status, 201, await ok.clone().text());
  const { id } = (await ok.json()) as { id: string };
  const put = await s.api('PUT', `/v1/templates/${id}`, apiKey, { definition: { content: [{ text: 'a', right: 20 }] } });
  assert.equal(put.status, 400);
  assert.equal(((await put.json()) as { errors: { path: string }[] }).errors[0].path, 'definition.content[0].right');
});

test('a QR code sized by width and height is saved and renders', async () => {
  const { apiKey } = await s.team(2);
  const res = await s.api('POST', '/v1/templates', apiKey, { name: 'qr', type: 'pdf', definition: { content: [{ qrcode: 'hi', width: 50, height: 120 }] } });
  assert.equal(res.status, 201, await res.clone().text());
  const { id } = (await res.json()) as { id: string };
  const pdf = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary' });
  assert.equal(pdf.status, 200, await pdf.clone().text());
  assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
});
