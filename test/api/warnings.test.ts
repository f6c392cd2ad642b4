/**
 * Render warnings reach the caller: a JSON answer of create lists them as {code, message, path},
 * a binary answer counts them in X-Platen-Warnings; a template with "strict": true turns missing
 * data into 400 VALIDATION_ERROR before any credit moves.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const LETTER = { content: [{ text: 'Dear {{customer.name}},' }, { text: 'VAT ID {{customer.vat_id}}' }] };

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('a URL answer lists a missing data path as DATA_MISSING with the placeholder path', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, LETTER);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { customer: { name: 'Ada' } } });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { url: string; warnings: { code: string; message: string; path: string }[] };
  assert.equal(body.warnings.length, 1, JSON.stringify(body.warnings));
  assert.equal(body.warnings[0].code, 'DATA_MISSING');
  assert.match(body.warnings[0].message, /customer\.vat_id/);
  assert.match(body.warnings[0].path, /^content\[1\]/);
  const clean = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { customer: { name: 'Ada', vat_id: 'ATU1' } } });
  assert.deepEqual(((await clean.json()) as { warnings: unknown[] }).warnings, []);
});

test('a binary answer counts its warnings in X-Platen-Warnings', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, LETTER);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-platen-warnings'), '2');
  await res.arrayBuffer();
});

test('"strict": true: missing data is 400 VALIDATION_ERROR naming data paths, and no credit moves', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { strict: true, ...LETTER });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { customer: { name: 'Ada' } } });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; errors: { path: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.deepEqual(body.errors.map((e) => e.path), ['data.customer.vat_id']);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1);
});

test('a completed job records its warnings; the job list carries them too', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, LETTER);
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { customer: { name: 'Ada' } } });
  assert.equal(res.status, 202);
  const { job_id } = (await res.json()) as { job_id: string };
  const job = await waitFor('the job to finish', async () => {
    const j = (await (await s.api('GET', `/v1/pdf/jobs/${job_id}`, apiKey)).json()) as { status: string; warnings: { code: string; path: string }[] };
    return j.status === 'completed' || j.status === 'failed' ? j : undefined;
  });
  assert.equal(job.status, 'completed');
  assert.deepEqual(job.warnings.map((w) => w.code), ['DATA_MISSING']);
  const list = (await (await s.api('GET', '/v1/pdf/jobs', apiKey)).json()) as { jobs: { id: string; warnings: unknown[] }[] };
  assert.deepEqual(list.jobs.find((j) => j.id === job_id)?.warnings, job.warnings);
});
