/**
 * POST /v1/assets checks an upload the way a render decodes the image (real server, real
 * multipart uploads): bytes that can never be drawn (a truncated PNG or JPEG, an SVG with entity
 * declarations or an absurd size) and images past the render limits (PLATEN_MAX_IMAGE_PIXELS,
 * PLATEN_MAX_SVG_ELEMENTS) are refused with 400 VALIDATION_ERROR naming `file` and saying what is
 * wrong, and nothing is stored; images within the limits are stored and render.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectValidationError } from '../helpers/api.ts';
import { encodePng, JPEG_16 } from '../helpers/images.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_MAX_IMAGE_PIXELS: '10000', PLATEN_MAX_SVG_ELEMENTS: '50' });
});
after(async () => {
  await s.close();
});

const PNG = encodePng(40, 30, (x, y) => [x * 6, y * 8, 90, 255]);
const JPEG = Buffer.from(JPEG_16.base64, 'base64');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><rect width="120" height="40" rx="6" fill="#1f4e79"/></svg>';

async function upload(apiKey: string, bytes: Buffer | string, filename: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type: 'application/octet-stream' }), filename);
  return s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
}

/** The upload is refused with 400 VALIDATION_ERROR at `file`, its message matching `message`. */
async function refused(apiKey: string, bytes: Buffer | string, filename: string, message: RegExp): Promise<void> {
  const body = await expectValidationError(await upload(apiKey, bytes, filename), 'file');
  const fault = body.errors!.find((e) => e.path === 'file')!;
  assert.match(fault.message, message, `${filename}: ${fault.message}`);
  assert.match(body.detail, message, `${filename}: the detail says it too`);
}

async function assetCount(apiKey: string): Promise<number> {
  const res = await s.api('GET', '/v1/assets', apiKey);
  assert.equal(res.status, 200);
  return ((await res.json()) as { total: number }).total;
}

test('a PNG, JPEG or SVG that can never be drawn is refused naming file, with what is wrong; nothing is stored', async () => {
  const { apiKey } = await s.team(1);
  // PNG: cut inside its pixel data, cut before its IEND chunk (pdfkit refuses it), and without pixel data.
  await refused(apiKey, PNG.subarray(0, Math.floor(PNG.length / 2)), 'half.png', /PNG data is truncated/);
  await refused(apiKey, PNG.subarray(0, PNG.length - 12), 'no-iend.png', /PNG data is truncated.*IEND/);
  await refused(apiKey, PNG.subarray(0, 33), 'header-only.png', /PNG data is truncated/);
  // JPEG: cut before its image data (the SOS segment), and a JPEG signature followed by junk.
  await refused(apiKey, JPEG.subarray(0, 200), 'cut.jpg', /JPEG data is truncated/);
  await refused(apiKey, Buffer.concat([JPEG.subarray(0, 4), Buffer.alloc(40, 0x11)]), 'junk.jpg', /JPEG data is truncated/);
  // A JPEG whose header libjpeg refuses (16-bit samples): the image output's decoder crashed the process on it.
  const deep = Buffer.from(JPEG);
  deep[158 + 4] = 16;
  await refused(apiKey, deep, 'deep.jpg', /JPEG image data is corrupt: its samples have 16 bits/);
  // SVG: entity declarations, and sizes no PDF can draw.
  const entity = '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "x">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&a;</text></svg>';
  await refused(apiKey, entity, 'entity.svg', /SVG declares entities \(<!ENTITY>\), which are not allowed/);
  await refused(apiKey, '<svg xmlns="http://www.w3.org/2000/svg" width="1e308" height="10"><rect width="10" height="10"/></svg>', 'wide.svg', /SVG width "1e308" exceeds 1,000,000 pt/);
  await refused(apiKey, '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 1e308 10"><rect width="10" height="10"/></svg>', 'viewbox.svg', /SVG viewBox "0 0 1e308 10" has a number past 1,000,000,000/);
  await refused(apiKey, '<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>', 'nosize.svg', /no size/);
  await refused(apiKey, '<svg xmlns="http://www.w3.org/2000/svg" width="0.0001" height="10"><rect width="10" height="10"/></svg>', 'thin.svg', /below 0.001 pt/);
  // Numbers a PDF cannot hold (1e21 and more), as written or as transforms multiply them out: every PDF render of them failed.
  await refused(apiKey, '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M0 0 L 1e300 1e300"/></svg>', 'far.svg', /cannot be drawn into a PDF: unsupported number: 1e\+300/);
  await refused(apiKey, '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g transform="scale(1e14) scale(1e14)"><rect width="1" height="1"/></g></svg>', 'scaled.svg', /unsupported number: 1e\+28 \(a coordinate, size or transform of 1e21 or more/);
  // Nested deeper than the drawing's recursion can go (19,000 levels filled a render thread's heap, every render).
  await refused(apiKey, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<g>'.repeat(19_000)}<rect width="5" height="5"/>${'</g>'.repeat(19_000)}</svg>`, 'deep.svg', /nested 19001 levels deep, more than 256/);
  assert.equal(await assetCount(apiKey), 0, 'no refused upload was stored');
});

test("the render's limits apply at upload: PLATEN_MAX_IMAGE_PIXELS and PLATEN_MAX_SVG_ELEMENTS", async () => {
  const { apiKey } = await s.team(1);
  await refused(apiKey, encodePng(200, 100, () => [0, 0, 0, 255]), 'big.png', /200x100 pixels, more than 10000/);
  const many = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<rect width="1" height="1"/>'.repeat(60)}</svg>`;
  await refused(apiKey, many, 'many.svg', /more than 50 elements/);
  assert.equal(await assetCount(apiKey), 0);
});

test('a PNG, a JPEG and an SVG within the limits are stored (201) and render', async () => {
  const { teamId, apiKey } = await s.team(3);
  for (const [bytes, name, type] of [
    [PNG, 'logo.png', 'image/png'],
    [JPEG, 'photo.jpg', 'image/jpeg'],
    [SVG, 'mark.svg', 'image/svg+xml'],
  ] as const) {
    const res = await upload(apiKey, bytes, name);
    assert.equal(res.status, 201, await res.clone().text());
    const asset = (await res.json()) as { id: string; content_type: string };
    assert.equal(asset.content_type, type);
    const template = await s.template(teamId, { content: [{ image: `asset:${asset.id}`, width: 60 }] });
    const pdf = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: {}, export_type: 'binary' });
    assert.equal(pdf.status, 200, `${name}: ${await pdf.clone().text()}`);
  }
  assert.equal(await assetCount(apiKey), 3);
});

test('an SVG over 64 KiB is checked on a render thread with the same rules: a long path is stored, too many elements refused', async () => {
  const { apiKey } = await s.team(0);
  const d = `M0 0 ${Array.from({ length: 20_000 }, (_, i) => `L${i % 10} ${(i * 7) % 10}`).join(' ')} Z`;
  const long = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 10 10"><path d="${d}" fill="#1f4e79"/></svg>`;
  assert.ok(long.length > 64 * 1024);
  const res = await upload(apiKey, long, 'long.svg');
  assert.equal(res.status, 201, await res.clone().text());
  assert.equal(((await res.json()) as { content_type: string }).content_type, 'image/svg+xml');
  const padded = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><!--${'x'.repeat(70_000)}-->${'<rect width="1" height="1"/>'.repeat(60)}</svg>`;
  await refused(apiKey, padded, 'many.svg', /more than 50 elements/);
});
