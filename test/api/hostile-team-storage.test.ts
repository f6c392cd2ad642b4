/**
 * Saving templates, versions and assets costs no credit: a team's stored bytes are bounded
 * (PLATEN_MAX_TEAM_STORAGE_BYTES), else one key could fill the disk at 600 saves of up to 10 MB a
 * minute (before: no bound at all).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_MAX_TEAM_STORAGE_BYTES: '10000' });
});
after(async () => {
  await s.close();
});

/** A definition whose JSON is about `chars` characters. */
const definitionOf = (chars: number) => ({ content: [{ text: 'x'.repeat(chars - 30) }] });

async function faultOf(res: Response): Promise<{ path: string; message: string }> {
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  return body.errors[0];
}

function upload(apiKey: string, bytes: number): Promise<Response> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><!--${'p'.repeat(bytes - 80)}--></svg>`;
  const form = new FormData();
  form.append('file', new Blob([svg], { type: 'image/svg+xml' }), 'pad.svg');
  return s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
}

test('templates, versions and assets of a team together stop at its storage budget, each refusal naming its field; another team has its own', async () => {
  const { apiKey } = await s.team(0);
  const first = await s.api('POST', '/v1/templates', apiKey, { name: 'a', type: 'pdf', definition: definitionOf(6000) });
  assert.equal(first.status, 201);
  const { id } = (await first.json()) as { id: string };

  const second = await faultOf(await s.api('POST', '/v1/templates', apiKey, { name: 'b', type: 'pdf', definition: definitionOf(6000) }));
  assert.equal(second.path, 'definition');
  assert.match(second.message, /stores \d+ bytes .* past 10000 \(PLATEN_MAX_TEAM_STORAGE_BYTES\)/);
  assert.equal((await faultOf(await s.api('POST', `/v1/templates/${id}/versions`, apiKey, {}))).path, 'template');
  assert.equal((await faultOf(await upload(apiKey, 5000))).path, 'file');

  // Replacing the draft counts only what it adds; a smaller one frees room.
  assert.equal((await s.api('PUT', `/v1/templates/${id}`, apiKey, { definition: definitionOf(3000) })).status, 200);
  assert.equal((await s.api('POST', `/v1/templates/${id}/versions`, apiKey, {})).status, 201);
  assert.equal((await upload(apiKey, 2000)).status, 201);

  const other = await s.team(0);
  assert.equal((await s.api('POST', '/v1/templates', other.apiKey, { name: 'c', type: 'pdf', definition: definitionOf(6000) })).status, 201);
});
