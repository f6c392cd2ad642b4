/**
 * Account API (spec §4.5; DESIGN §4) against a real server: the team and its balance, and the
 * credit ledger (grant, debit per render, refund after a failed render), newest first and paged.
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

interface Transaction {
  id: number;
  delta: number;
  reason: 'generation' | 'refund' | 'grant';
  job_id: string | null;
  balance_after: number;
  created_at: string;
}

interface TransactionPage {
  transactions: Transaction[];
  total: number;
  limit: number;
  offset: number;
}

async function getJson<T>(path: string, apiKey: string): Promise<T> {
  const res = await s.api('GET', path, apiKey);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as T;
}

async function render(apiKey: string, templateId: string): Promise<Response> {
  return s.api('POST', '/v1/pdf/create', apiKey, { template_id: templateId, data: { name: 'Ada' }, export_type: 'binary' });
}

test('GET /v1/account shows the team and its balance', async () => {
  const { teamId, apiKey } = await s.team(42, 'Acme Printing');
  const account = await getJson<Record<string, unknown>>('/v1/account', apiKey);
  assert.deepEqual(Object.keys(account).sort(), ['created_at', 'credits', 'name', 'team_id']);
  assert.equal(account.team_id, teamId);
  assert.equal(account.name, 'Acme Printing');
  assert.equal(account.credits, 42);
  assert.ok(!Number.isNaN(Date.parse(account.created_at as string)));

  // The balance follows renders.
  const id = await s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  const res = await render(apiKey, id);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-credits-remaining'), '41');
  await res.arrayBuffer();
  assert.equal((await getJson<{ credits: number }>('/v1/account', apiKey)).credits, 41);
});

test('a team without credits has an empty ledger', async () => {
  const { apiKey } = await s.team(0);
  assert.equal((await getJson<{ credits: number }>('/v1/account', apiKey)).credits, 0);
  assert.deepEqual(await getJson<TransactionPage>('/v1/account/transactions', apiKey), { transactions: [], total: 0, limit: 20, offset: 0 });
});

test('transactions: the grant, then -1 per render with balance_after falling, newest first', async () => {
  const { teamId, apiKey } = await s.team(5);
  let page = await getJson<TransactionPage>('/v1/account/transactions', apiKey);
  assert.equal(page.total, 1);
  assert.equal(page.limit, 20);
  assert.equal(page.offset, 0);
  const [grant] = page.transactions;
  assert.deepEqual(Object.keys(grant).sort(), ['balance_after', 'created_at', 'delta', 'id', 'job_id', 'reason']);
  assert.equal(grant.delta, 5);
  assert.equal(grant.reason, 'grant');
  assert.equal(grant.job_id, null);
  assert.equal(grant.balance_after, 5);
  assert.ok(!Number.isNaN(Date.parse(grant.created_at)));

  const id = await s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  for (let i = 0; i < 2; i++) {
    const res = await render(apiKey, id);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }

  page = await getJson<TransactionPage>('/v1/account/transactions', apiKey);
  assert.equal(page.total, 3);
  assert.deepEqual(
    page.transactions.map((t) => [t.reason, t.delta, t.balance_after]),
    [
      ['generation', -1, 3],
      ['generation', -1, 4],
      ['grant', 5, 5],
    ],
  );
  assert.deepEqual(page.transactions[2], grant);
  const ids = page.transactions.map((t) => t.id);
  assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
  for (const t of page.transactions) assert.equal(t.job_id, null, 'synchronous renders have no job');
  assert.equal((await getJson<{ credits: number }>('/v1/account', apiKey)).credits, page.transactions[0].balance_after);
});

test('a failed render shows the debit and then its refund as a separate +1 row', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, { content: [{ image: '{{logo}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { logo: 'data:image/png;base64,AAAA' }, export_type: 'binary' });
  assert.equal(res.status, 500);
  assert.equal(((await res.json()) as { code: string }).code, 'INTERNAL_ERROR');
  const page = await getJson<TransactionPage>('/v1/account/transactions', apiKey);
  assert.deepEqual(
    page.transactions.map((t) => [t.reason, t.delta, t.balance_after]),
    [
      ['refund', 1, 3],
      ['generation', -1, 2],
      ['grant', 3, 3],
    ],
  );
  assert.equal((await getJson<{ credits: number }>('/v1/account', apiKey)).credits, 3);
});

test('transactions page with limit and offset; bad values are 400 VALIDATION_ERROR', async () => {
  const { teamId, apiKey } = await s.team(10);
  const id = await s.template(teamId, { content: [{ text: 'x' }] });
  for (let i = 0; i < 4; i++) {
    const res = await render(apiKey, id);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const all = await getJson<TransactionPage>('/v1/account/transactions', apiKey);
  assert.equal(all.total, 5);
  assert.deepEqual(all.transactions.map((t) => t.balance_after), [6, 7, 8, 9, 10]);

  const p1 = await getJson<TransactionPage>('/v1/account/transactions?limit=2', apiKey);
  assert.equal(p1.limit, 2);
  assert.equal(p1.total, 5);
  assert.deepEqual(p1.transactions, all.transactions.slice(0, 2));
  const p2 = await getJson<TransactionPage>('/v1/account/transactions?limit=2&offset=2', apiKey);
  assert.equal(p2.offset, 2);
  assert.deepEqual(p2.transactions, all.transactions.slice(2, 4));
  const p3 = await getJson<TransactionPage>('/v1/account/transactions?limit=2&offset=4', apiKey);
  assert.deepEqual(p3.transactions, all.transactions.slice(4));
  assert.equal(p3.transactions[0].reason, 'grant');
  const past = await getJson<TransactionPage>('/v1/account/transactions?offset=100', apiKey);
  assert.deepEqual(past.transactions, []);
  assert.equal(past.total, 5);

  for (const [q, path] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1.5', 'offset'],
  ]) {
    const res = await s.api('GET', `/v1/account/transactions?${q}`, apiKey);
    assert.equal(res.status, 400, q);
    const body = (await res.json()) as { code: string; errors: { path: string }[] };
    assert.equal(body.code, 'VALIDATION_ERROR');
    assert.ok(body.errors.some((e) => e.path === path), `${q}: ${JSON.stringify(body.errors)}`);
  }
});

test('each team sees only its own account and ledger', async () => {
  const a = await s.team(7, 'A');
  const b = await s.team(9, 'B');
  const id = await s.template(a.teamId, { content: [{ text: 'x' }] });
  const res = await render(a.apiKey, id);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const accountB = await getJson<{ team_id: string; name: string; credits: number }>('/v1/account', b.apiKey);
  assert.equal(accountB.team_id, b.teamId);
  assert.equal(accountB.name, 'B');
  assert.equal(accountB.credits, 9);
  const ledgerB = await getJson<TransactionPage>('/v1/account/transactions', b.apiKey);
  assert.equal(ledgerB.total, 1);
  assert.deepEqual(ledgerB.transactions.map((t) => [t.reason, t.delta]), [['grant', 9]]);
});

test('the account routes need a valid key (401 UNAUTHORIZED)', async () => {
  for (const path of ['/v1/account', '/v1/account/transactions', '/v1/account/transactions?limit=5']) {
    for (const key of [null, 'not-a-key']) {
      const res = await s.api('GET', path, key);
      assert.equal(res.status, 401, `${path} ${key}`);
      const body = (await res.json()) as { code: string; detail: string };
      assert.equal(body.code, 'UNAUTHORIZED');
      assert.ok(body.detail);
    }
  }
});

test('GET /openapi.json documents the account routes', async () => {
  const spec = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  assert.ok(spec.paths['/v1/account']?.get?.responses['200']);
  assert.ok(spec.paths['/v1/account/transactions']?.get?.responses['200']);
  assert.ok(spec.paths['/v1/account/transactions'].get.responses['400']);
});
