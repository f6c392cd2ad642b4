/**
 * POST /v1/image/create through a real server: URL and binary export, PNG and JPEG, scale and
 * page, pixels read back; page past the last one and too large a scale are 400s naming the field;
 * one credit, refunded on failure; image templates render here while the PDF endpoint still
 * refuses them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { balance, expectError, expectValidationError, ledger, startUrlServer } from '../helpers/api.ts';
import type { TestServer } from '../helpers/server.ts';

const TWO_PAGES = { page: { size: [300, 200], margin: 20 }, content: [{ text: 'Hello {{name}}', fontSize: 20 }, { pageBreak: true }, { text: 'Second page', fontSize: 40, fontWeight: 'bold' }] };
const LABEL = { page: { size: [200, 100], margin: 10 }, content: [{ text: 'EXPRESS', fontSize: 30, fontWeight: 'bold', color: '#c00000' }] };

let s: TestServer;
let team: { teamId: string; apiKey: string };
let pdfTpl: string;
let imageTpl: string;

before(async () => {
  s = await startUrlServer();
  team = await s.team(100);
  pdfTpl = await s.template(team.teamId, TWO_PAGES);
  imageTpl = await s.template(team.teamId, LABEL, 'image');
});
after(() => s.close());

function create(body: Record<string, unknown>, key = team.apiKey): Promise<Response> {
  return s.api('POST', '/v1/image/create', key, body);
}

/** Share of pixels that are not white, and of those that are mostly red. */
function ink(png: PNG): { dark: number; red: number } {
  let dark = 0;
  let red = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b] = [png.data[i], png.data[i + 1], png.data[i + 2]];
    if (r < 200 || g < 200 || b < 200) dark++;
    if (r > 150 && g < 80 && b < 80) red++;
  }
  const n = png.width * png.height;
  return { dark: dark / n, red: red / n };
}

test('url export: JSON like the PDF answer with a .png file; the URL serves image/png of the page at the scale', async () => {
  const before = await balance(s.server.services.db, team.teamId);
  const res = await create({ template_id: pdfTpl, data: { name: 'Ada' }, scale: 1.5 });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body).sort(), ['credits_remaining', 'expires_in', 'filename', 'height', 'page', 'pages', 'url', 'warnings', 'width']);
  assert.equal(body.filename, 'image.png');
  assert.deepEqual([body.width, body.height, body.page, body.pages], [450, 300, 1, 2]);
  assert.equal(body.credits_remaining, before - 1);
  assert.equal(await balance(s.server.services.db, team.teamId), before - 1);
  const file = await fetch(body.url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(Buffer.from(await file.arrayBuffer()));
  assert.deepEqual([png.width, png.height], [450, 300]);
  assert.ok(ink(png).dark > 0.005, 'the text is drawn');
});

test('binary export: PNG and JPEG bytes with X-Credits-Remaining; page 2 is the other page', async () => {
  const res = await create({ template_id: pdfTpl, data: { name: 'Ada' }, export_type: 'binary', page: 2, scale: 1 });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  assert.equal(res.headers.get('x-credits-remaining'), String(await balance(s.server.services.db, team.teamId)));
  assert.equal(res.headers.get('x-platen-pages'), '2');
  const second = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  assert.deepEqual([second.width, second.height], [300, 200]);
  const first = PNG.sync.read(Buffer.from(await (await create({ template_id: pdfTpl, data: { name: 'Ada' }, export_type: 'binary', page: 1, scale: 1 })).arrayBuffer()));
  assert.ok(ink(second).dark > ink(first).dark * 2, `page 2's large bold text inks more (${ink(second).dark} vs ${ink(first).dark})`);

  const jpeg = await create({ template_id: pdfTpl, data: { name: 'Ada' }, export_type: 'binary', format: 'jpeg', scale: 0.5 });
  assert.equal(jpeg.status, 200);
  assert.equal(jpeg.headers.get('content-type'), 'image/jpeg');
  const bytes = Buffer.from(await jpeg.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const url = await (await create({ template_id: pdfTpl, data: {}, format: 'jpeg', filename: 'label-1' })).json();
  assert.equal(url.filename, 'label-1.jpg');
  assert.equal((await fetch(url.url)).headers.get('content-type'), 'image/jpeg');
});

test('an image template renders here (its colours read back) and the PDF endpoint still refuses it', async () => {
  const res = await create({ template_id: imageTpl, data: {}, export_type: 'binary', scale: 2 });
  assert.equal(res.status, 200);
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  assert.deepEqual([png.width, png.height], [400, 200]);
  assert.ok(ink(png).red > 0.02, `red text (${ink(png).red})`);
  const before = await balance(s.server.services.db, team.teamId);
  const refused = await expectError(await s.api('POST', '/v1/pdf/create', team.apiKey, { template_id: imageTpl, data: {} }), 400, 'BAD_REQUEST');
  assert.match(refused.detail, /image template/);
  assert.equal(await balance(s.server.services.db, team.teamId), before);
});

test('a page past the last one: 400 naming page, the credit refunded', async () => {
  const before = await balance(s.server.services.db, team.teamId);
  const body = await expectValidationError(await create({ template_id: pdfTpl, data: {}, page: 3 }), 'page');
  assert.match(body.errors![0].message, /2 pages.*refunded/);
  assert.equal(await balance(s.server.services.db, team.teamId), before);
  const rows = await ledger(s.server.services.db, team.teamId);
  assert.deepEqual(rows.slice(-2).map((r) => r.delta), [-1, 1]);
});

test('field bounds: format, scale, page, filename, pdf_variant; too many pixels is refused before any credit', async () => {
  const before = await balance(s.server.services.db, team.teamId);
  await expectValidationError(await create({ template_id: pdfTpl, data: {}, format: 'gif' }), 'format');
  await expectValidationError(await create({ template_id: pdfTpl, data: {}, scale: 0.1 }), 'scale');
  await expectValidationError(await create({ template_id: pdfTpl, data: {}, scale: 9 }), 'scale');
  await expectValidationError(await create({ template_id: pdfTpl, data: {}, page: 0 }), 'page');
  await expectValidationError(await create({ template_id: pdfTpl, data: {}, filename: 'x.png' }), 'filename');
  await expectValidationError(await create({ template_id: pdfTpl, data: {}, pdf_variant: 'pdf/a-2b' }), 'pdf_variant');
  const big = await s.template(team.teamId, { page: { size: [5000, 5000] }, content: [{ text: 'big' }] });
  const tooMany = await expectValidationError(await create({ template_id: big, data: {}, scale: 8 }), 'scale');
  assert.match(tooMany.errors![0].message, /40000 x 40000 pixels.*at most/);
  assert.equal(await balance(s.server.services.db, team.teamId), before);
});

test('a render that fails: 500 with render_error, the credit refunded', async () => {
  const bad = await s.template(team.teamId, { content: [{ text: 'x' }, { image: 'data:image/png;base64,AAAAAAAA', width: 50 }] });
  const before = await balance(s.server.services.db, team.teamId);
  const body = await expectError(await create({ template_id: bad, data: {} }), 500, 'INTERNAL_ERROR');
  assert.equal((body.render_error as { code: string }).code, 'IMAGE_INVALID');
  assert.match(body.detail, /refunded/);
  assert.equal(await balance(s.server.services.db, team.teamId), before);
});

test('no credits: 402, nothing rendered', async () => {
  const poor = await s.team(0);
  const tpl = await s.template(poor.teamId, LABEL, 'image');
  await expectError(await create({ template_id: tpl, data: {} }, poor.apiKey), 402, 'INSUFFICIENT_CREDITS');
});
