/**
 * Previews, the public JSON Schema and the studio's files, on a real server: a preview takes no
 * credit, stores no file, carries PREVIEW on every page, validates like POST /v1/templates, and has
 * its own rate limit (which the API's does not count).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readPdf } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
// @ts-expect-error: a JavaScript build script without types
import { buildStudio, studioIsStale } from '../../scripts/build-studio.mjs';

const root = new URL('../../', import.meta.url);
const invoice = JSON.parse(readFileSync(new URL('examples/invoice/template.json', root), 'utf8')) as Record<string, unknown>;
const invoiceData = JSON.parse(readFileSync(new URL('examples/invoice/data.json', root), 'utf8')) as Record<string, unknown>;

let s: TestServer;
before(async () => {
  if (studioIsStale()) await buildStudio();
  s = await startTestServer({ PLATEN_PREVIEW_RATE_LIMIT: '1000' });
});
after(async () => {
  await s.close();
});

async function credits(apiKey: string): Promise<number> {
  const res = await s.api('GET', '/v1/account', apiKey);
  return ((await res.json()) as { credits: number }).credits;
}

function storedFiles(): number {
  const dir = join(s.dataDir, 'files');
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).length : 0;
}

test('a preview of a definition: the PDF with PREVIEW on every page, no credit taken, no file stored', async () => {
  const { apiKey } = await s.team(3);
  const filesBefore = storedFiles();
  const definition = { content: [{ text: 'Hello {{name}}' }, { pageBreak: true }, { text: 'Page two' }] };
  const res = await s.api('POST', '/v1/templates/preview', apiKey, { definition, data: { name: 'Ada' } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.equal(res.headers.get('x-platen-pages'), '2');
  assert.equal(res.headers.get('x-platen-warnings'), '0');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.headers.get('server-timing') ?? '', /^render;dur=\d+(\.\d+)?$/);
  const pdf = await readPdf(Buffer.from(await res.arrayBuffer()));
  assert.equal(pdf.pages.length, 2);
  assert.ok(pdf.pages[0].text.includes('Hello Ada'));
  for (const page of pdf.pages) assert.ok(page.runs.some((r) => r.str.includes('PREVIEW')), page.text);
  assert.equal(await credits(apiKey), 3);
  assert.equal(storedFiles(), filesBefore);
  const ledger = (await (await s.api('GET', '/v1/account/transactions', apiKey)).json()) as { total: number };
  const fresh = await s.team(3);
  const freshLedger = (await (await s.api('GET', '/v1/account/transactions', fresh.apiKey)).json()) as { total: number };
  assert.equal(ledger.total, freshLedger.total, 'a preview adds no transaction');
});

test('a preview of a stored template: the draft, or a version; export_type json lists pages, warnings and fields', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, invoice);
  assert.equal((await s.api('POST', `/v1/templates/${id}/versions`, apiKey, { tag: 'first' })).status, 201);
  const edited = { ...invoice, content: [{ text: 'Edited draft for {{buyer.name}}' }] };
  assert.equal((await s.api('PUT', `/v1/templates/${id}`, apiKey, { definition: edited })).status, 200);

  const draft = await s.api('POST', '/v1/templates/preview', apiKey, { template_id: id, data: invoiceData, export_type: 'json' });
  assert.equal(draft.status, 200, await draft.clone().text());
  assert.match(draft.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await draft.json()) as { pdf: string; pages: number; warnings: string[]; fields: { name: string; type: string }[]; render_ms: number };
  assert.equal(body.pages, 1);
  assert.deepEqual(body.warnings, []);
  // The draft's fields: its content reads buyer.name, and no longer the items of the first version.
  assert.ok(body.fields.some((f) => f.name === 'buyer.name' && f.type === 'string'), JSON.stringify(body.fields));
  assert.ok(!body.fields.some((f) => f.name.startsWith('items')), JSON.stringify(body.fields));
  assert.ok(body.render_ms > 0);
  const draftPdf = await readPdf(Buffer.from(body.pdf, 'base64'));
  assert.ok(draftPdf.pages[0].text.includes('Edited draft for'), draftPdf.pages[0].text);

  for (const version of ['1', 'first']) {
    const res = await s.api('POST', '/v1/templates/preview', apiKey, { template_id: id, version, data: invoiceData });
    assert.equal(res.status, 200);
    const text = (await readPdf(Buffer.from(await res.arrayBuffer()))).pages[0].text;
    assert.ok(text.includes('INVOICE') && text.includes('PREVIEW'), text);
  }
  assert.equal(await credits(apiKey), 1);
  const missing = await s.api('POST', '/v1/templates/preview', apiKey, { template_id: id, version: '9' });
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { code: string }).code, 'TEMPLATE_VERSION_NOT_FOUND');
});

test('a faulty definition answers 400 exactly as POST /v1/templates does', async () => {
  const { apiKey } = await s.team(1);
  const faulty = [
    { content: [{ text: 'a', colr: 'red' }] },
    { content: [{ table: { rows: [['a', 5]] } }, { text: 'x', fontSize: -2 }] },
    { page: { size: 'B7' }, content: [{ text: 'Hi {{name' }] },
    { content: [{ text: 'a', fontFamily: 'Comic Sans' }] },
    { content: 'none' },
  ];
  for (const definition of faulty) {
    const preview = await s.api('POST', '/v1/templates/preview', apiKey, { definition, data: {} });
    const save = await s.api('POST', '/v1/templates', apiKey, { name: 't', type: 'pdf', definition });
    assert.equal(preview.status, 400);
    assert.equal(save.status, 400);
    const p = (await preview.json()) as { code: string; errors: { path: string }[] };
    assert.deepEqual(p, await save.json());
    assert.equal(p.code, 'VALIDATION_ERROR');
    assert.ok(p.errors.every((e) => e.path.startsWith('definition')), JSON.stringify(p.errors));
  }
  const first = (await (await s.api('POST', '/v1/templates/preview', apiKey, { definition: faulty[0] })).json()) as { errors: { path: string }[] };
  assert.equal(first.errors[0].path, 'definition.content[0].colr');
});

test('request faults name their field: definition or template_id, version, format, page and scale', async () => {
  const { apiKey } = await s.team(1);
  const cases: [unknown, string][] = [
    [{ data: {} }, 'definition'],
    [{ definition: { content: [] }, template_id: 'Xy12Ab34Cd56' }, 'template_id'],
    [{ definition: { content: [] }, version: '1' }, 'version'],
    [{ definition: { content: [] }, page: 2 }, 'page'],
    [{ definition: { content: [] }, scale: 2 }, 'scale'],
    [{ definition: { content: [] }, format: 'png', scale: 20 }, 'scale'],
    [{ definition: { content: [] }, format: 'png', page: 0 }, 'page'],
    [{ definition: { content: [] }, format: 'svg' }, 'format'],
    [{ definition: { content: [] }, data: [] }, 'data'],
    [{ definition: { content: [] }, extra: 1 }, 'extra'],
  ];
  for (const [body, path] of cases) {
    const res = await s.api('POST', '/v1/templates/preview', apiKey, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const json = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
    assert.equal(json.code, 'VALIDATION_ERROR');
    assert.ok(json.errors.some((e) => e.path === path), `${JSON.stringify(body)}: ${JSON.stringify(json.errors)}`);
  }
  const page = (await (await s.api('POST', '/v1/templates/preview', apiKey, { definition: { content: [] }, page: 2 })).json()) as { errors: { message: string }[] };
  assert.match(page.errors[0].message, /"format": "png"/);
});

test('data of the wrong shape for the template answers 400 with data paths, as POST /v1/pdf/create', async () => {
  const { teamId, apiKey } = await s.team(1);
  const definition = { content: [{ each: 'items', content: [{ text: '{{item}}' }] }] };
  const res = await s.api('POST', '/v1/templates/preview', apiKey, { definition, data: { items: 'not a list' } });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; errors: { path: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.deepEqual(body.errors.map((e) => e.path), ['data.items']);
  const id = await s.template(teamId, definition);
  const create = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { items: 'not a list' } });
  const stored = await s.api('POST', '/v1/templates/preview', apiKey, { template_id: id, data: { items: 'not a list' } });
  assert.deepEqual(await stored.json(), await create.json());
  assert.equal(await credits(apiKey), 1);
});

test('templates of another team, image templates, unknown ids and failed renders', async () => {
  const a = await s.team(1);
  const b = await s.team(1);
  const theirs = await s.template(b.teamId, { content: [{ text: 'secret' }] });
  assert.equal((await s.api('POST', '/v1/templates/preview', a.apiKey, { template_id: theirs })).status, 403);
  assert.equal((await s.api('POST', '/v1/templates/preview', a.apiKey, { template_id: 'AAAAAAAAAAAA' })).status, 404);
  const image = await s.template(a.teamId, { content: [{ text: 'banner' }] }, 'image');
  const imageRes = await s.api('POST', '/v1/templates/preview', a.apiKey, { template_id: image });
  assert.equal(imageRes.status, 400);
  const imageBody = (await imageRes.json()) as { code: string; detail: string };
  assert.equal(imageBody.code, 'BAD_REQUEST');
  assert.match(imageBody.detail, /"format": "png"/);
  const failed = await s.api('POST', '/v1/templates/preview', a.apiKey, { definition: { content: [{ text: 'x' }, { barcode: '4006381333932', format: 'ean13' }] } });
  assert.equal(failed.status, 500);
  const body = (await failed.json()) as { code: string; render_error: { code: string; path: string | null; message: string } };
  assert.equal(body.code, 'INTERNAL_ERROR');
  assert.equal(body.render_error.code, 'BARCODE_INVALID');
  assert.equal(body.render_error.path, 'content[1].barcode');
  assert.equal(await credits(a.apiKey), 1);
  assert.equal((await s.api('POST', '/v1/templates/preview', null, { definition: { content: [] } })).status, 401);
});

test('previews have their own rate limit, and do not use up the API\'s', async () => {
  const limited = await startTestServer({ PLATEN_PREVIEW_RATE_LIMIT: '3', PLATEN_RATE_LIMIT: '2' });
  try {
    const { apiKey } = await limited.team(1);
    const preview = () => limited.api('POST', '/v1/templates/preview', apiKey, { definition: { content: [{ text: 'x' }] } });
    for (let i = 0; i < 3; i++) {
      const res = await preview();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), '3');
      assert.equal(res.headers.get('ratelimit-remaining'), String(2 - i));
    }
    const refused = await preview();
    assert.equal(refused.status, 429);
    const refusal = (await refused.json()) as { code: string; detail: string };
    assert.equal(refusal.code, 'RATE_LIMIT_EXCEEDED');
    assert.match(refusal.detail, /^more than 3 previews \(PLATEN_PREVIEW_RATE_LIMIT\) in a minute with this API key/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // The API's own limit (2 a minute) is untouched by the four previews.
    for (let i = 0; i < 2; i++) {
      const res = await limited.api('GET', '/v1/templates', apiKey);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), '2');
    }
    assert.equal((await limited.api('GET', '/v1/templates', apiKey)).status, 429);
  } finally {
    await limited.close();
  }
});

test('GET /v1/schemas/template.json needs no key, is the checked-in schema, and supports If-None-Match and any origin', async () => {
  const res = await s.fetch('/v1/schemas/template.json');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/schema+json; charset=utf-8');
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(await res.text(), readFileSync(new URL('schemas/template.schema.json', root), 'utf8'));
  const again = await s.fetch('/v1/schemas/template.json', { headers: { 'if-none-match': res.headers.get('etag')! } });
  assert.equal(again.status, 304);
  assert.equal((await s.fetch('/v1/schemas/nothing.json')).status, 401);
});

test('GET /studio and GET /docs serve their pages and files, with a same-origin Content Security Policy', async () => {
  const page = await s.fetch('/studio');
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /connect-src 'self'/);
  const html = await page.text();
  assert.doesNotMatch(html, /https?:\/\//, 'the page names no other origin');
  for (const file of ['studio.js', 'studio.css', 'pdf.worker.min.mjs']) {
    const res = await s.fetch(`/studio/${file}`);
    assert.equal(res.status, 200, file);
    assert.match(res.headers.get('content-type') ?? '', file.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
  }
  const docs = await s.fetch('/docs');
  assert.equal(docs.status, 200);
  assert.match(docs.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.match(await docs.text(), /\/studio\/swagger-ui-bundle\.js/);
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'docs.js']) assert.equal((await s.fetch(`/studio/${file}`)).status, 200, file);
  assert.equal((await s.fetch('/studio/nothing.js')).status, 404);
  assert.equal((await s.fetch('/studio/build.json')).status, 404);
  assert.equal((await s.fetch('/studio/..%2Fpackage.json')).status, 404);
});

test('the OpenAPI document describes the preview and schema endpoints', async () => {
  const spec = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, { security?: unknown }>> };
  assert.ok(spec.paths['/v1/templates/preview']?.post);
  assert.deepEqual(spec.paths['/v1/templates/preview'].post.security, [{ apiKey: [] }]);
  assert.ok(spec.paths['/v1/schemas/template.json']?.get);
  assert.equal(spec.paths['/v1/schemas/template.json'].get.security, undefined);
});
