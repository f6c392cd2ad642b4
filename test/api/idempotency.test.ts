/**
 * Idempotency-Key on create-async through the real HTTP API (SQLite, and PostgreSQL under
 * npm run test:pg): a request sent again gets the first job and takes no second credit, also
 * when the copies arrive at once; the same key with another body is refused; keys are per team;
 * synchronous creates refuse a key rather than ignore it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { balance, getJob, jobCount, ledger, UUID_RE, waitForJob } from '../helpers/jobs.ts';
import { expectError, expectValidationError } from '../helpers/api.ts';
import { readPdf } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_RATE_LIMIT: '100000' });
});
after(async () => {
  await s?.close();
});

const createAsync = (apiKey: string, body: unknown, key?: string) =>
  s.api('POST', '/v1/pdf/create-async', apiKey, body, key === undefined ? {} : { 'Idempotency-Key': key });

test('a request sent again with its Idempotency-Key gets the same job, marked replayed, and pays once', async () => {
  const { teamId, apiKey } = await s.team(5);
  const templateId = await s.template(teamId, { content: [{ text: 'Receipt for {{name}}' }] });
  const body = { template_id: templateId, data: { name: 'Ada Lovelace' } };
  const first = await createAsync(apiKey, body, 'order-1001');
  assert.equal(first.status, 202);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const created = (await first.json()) as { job_id: string; status: string; credits_remaining: number };
  assert.match(created.job_id, UUID_RE);
  assert.equal(created.credits_remaining, 4);

  const again = await createAsync(apiKey, body, 'order-1001');
  assert.equal(again.status, 202);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const replayed = (await again.json()) as { job_id: string; status: string; credits_remaining: number };
  assert.equal(replayed.job_id, created.job_id);
  assert.equal(replayed.credits_remaining, 4, 'no second credit');

  // After the job is done, a late retry still gets it, with its status now.
  const done = await waitForJob(s, apiKey, created.job_id);
  assert.equal(done.status, 'completed');
  const late = (await (await createAsync(apiKey, body, 'order-1001')).json()) as { job_id: string; status: string };
  assert.deepEqual([late.job_id, late.status], [created.job_id, 'completed']);
  const pdf = await readPdf(new Uint8Array(await (await fetch(done.result_url!)).arrayBuffer()));
  assert.match(pdf.pages[0]!.text, /Receipt for Ada Lovelace/);

  assert.equal(await jobCount(s, teamId), 1);
  assert.equal(await balance(s, teamId), 4);
  assert.equal((await ledger(s, teamId)).filter((r) => r.reason === 'generation').length, 1);
});

test('copies of one request sent at once make one job and take one credit', async () => {
  const { teamId, apiKey } = await s.team(10);
  const templateId = await s.template(teamId, { content: [{ text: 'Statement {{n}}' }] });
  const body = { template_id: templateId, data: { n: 7 } };
  const answers = await Promise.all(Array.from({ length: 6 }, () => createAsync(apiKey, body, 'statement-7')));
  for (const a of answers) assert.equal(a.status, 202);
  const ids = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as { job_id: string }).job_id)));
  assert.equal(ids.size, 1, `one job for the six copies, got ${[...ids].join(', ')}`);
  assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 5);
  assert.equal(await jobCount(s, teamId), 1);
  assert.equal(await balance(s, teamId), 9);
  await waitForJob(s, apiKey, [...ids][0]!);
});

test('copies sent at once with the last credit: one job, and every copy gets it (none is told 402)', async () => {
  for (let round = 0; round < 3; round++) {
    const { teamId, apiKey } = await s.team(1);
    const templateId = await s.template(teamId, { content: [{ text: 'Only one' }] });
    const body = { template_id: templateId, data: {} };
    const answers = await Promise.all(Array.from({ length: 6 }, () => createAsync(apiKey, body, 'the-last-credit')));
    const seen = await Promise.all(answers.map(async (a) => `${a.status} ${((await a.json()) as { job_id?: string; code?: string }).job_id ?? ''}`));
    assert.equal(new Set(seen).size, 1, `every copy answered the same: ${seen.join(', ')}`);
    assert.match(seen[0]!, /^202 /);
    assert.equal(await jobCount(s, teamId), 1);
    assert.equal(await balance(s, teamId), 0);
  }
});

test('the same key with a different body is refused with 422 and changes nothing', async () => {
  const { teamId, apiKey } = await s.team(5);
  const templateId = await s.template(teamId, { content: [{ text: 'Invoice {{n}}' }] });
  const first = (await (await createAsync(apiKey, { template_id: templateId, data: { n: 1 } }, 'inv-1')).json()) as { job_id: string };
  const other = await createAsync(apiKey, { template_id: templateId, data: { n: 2 } }, 'inv-1');
  const err = await expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
  assert.match(err.detail, /Idempotency-Key "inv-1" was first sent with a different request body/);
  assert.equal((err as unknown as { job_id: string }).job_id, first.job_id);
  assert.equal(await jobCount(s, teamId), 1);
  assert.equal(await balance(s, teamId), 4);
  // A new key is a new request.
  const fresh = await createAsync(apiKey, { template_id: templateId, data: { n: 2 } }, 'inv-2');
  assert.equal(fresh.status, 202);
  assert.equal(await jobCount(s, teamId), 2);
});

test("keys are per team: another team's use of a key is its own request", async () => {
  const a = await s.team(3);
  const b = await s.team(3);
  const ta = await s.template(a.teamId, { content: [{ text: 'A' }] });
  const tb = await s.template(b.teamId, { content: [{ text: 'B' }] });
  const ja = (await (await createAsync(a.apiKey, { template_id: ta, data: {} }, 'shared-key')).json()) as { job_id: string };
  const rb = await createAsync(b.apiKey, { template_id: tb, data: {} }, 'shared-key');
  assert.equal(rb.status, 202);
  assert.equal(rb.headers.get('idempotent-replayed'), null);
  const jb = (await rb.json()) as { job_id: string };
  assert.notEqual(jb.job_id, ja.job_id);
  // Neither can see the other's job through the key.
  await expectError(await s.api('GET', `/v1/pdf/jobs/${ja.job_id}`, b.apiKey), 404, 'JOB_NOT_FOUND');
  assert.equal(await balance(s, a.teamId), 2);
  assert.equal(await balance(s, b.teamId), 2);
});

test('a replay comes before the other checks: it answers with the job even when the balance is 0 now', async () => {
  const { teamId, apiKey } = await s.team(1);
  const templateId = await s.template(teamId, { content: [{ text: 'Last one' }] });
  const body = { template_id: templateId, data: {} };
  const first = (await (await createAsync(apiKey, body, 'last')).json()) as { job_id: string; credits_remaining: number };
  assert.equal(first.credits_remaining, 0);
  const again = await createAsync(apiKey, body, 'last');
  assert.equal(again.status, 202);
  assert.equal(((await again.json()) as { job_id: string }).job_id, first.job_id);
  // Without the key, the same body is a new request, and there is no credit for it.
  await expectError(await createAsync(apiKey, body), 402, 'INSUFFICIENT_CREDITS');
  await getJob(s, apiKey, first.job_id);
});

test('a malformed key is refused with 400 naming the header, before any credit', async () => {
  const { teamId, apiKey } = await s.team(2);
  const templateId = await s.template(teamId, { content: [{ text: 'x' }] });
  for (const key of ['', 'x'.repeat(256), 'has space', 'caf\u00e9']) {
    const res = await s.fetch('/v1/pdf/create-async', {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'Idempotency-Key': Buffer.from(key, 'utf8').toString('latin1') },
      body: JSON.stringify({ template_id: templateId, data: {} }),
    });
    const err = await expectValidationError(res, 'idempotency-key');
    assert.match(err.errors!.find((e) => e.path === 'idempotency-key')!.message, /1 to 255 visible ASCII characters/);
  }
  assert.equal(await balance(s, teamId), 2);
  assert.equal(await jobCount(s, teamId), 0);
});

test('synchronous creates refuse an Idempotency-Key (400) instead of rendering and charging on every retry', async () => {
  const { teamId, apiKey } = await s.team(3);
  const templateId = await s.template(teamId, { content: [{ text: 'Now' }] });
  for (const path of ['/v1/pdf/create', '/v1/image/create']) {
    const res = await s.api('POST', path, apiKey, { template_id: templateId, data: {} }, { 'Idempotency-Key': 'sync-1' });
    const err = await expectValidationError(res, 'idempotency-key');
    assert.match(err.errors![0]!.message, /create-async only/);
  }
  assert.equal(await balance(s, teamId), 3);
});
