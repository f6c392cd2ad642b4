/**
 * Data of the wrong shape for a template is the caller's fault: 400 VALIDATION_ERROR naming the
 * data path, before any credit moves (create and create-async alike); the ledger stays untouched.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ORDERS = { content: [{ each: 'orders', as: 'o', content: [{ text: '{{o.number}}' }, { each: 'o.lines', as: 'l', content: [{ text: '{{l.name}}' }] }] }] };

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

async function ledgerRows(apiKey: string): Promise<number> {
  const res = await s.api('GET', '/v1/account/transactions', apiKey);
  return ((await res.json()) as { total: number }).total;
}

for (const path of ['/v1/pdf/create', '/v1/pdf/create-async']) {
  test(`${path}: an each over a string is 400 naming data.<path>, and no credit moves`, async () => {
    const { teamId, apiKey } = await s.team(3);
    const id = await s.template(teamId, ORDERS);
    const rowsBefore = await ledgerRows(apiKey);
    const res = await s.api('POST', path, apiKey, { template_id: id, data: { orders: [{ number: 'A-1', lines: [] }, { number: 'A-2', lines: 'not a list' }] } });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.deepEqual(body.errors.map((e) => e.path), ['data.orders[1].lines']);
    const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
    assert.equal(account.credits, 3);
    assert.equal(await ledgerRows(apiKey), rowsBefore, 'no debit and no refund row');
  });
}

test('an image source that is an object in the data is 400 naming data.<path> and the image, and no credit moves', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: 'x' }, { image: '{{logo}}', width: 40 }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { logo: { url: 'https://cdn.example.com/logo.png' } } });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.deepEqual(body.errors.map((e) => e.path), ['data.logo']);
  assert.match(body.errors[0].message, /image source at content\[1\]\.image .*got an object/);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1);
});

test('data nested deeper than the limit is 400 naming data, before any credit moves', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: '{{a}}' }] });
  let deep: unknown = 'leaf';
  for (let i = 0; i < 500; i++) deep = { d: deep };
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { a: 'x', deep } });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; errors: { path: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.ok(body.errors[0].path.startsWith('data'), body.errors[0].path);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1);
});

test('data of the right shape still renders and costs one credit', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, ORDERS);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, export_type: 'binary', data: { orders: [{ number: 'A-1', lines: [{ name: 'pen' }] }] } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-credits-remaining'), '1');
});
