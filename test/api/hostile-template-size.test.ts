/**
 * Template definitions made of very many small nodes: validating costs the HTTP thread some 20 to
 * 50 microseconds per object, so a 9 MB definition of 300,000 faulty nodes held it 23 s and then
 * overflowed the validator's stack (500). Past PLATEN_MAX_TEMPLATE_NODES objects and arrays the
 * definition is refused with 400 naming `definition`, before it is validated.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let small: TestServer;
before(async () => {
  s = await startTestServer();
  small = await startTestServer({ PLATEN_MAX_TEMPLATE_NODES: '200' });
});
after(async () => {
  await s.close();
  await small.close();
});

/** A definition of `n` text nodes (n + 2 objects and arrays: the root and `content`). */
function nodes(n: number, node: unknown = { text: 'ok' }): { content: unknown[] } {
  return { content: Array.from({ length: n }, () => node) };
}

async function refusal(res: Response): Promise<{ path: string; message: string }> {
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.equal(body.errors.length, 1);
  return body.errors[0];
}

test('300,000 faulty nodes: 400 naming definition before validation (before: the HTTP thread held 23 s, then a 500 from a stack overflow)', async () => {
  const { apiKey } = await s.team(0);
  const fault = await refusal(await s.api('POST', '/v1/templates', apiKey, { name: 'big', type: 'pdf', definition: nodes(300_000, { text: 1, fontSize: -1 }) }));
  assert.equal(fault.path, 'definition');
  assert.match(fault.message, /more than 20000 objects and arrays/);
});

test('the limit holds for pdf and image templates, on create, update and preview; at the limit a definition is taken', async () => {
  const { teamId, apiKey } = await small.team(0);
  // 198 nodes + content + root = 200: at the limit.
  const created = await small.api('POST', '/v1/templates', apiKey, { name: 'at', type: 'pdf', definition: nodes(198) });
  assert.equal(created.status, 201);
  assert.match((await refusal(await small.api('POST', '/v1/templates', apiKey, { name: 'over', type: 'pdf', definition: nodes(199) }))).message, /more than 200 objects/);
  assert.equal((await refusal(await small.api('POST', '/v1/templates', apiKey, { name: 'img', type: 'image', definition: nodes(199) }))).path, 'definition');
  const id = await small.template(teamId, nodes(1));
  assert.equal((await refusal(await small.api('PUT', `/v1/templates/${id}`, apiKey, { definition: nodes(199) }))).path, 'definition');
  assert.equal((await refusal(await small.api('POST', '/v1/templates/preview', apiKey, { definition: nodes(199) }))).path, 'definition');
  const preview = await small.api('POST', '/v1/templates/preview', apiKey, { definition: nodes(198) });
  assert.equal(preview.status, 200);
});

test('a 4 MB definition of 2 million numbers nested 240 levels deep is checked and answered (its walk once copied a path per value: the heap passed 4 GB and the process aborted)', async () => {
  const { apiKey } = await s.team(0);
  let open = '';
  let close = '';
  for (let i = 0; i < 240; i++) {
    open += '{"a":';
    close += '}';
  }
  const body = `{"name":"deep","type":"image","definition":${open}[${Array(2_000_000).fill('0').join(',')}]${close}}`;
  const res = await fetch(`${s.url}/v1/templates`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
  // Walked to the end, then refused by the template language, which nests at most 48 levels.
  assert.match((await refusal(res)).message, /nested deeper than 48 levels/);
  // One level deeper than the cap: refused, naming the definition.
  const tooDeep = await s.api('POST', '/v1/templates', apiKey, { name: 'x', type: 'image', definition: JSON.parse(`${'{"a":'.repeat(257)}1${'}'.repeat(257)}`) });
  assert.match((await refusal(tooDeep)).message, /nested deeper than 256 levels/);
});

test('400,000 prototype keys: 400 with the first 100 faults in document order (zod ran out of stack on one issue each: a 500)', async () => {
  const { apiKey } = await s.team(0);
  const body = `{"name":"x","type":"pdf","definition":{"a":[${Array(400_000).fill('{"constructor":0}').join(',')}]}}`;
  const res = await fetch(`${s.url}/v1/templates`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
  assert.equal(res.status, 400);
  const { errors } = (await res.json()) as { errors: { path: string; message: string }[] };
  assert.equal(errors.length, 100);
  assert.deepEqual(errors.slice(0, 2).map((e) => e.path), ['definition.a[0].constructor', 'definition.a[1].constructor']);
  assert.equal(errors[0].message, 'the key "constructor" is not allowed');
});
