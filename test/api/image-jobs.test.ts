/**
 * create-async with `output` "png" / "jpeg": the job record says what it makes, the result URL
 * serves the image of the page asked for; a page past the last one fails the job with
 * PAGE_OUT_OF_RANGE, refunded; PDF-only options are refused with image output.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { expectValidationError, startUrlServer } from '../helpers/api.ts';
import { balance, createJob, waitForJob } from '../helpers/jobs.ts';
import type { TestServer } from '../helpers/server.ts';

const TWO_PAGES = { page: { size: [300, 200], margin: 20 }, content: [{ text: 'One' }, { pageBreak: true }, { text: 'Two', fontSize: 50 }] };

let s: TestServer;
let team: { teamId: string; apiKey: string };
let tpl: string;
let imageTpl: string;

before(async () => {
  s = await startUrlServer();
  team = await s.team(50);
  tpl = await s.template(team.teamId, TWO_PAGES);
  imageTpl = await s.template(team.teamId, TWO_PAGES, 'image');
});
after(() => s.close());

test('output png: the job record says png, its URL serves the page as image/png at the scale', async () => {
  const { job_id } = await createJob(s, team.apiKey, { template_id: tpl, data: {}, output: 'png', page: 2, scale: 1.5, filename: 'two' });
  const job = (await waitForJob(s, team.apiKey, job_id)) as unknown as Record<string, unknown>;
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.output, 'png');
  assert.equal(job.result_filename, 'two.png');
  const res = await fetch(job.result_url as string);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  assert.deepEqual([png.width, png.height], [450, 300]);
});

test('output jpeg of an image template; a PDF job\'s record says pdf', async () => {
  const { job_id } = await createJob(s, team.apiKey, { template_id: imageTpl, data: {}, output: 'jpeg' });
  const job = (await waitForJob(s, team.apiKey, job_id)) as unknown as Record<string, unknown>;
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.output, 'jpeg');
  assert.equal(job.result_filename, 'document.jpg');
  const bytes = Buffer.from(await (await fetch(job.result_url as string)).arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const pdf = await createJob(s, team.apiKey, { template_id: tpl, data: {} });
  const pdfJob = (await waitForJob(s, team.apiKey, pdf.job_id)) as unknown as Record<string, unknown>;
  assert.equal(pdfJob.output, 'pdf');
  assert.equal(pdfJob.result_filename, 'document.pdf');
});

test('a page past the last one fails the job with PAGE_OUT_OF_RANGE, refunded', async () => {
  const before = await balance(s, team.teamId);
  const { job_id } = await createJob(s, team.apiKey, { template_id: tpl, data: {}, output: 'png', page: 5 });
  const job = await waitForJob(s, team.apiKey, job_id);
  assert.equal(job.status, 'failed');
  assert.equal(job.error_code, 'PAGE_OUT_OF_RANGE');
  assert.match(job.error_message ?? '', /2 pages/);
  assert.equal(await balance(s, team.teamId), before);
});

test('scale and page need image output; pdf_variant is refused with it; an image template still needs image output', async () => {
  const post = (body: Record<string, unknown>) => s.api('POST', '/v1/pdf/create-async', team.apiKey, { template_id: tpl, data: {}, ...body });
  await expectValidationError(await post({ scale: 2 }), 'scale');
  await expectValidationError(await post({ page: 2 }), 'page');
  await expectValidationError(await post({ output: 'png', pdf_variant: 'pdf/a-2b' }), 'pdf_variant');
  await expectValidationError(await post({ output: 'gif' }), 'output');
  const refused = await s.api('POST', '/v1/pdf/create-async', team.apiKey, { template_id: imageTpl, data: {} });
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).code, 'BAD_REQUEST');
});
