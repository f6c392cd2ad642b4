/**
 * Hostile templates and data against a real server with real render threads: each case answers
 * with its documented status and code, moves no credit (or refunds it), and leaves the server
 * answering another team's invoice; the process's memory stays within a bound through them all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/api.ts';
import { pdfToText } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const invoice = {
  definition: JSON.parse(readFileSync(join(ROOT, 'examples/invoice/template.json'), 'utf8')),
  data: JSON.parse(readFileSync(join(ROOT, 'examples/invoice/data.json'), 'utf8')),
};

let s: TestServer;
let rssBefore = 0;
before(async () => {
  s = await startTestServer();
  rssBefore = process.memoryUsage().rss;
});
after(async () => {
  await s.close();
});

async function credits(apiKey: string): Promise<number> {
  return ((await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number }).credits;
}

/** Another team's invoice still renders: the server is up and its threads work. */
async function invoiceStillRenders(): Promise<void> {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, invoice.definition);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: invoice.data, export_type: 'binary' });
  assert.equal(res.status, 200);
  assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
}

/** POST /v1/templates with `definition`: the 400 and the path of its first fault. */
async function refusedAtSave(definition: unknown): Promise<string> {
  const { apiKey } = await s.team(1);
  const res = await s.api('POST', '/v1/templates', apiKey, { name: 'hostile', type: 'pdf', definition });
  assert.equal(res.status, 400, 'refused when saved');
  const body = (await res.json()) as { code: string; errors: { path: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  return body.errors[0].path;
}

test('a colSpan of a billion is refused when the template is saved, naming the cell', async () => {
  assert.equal(await refusedAtSave({ content: [{ table: { rows: [[{ text: 'x', colSpan: 1_000_000_000 }]] } }] }), 'definition.content[0].table.rows[0][0].colSpan');
  await invoiceStillRenders();
});

test('sizes of 1e308 are refused when saved, naming the property', async () => {
  assert.equal(await refusedAtSave({ content: [{ text: 'x', fontSize: 1e308 }] }), 'definition.content[0].fontSize');
  assert.equal(await refusedAtSave({ page: { size: [1e308, 1e308] }, content: [] }), 'definition.page.size[0]');
  assert.equal(await refusedAtSave({ content: [{ spacer: 1e308 }] }), 'definition.content[0].spacer');
});

test('a template nested 100 deep is refused when saved', async () => {
  let node: unknown = { text: 'x' };
  for (let i = 0; i < 100; i++) node = { stack: [node] };
  assert.match(await refusedAtSave({ content: [node] }), /^definition\.content\[0\](\.stack\[0\])+$/);
});

test('a page bomb (100,000 page breaks from 1 MB of data) fails early with LIMIT_EXCEEDED and is refunded', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, { content: [{ each: 'items', as: 'i', content: [{ text: '{{i}}' }, { pageBreak: true }] }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { items: Array.from({ length: 100_000 }, (_, i) => i) } });
  assert.equal(res.status, 500);
  const body = (await res.json()) as { code: string; render_error: { code: string; message: string } };
  assert.equal(body.code, 'INTERNAL_ERROR');
  assert.equal(body.render_error.code, 'LIMIT_EXCEEDED');
  assert.match(body.render_error.message, /pages/);
  assert.equal(await credits(apiKey), 2, 'refunded');
  await invoiceStillRenders();
});

test('a 200,000-character word in one placeholder renders, every character on its pages', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: '{{t}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { t: 'w'.repeat(200_000) }, export_type: 'binary' });
  assert.equal(res.status, 200);
  const count = pdfToText(Buffer.from(await res.arrayBuffer())).match(/w/g)?.length ?? 0;
  assert.equal(count, 200_000);
  await invoiceStillRenders();
});

test('data nested 10,000 deep is 400 naming data, no credit moved', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: '{{a}}' }] });
  const body = `{"template_id": "${id}", "data": {"a": ${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
  const res = await s.api('POST', '/v1/pdf/create', apiKey, body);
  assert.equal(res.status, 400);
  const answer = (await res.json()) as { code: string; errors: { path: string }[] };
  assert.equal(answer.code, 'VALIDATION_ERROR');
  assert.match(answer.errors[0].path, /^data/);
  assert.equal(await credits(apiKey), 1);
});

test('memory stays bounded through the hostile cases', (t) => {
  const grownMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
  t.diagnostic(`RSS grew by ${grownMb.toFixed(0)} MB`);
  assert.ok(grownMb < 600, `RSS grew by ${grownMb.toFixed(0)} MB`);
});
