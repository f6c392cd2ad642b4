/** pdf_variant through the API (spec §2.1, §2.2): sync and async output pass the PDF/A checker. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const CHECKER = new URL('../../../shared/tools/pdfa-check/pdfa-check', import.meta.url).pathname;
const TEMPLATE = { metadata: { title: 'Ärger & <Co>' }, content: [{ text: 'Grüße, {{name}}' }, { text: [{ text: 'site', link: 'https://example.com' }] }] };

function pdfaCheck(pdf: Buffer): { compliant: boolean; part: number; failures: unknown[] } {
  const dir = mkdtempSync(join(tmpdir(), 'platen-api-pdfa-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), pdf);
    const run = spawnSync(CHECKER, [join(dir, 'f.pdf'), '--json'], { encoding: 'utf8' });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    return JSON.parse(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('sync create with pdf_variant "pdf/a-2b" answers a conformant PDF/A-2b', async () => {
  const { teamId, apiKey } = s.team(3);
  const id = s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Zoë' }, export_type: 'binary', pdf_variant: 'pdf/a-2b' });
  assert.equal(res.status, 200);
  const result = pdfaCheck(Buffer.from(await res.arrayBuffer()));
  assert.equal(result.part, 2);
  assert.deepEqual(result.failures, []);
});

test('an async job with pdf_variant "pdf/a-1b" produces a conformant PDF/A-1b behind its URL', async () => {
  const { teamId, apiKey } = s.team(3);
  const id = s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { name: 'Zoë' }, pdf_variant: 'pdf/a-1b' });
  assert.equal(res.status, 202);
  const { job_id } = (await res.json()) as { job_id: string };
  const deadline = Date.now() + 20_000;
  let job: { status: string; result_url: string | null } = { status: 'pending', result_url: null };
  while (Date.now() < deadline && (job.status === 'pending' || job.status === 'processing')) {
    await new Promise((r) => setTimeout(r, 100));
    job = (await (await s.api('GET', `/v1/pdf/jobs/${job_id}`, apiKey)).json()) as typeof job;
  }
  assert.equal(job.status, 'completed');
  const pdf = Buffer.from(await (await fetch(job.result_url!)).arrayBuffer());
  const result = pdfaCheck(pdf);
  assert.equal(result.part, 1);
  assert.deepEqual(result.failures, []);
});

test('a PDF/A conflict fails the render and refunds the credit', async () => {
  const { teamId, apiKey } = s.team(2);
  const id = s.template(teamId, { content: [{ text: 'kanji 漢' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary', pdf_variant: 'pdf/a-3b' });
  assert.equal(res.status, 500);
  const body = (await res.json()) as { code: string; render_error: { code: string } };
  assert.equal(body.code, 'INTERNAL_ERROR');
  assert.equal(body.render_error.code, 'PDFA_CONFLICT');
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 2);
});
