/** pdf_variant through the API: sync and async output meet PDF/A-2b and PDF/A-1b. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPdfa } from '../helpers/pdfa-structure.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const TEMPLATE = { metadata: { title: 'Ärger & <Co>' }, content: [{ text: 'Grüße, {{name}}' }, { text: [{ text: 'site', link: 'https://example.com' }] }] };

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('sync create with pdf_variant "pdf/a-2b" answers a conformant PDF/A-2b', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Zoë' }, export_type: 'binary', pdf_variant: 'pdf/a-2b' });
  assert.equal(res.status, 200);
  const result = await checkPdfa(Buffer.from(await res.arrayBuffer()), 2);
  assert.equal(result.part, 2);
  assert.deepEqual(result.faults, []);
});

test('an async job with pdf_variant "pdf/a-1b" produces a conformant PDF/A-1b behind its URL', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { name: 'Zoë' }, pdf_variant: 'pdf/a-1b' });
  assert.equal(res.status, 202);
  const { job_id } = (await res.json()) as { job_id: string };
  const job = await waitFor('the job to finish', async () => {
    const j = (await (await s.api('GET', `/v1/pdf/jobs/${job_id}`, apiKey)).json()) as { status: string; result_url: string | null };
    return j.status === 'completed' || j.status === 'failed' ? j : undefined;
  }, 30_000, 100);
  assert.equal(job.status, 'completed');
  const pdf = Buffer.from(await (await fetch(job.result_url!)).arrayBuffer());
  const result = await checkPdfa(pdf, 1);
  assert.equal(result.part, 1);
  assert.deepEqual(result.faults, []);
});

test('a PDF/A conflict fails the render and refunds the credit', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, { content: [{ text: 'kanji 漢' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary', pdf_variant: 'pdf/a-3b' });
  assert.equal(res.status, 500);
  const body = (await res.json()) as { code: string; render_error: { code: string } };
  assert.equal(body.code, 'INTERNAL_ERROR');
  assert.equal(body.render_error.code, 'PDFA_CONFLICT');
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 2);
});
