/**
 * pdf_ua through the API: sync and async create answer PDF/UA-1 files (pdfuaid in the XMP, a
 * structure tree); pdf_ua with pdf/a-1b, and a template that lacks what PDF/UA needs (alt on an
 * image, a title), are 400 VALIDATION_ERROR naming the field or template path, before any credit;
 * the template's pdfUa is the default and the request overrides it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { withPdfUa } from '../../src/schemas/pdf.ts';

const TEMPLATE = {
  metadata: { title: 'Receipt {{n}}', language: 'en' },
  content: [{ text: 'Receipt {{n}}', role: 'h1' }, { qrcode: 'https://example.com/{{n}}', alt: 'Link to receipt {{n}}' }, { text: 'Thank you.' }],
};

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

const credits = async (apiKey: string) => ((await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number }).credits;

function isUa(pdf: Buffer): boolean {
  const text = pdf.toString('latin1');
  return /<pdfuaid:part>1<\/pdfuaid:part>/.test(text) && /\/StructTreeRoot/.test(text);
}

test('sync create with pdf_ua answers a tagged PDF/UA-1 file, also with pdf/a-2b; without it no pdfuaid', async () => {
  const { teamId, apiKey } = await s.team(5);
  const id = await s.template(teamId, TEMPLATE);
  for (const extra of [{ pdf_ua: true }, { pdf_ua: true, pdf_variant: 'pdf/a-2b' }]) {
    const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { n: 7 }, export_type: 'binary', ...extra });
    assert.equal(res.status, 200, JSON.stringify(extra));
    assert.ok(isUa(Buffer.from(await res.arrayBuffer())), JSON.stringify(extra));
  }
  const plain = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { n: 7 }, export_type: 'binary' });
  const pdf = Buffer.from(await plain.arrayBuffer());
  assert.ok(!/pdfuaid/.test(pdf.toString('latin1')));
  assert.ok(/\/StructTreeRoot/.test(pdf.toString('latin1')), 'tagged by default');
});

test('an async job with pdf_ua produces a PDF/UA-1 file behind its URL', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { n: 8 }, pdf_ua: true });
  assert.equal(res.status, 202);
  const { job_id } = (await res.json()) as { job_id: string };
  const job = await waitFor('the job to finish', async () => {
    const j = (await (await s.api('GET', `/v1/pdf/jobs/${job_id}`, apiKey)).json()) as { status: string; result_url: string | null };
    return j.status === 'completed' || j.status === 'failed' ? j : undefined;
  }, 30_000, 100);
  assert.equal(job.status, 'completed');
  assert.ok(isUa(Buffer.from(await (await fetch(job.result_url!)).arrayBuffer())));
});

test('pdf_ua with pdf/a-1b, or a template without alt or title, is 400 naming the path; no credit taken', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  const a1b = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { n: 1 }, pdf_ua: true, pdf_variant: 'pdf/a-1b' });
  assert.equal(a1b.status, 400);
  const e1 = (await a1b.json()) as { code: string; errors: { path: string }[] };
  assert.equal(e1.code, 'VALIDATION_ERROR');
  assert.equal(e1.errors[0].path, 'pdf_ua');

  const noAlt = await s.template(teamId, { ...TEMPLATE, content: [{ text: 'x' }, { stack: [{ image: '{{logo}}' }] }] });
  for (const endpoint of ['/v1/pdf/create', '/v1/pdf/create-async']) {
    const res = await s.api('POST', endpoint, apiKey, { template_id: noAlt, data: {}, pdf_ua: true });
    assert.equal(res.status, 400, endpoint);
    const e = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
    assert.equal(e.code, 'VALIDATION_ERROR');
    assert.equal(e.errors[0].path, 'content[1].stack[0].alt');
    assert.match(e.errors[0].message, /alt/);
  }
  // The template's pdfUa is the default; pdf_ua false overrides it.
  const untitled = await s.template(teamId, { pdfUa: true, metadata: { language: 'en' }, content: [{ text: 'x' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: untitled, data: {}, export_type: 'binary' });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { errors: { path: string }[] }).errors[0].path, 'metadata.title');
  const off = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: untitled, data: {}, export_type: 'binary', pdf_ua: false });
  assert.equal(off.status, 200);
  assert.equal(await credits(apiKey), 2);
});

test('a large template (checked on a render thread): its pdfUa and the request\'s pdf_ua decide, faults are 400 with their path, the override renders', async () => {
  const { teamId, apiKey } = await s.team(5);
  // ~90 KB of definition: past the 64 KiB checked on the HTTP thread.
  const filler = Array.from({ length: 1500 }, (_, i) => ({ text: `Paragraph ${i} of the terms and conditions.` }));
  const big = (extra: object) => ({ metadata: { title: 'Terms', language: 'en' }, ...extra, content: [{ text: 'Terms', role: 'h1' }, ...filler] });
  const noAlt = await s.template(teamId, big({ pdfUa: true }));
  const withImage = (await s.api('PUT', `/v1/templates/${noAlt}`, apiKey, { definition: { ...big({ pdfUa: true }), content: [...big({}).content, { stack: [{ qrcode: 'x' }] }] } }));
  assert.equal(withImage.status, 200, await withImage.clone().text());
  const refused = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: noAlt, data: {}, export_type: 'binary' });
  assert.equal(refused.status, 400);
  assert.deepEqual(((await refused.json()) as { errors: { path: string }[] }).errors.map((e) => e.path), ['content[1501].stack[0].alt']);
  const a1b = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: noAlt, data: {}, export_type: 'binary', pdf_variant: 'pdf/a-1b' });
  assert.equal(((await a1b.json()) as { errors: { path: string }[] }).errors[0].path, 'pdf_ua');
  // pdf_ua false overrides the template's pdfUa: true (the key added after it wins).
  const off = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: noAlt, data: {}, export_type: 'binary', pdf_ua: false });
  assert.equal(off.status, 200);
  assert.ok(!/pdfuaid/.test(Buffer.from(await off.arrayBuffer()).toString('latin1')));
  // pdf_ua true over pdfUa: false.
  const ok = await s.template(teamId, big({ pdfUa: false }));
  const on = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: ok, data: {}, export_type: 'binary', pdf_ua: true });
  assert.equal(on.status, 200);
  assert.ok(isUa(Buffer.from(await on.arrayBuffer())));
  assert.equal(await credits(apiKey), 3);
});

test('withPdfUa adds the request\'s choice as the definition\'s last key, which JSON.parse keeps', () => {
  assert.equal(withPdfUa('{"content":[]}', undefined), '{"content":[]}');
  assert.deepEqual(JSON.parse(withPdfUa('{"pdfUa":true,"content":[]}', false)), { pdfUa: false, content: [] });
  assert.deepEqual(JSON.parse(withPdfUa('{ \n}\n', true)), { pdfUa: true });
  assert.deepEqual(JSON.parse(withPdfUa('{\n  "content": [{"text": "}"}]\n}\n', true)), { content: [{ text: '}' }], pdfUa: true });
});
