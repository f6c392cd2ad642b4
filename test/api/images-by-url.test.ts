/**
 * Images by URL and stored assets through the API, on a real server: URLs fetched from a local
 * HTTPS server whose self-signed certificate only this test trusts (PLATEN_IMAGE_FETCH_CA_FILE),
 * cached with ETag revalidation; failures answered 422 IMAGE_FETCH_FAILED naming the URL and the
 * template path before any credit moves; private addresses refused without the allow flag; assets
 * uploaded, used by two templates, refused to other teams, deleted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { balance, expectError } from '../helpers/api.ts';
import { startImageServer, type ImageServer } from '../helpers/https-images.ts';
import { encodePng } from '../helpers/images.ts';
import { waitForJob } from '../helpers/jobs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** An 8 x 4 PNG (with an alpha channel: pdfimages lists it and its soft mask). */
const PNG = encodePng(8, 4, (x) => [x * 30, 80, 200, 255]);
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40"><rect width="120" height="40" fill="#1e40af"/><circle cx="20" cy="20" r="12" fill="#facc15"/></svg>`;

let images: ImageServer;
let s: TestServer;
let dir: string;

before(async () => {
  images = await startImageServer({
    '/logo.png': { headers: { 'content-type': 'image/png', etag: '"v1"' }, body: PNG },
    '/logo.svg': { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'max-age=600' }, body: SVG },
    '/moved': { status: 302, headers: { location: '/logo.png' } },
    '/to-http': { status: 302, headers: { location: 'http://127.0.0.1:1/logo.png' } },
    '/page.html': { headers: { 'content-type': 'text/html' }, body: '<html>not an image</html>' },
    '/big.png': { headers: { 'content-type': 'image/png' }, body: Buffer.concat([PNG, Buffer.alloc(70_000)]) },
    '/slow.png': (_req, res) => setTimeout(() => res.writeHead(200).end(PNG), 3000),
  });
  s = await startTestServer({ PLATEN_IMAGE_ALLOW_PRIVATE: 'true', PLATEN_IMAGE_FETCH_CA_FILE: images.caFile, PLATEN_IMAGE_FETCH_MAX_BYTES: '65536', PLATEN_IMAGE_FETCH_TIMEOUT_MS: '1500', PLATEN_ASSET_MAX_BYTES: '4096' });
  dir = mkdtempSync(join(tmpdir(), 'platen-img-'));
});
after(async () => {
  await s.close();
  await images.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The image XObjects of a PDF (pdfimages -list rows). */
function pdfImages(pdf: Buffer): string[] {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  return execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n').slice(2).filter((l) => l.trim());
}

async function binary(apiKey: string, body: Record<string, unknown>): Promise<Buffer> {
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { export_type: 'binary', ...body });
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

test('a PNG by URL (through a placeholder) is fetched, drawn, and revalidated with its ETag on the next render', async () => {
  const { teamId, apiKey } = await s.team(5);
  const id = await s.template(teamId, { content: [{ text: 'Invoice' }, { image: '{{logo}}', width: 80 }] });
  const url = `${images.origin}/logo.png`;
  const pdf = await binary(apiKey, { template_id: id, data: { logo: url } });
  const rows = pdfImages(pdf);
  assert.equal(rows.filter((r) => /^\s*\d+\s+\d+\s+image\s/.test(r)).length, 1, 'one image drawn');
  assert.match(rows[0], /\s8\s+4\s/, 'the 8 x 4 PNG');
  const before304 = images.notModified.get('/logo.png') ?? 0;
  await binary(apiKey, { template_id: id, data: { logo: url } });
  assert.equal(images.notModified.get('/logo.png'), before304 + 1, 'the second render asked with If-None-Match and got 304');
  assert.equal(await balance(s.server.services.db, teamId), 3);
});

test('an SVG by URL is drawn as vectors (no image XObject) and served from the cache while max-age holds', async () => {
  const { teamId, apiKey } = await s.team(5);
  const id = await s.template(teamId, { content: [{ image: `${images.origin}/logo.svg`, width: 240 }] });
  const pdf = await binary(apiKey, { template_id: id, data: {} });
  assert.deepEqual(pdfImages(pdf), [], 'no raster image in the PDF');
  const hits = images.hits.get('/logo.svg');
  await binary(apiKey, { template_id: id, data: {} });
  assert.equal(images.hits.get('/logo.svg'), hits, 'fresh for max-age=600: not asked again');
});

test('a redirect is followed; failures are 422 IMAGE_FETCH_FAILED with the URL and the template path, and cost no credit', async () => {
  const { teamId, apiKey } = await s.team(10);
  const id = await s.template(teamId, { content: [{ text: 'x' }, { stack: [{ image: '{{u}}' }] }] });
  await binary(apiKey, { template_id: id, data: { u: `${images.origin}/moved` } });
  const cases: [string, RegExp][] = [
    [`${images.origin}/missing.png`, /HTTP 404/],
    [`${images.origin}/page.html`, /not a PNG, JPEG or SVG/],
    [`${images.origin}/big.png`, /larger than 65536 bytes/],
    [`${images.origin}/to-http`, /only https/],
    [`${images.origin}/slow.png`, /within 1500 ms/],
    ['http://example.com/logo.png', /only https/],
  ];
  for (const [u, why] of cases) {
    const body = await expectError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { u } }), 422, 'IMAGE_FETCH_FAILED');
    assert.equal(body.url, u);
    assert.equal(body.path, 'content[1].stack[0].image');
    assert.match(body.detail, why, u);
    assert.ok(body.detail.includes('content[1].stack[0].image'), 'the detail names the path');
  }
  assert.equal(await balance(s.server.services.db, teamId), 9, 'only the successful render cost a credit');
});

test('private and loopback addresses are refused when PLATEN_IMAGE_ALLOW_PRIVATE is off', async () => {
  const strict = await startTestServer({ PLATEN_IMAGE_FETCH_CA_FILE: images.caFile, PLATEN_RENDER_THREADS: '1' });
  try {
    const { teamId, apiKey } = await strict.team(3);
    const id = await strict.template(teamId, { content: [{ image: '{{u}}' }] });
    for (const u of [`${images.origin}/logo.png`, 'https://localhost:9/logo.png', 'https://[::1]/x.png', 'https://10.1.2.3/x.png']) {
      const body = await expectError(await strict.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { u } }), 422, 'IMAGE_FETCH_FAILED');
      assert.match(body.detail, /non-public|private, loopback or reserved/, u);
    }
    assert.equal(await balance(strict.server.services.db, teamId), 3);
  } finally {
    await strict.close();
  }
});

async function upload(apiKey: string, bytes: Buffer | string, filename: string, type = 'application/octet-stream'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type }), filename);
  return s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
}

test('an asset used by two templates, invisible to another team, then deleted', async () => {
  const { teamId, apiKey } = await s.team(10);
  const res = await upload(apiKey, SVG, 'logo.svg');
  assert.equal(res.status, 201);
  const asset = (await res.json()) as { id: string; filename: string; content_type: string; bytes: number; created_at: string };
  assert.match(asset.id, /^[0-9a-f]{32}$/);
  assert.equal(asset.filename, 'logo.svg');
  assert.equal(asset.content_type, 'image/svg+xml', 'sniffed from the bytes, not the upload type');
  assert.equal(asset.bytes, Buffer.byteLength(SVG));

  const list = (await (await s.api('GET', '/v1/assets', apiKey)).json()) as { assets: { id: string }[]; total: number };
  assert.equal(list.total, 1);
  assert.equal(list.assets[0].id, asset.id);

  const literal = await s.template(teamId, { content: [{ text: 'A' }, { image: `asset:${asset.id}`, width: 120 }] });
  const bound = await s.template(teamId, { content: [{ image: '{{brand.logo}}', width: 60 }, { text: 'B' }] });
  for (const [id, data] of [[literal, {}], [bound, { brand: { logo: `asset:${asset.id}` } }]] as const) {
    const pdf = await binary(apiKey, { template_id: id, data });
    assert.ok(pdf.length > 500);
    assert.deepEqual(pdfImages(pdf), [], 'the SVG asset is drawn as vectors');
  }

  // Another team: its own render cannot use the id, nor can it delete it.
  const other = await s.team(3);
  const theirs = await s.template(other.teamId, { content: [{ image: `asset:${asset.id}` }] });
  const refused = await expectError(await s.api('POST', '/v1/pdf/create', other.apiKey, { template_id: theirs, data: {} }), 422, 'IMAGE_FETCH_FAILED');
  assert.match(refused.detail, /does not exist/);
  await expectError(await s.api('DELETE', `/v1/assets/${asset.id}`, other.apiKey), 404, 'ASSET_NOT_FOUND');
  assert.equal(((await (await s.api('GET', '/v1/assets', other.apiKey)).json()) as { total: number }).total, 0);

  // A job queued before the delete fails when it runs; a request after it is refused up front.
  assert.equal((await s.api('DELETE', `/v1/assets/${asset.id}`, apiKey)).status, 204);
  await expectError(await s.api('DELETE', `/v1/assets/${asset.id}`, apiKey), 404, 'ASSET_NOT_FOUND');
  const gone = await expectError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: literal, data: {} }), 422, 'IMAGE_FETCH_FAILED');
  assert.equal(gone.path, 'content[1].image');
  assert.match(gone.detail, new RegExp(`content\\[1\\]\\.image: asset ${asset.id} does not exist`));
  const queued = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: bound, data: { brand: { logo: `asset:${asset.id}` } } });
  assert.equal(queued.status, 202);
  const job = await waitForJob(s, apiKey, ((await queued.json()) as { job_id: string }).job_id);
  assert.equal(job.status, 'failed');
  assert.equal(job.error_code, 'IMAGE_FETCH_FAILED');
  assert.match(job.error_message ?? '', /content\[0\]\.image: asset .* does not exist/);
});

test('an async job fetches its URL image when it runs', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, { content: [{ image: '{{u}}', width: 50 }] });
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { u: `${images.origin}/logo.png` } });
  const job = await waitForJob(s, apiKey, ((await res.json()) as { job_id: string }).job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const pdf = Buffer.from(await (await fetch(job.result_url!)).arrayBuffer());
  assert.equal(pdfImages(pdf).filter((r) => /^\s*\d+\s+\d+\s+image\s/.test(r)).length, 1);
});

test('uploads: a PNG is sniffed as image/png; empty, too large, non-image and non-multipart uploads are refused', async () => {
  const { apiKey } = await s.team(1);
  const png = await upload(apiKey, PNG, 'C:\\Users\\me\\logo.png', 'image/jpeg');
  assert.equal(png.status, 201);
  const body = (await png.json()) as { content_type: string; filename: string };
  assert.equal(body.content_type, 'image/png');
  assert.equal(body.filename, 'logo.png', 'the path of the client is left out');
  const notImage = await expectError(await upload(apiKey, '<html></html>', 'x.png'), 400, 'VALIDATION_ERROR');
  assert.equal(notImage.errors?.[0].path, 'file');
  const big = await expectError(await upload(apiKey, Buffer.concat([PNG, Buffer.alloc(5000)]), 'big.png'), 400, 'VALIDATION_ERROR');
  assert.match(big.detail, /larger than 4096 bytes/);
  await expectError(await upload(apiKey, Buffer.alloc(0), 'empty.png'), 400, 'VALIDATION_ERROR');
  const form = new FormData();
  form.append('other', 'x');
  await expectError(await s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }), 400, 'VALIDATION_ERROR');
  await expectError(await s.api('POST', '/v1/assets', apiKey, { file: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  await expectError(await s.fetch('/v1/assets'), 401, 'UNAUTHORIZED');
});

test('previews fetch URL and asset images too, and answer 422 IMAGE_FETCH_FAILED when one cannot be had', async () => {
  const { apiKey } = await s.team(0);
  const ok = await s.api('POST', '/v1/templates/preview', apiKey, { definition: { content: [{ image: '{{u}}', width: 40 }] }, data: { u: `${images.origin}/logo.svg` } });
  assert.equal(ok.status, 200, await ok.clone().text());
  const missing = await expectError(await s.api('POST', '/v1/templates/preview', apiKey, { definition: { content: [{ text: 'x' }, { image: 'asset:0123456789abcdef0123456789abcdef' }] } }), 422, 'IMAGE_FETCH_FAILED');
  assert.equal(missing.path, 'content[1].image');
});

test('an image source written <<u>> is fetched like {{u}}, by a request and by a job (the job\'s data parsed on its render thread)', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, { content: [{ image: '<<u>>', width: 50 }] });
  const pdf = await binary(apiKey, { template_id: id, data: { u: `${images.origin}/logo.png` } });
  assert.equal(pdfImages(pdf).filter((r) => /^\s*\d+\s+\d+\s+image\s/.test(r)).length, 1, 'drawn by the request');
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { u: `${images.origin}/logo.png` } });
  const job = await waitForJob(s, apiKey, ((await res.json()) as { job_id: string }).job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const fromJob = Buffer.from(await (await fetch(job.result_url!)).arrayBuffer());
  assert.equal(pdfImages(fromJob).filter((r) => /^\s*\d+\s+\d+\s+image\s/.test(r)).length, 1, 'drawn by the job');
});
