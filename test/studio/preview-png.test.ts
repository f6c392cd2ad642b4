/**
 * PNG previews (POST /v1/templates/preview with "format": "png"), read back as pixels on a real
 * server: one page, the PREVIEW mark visible, the picture follows the definition, no credit, no
 * file; a page past the last one is a 400 naming page; image templates preview as PNG.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PNG } from 'pngjs';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_PREVIEW_RATE_LIMIT: '1000' });
});
after(() => s.close());

const page = { size: [300, 300], margin: 20 };

async function preview(apiKey: string, body: Record<string, unknown>): Promise<Response> {
  return s.api('POST', '/v1/templates/preview', apiKey, { format: 'png', ...body });
}

async function pixels(res: Response): Promise<PNG> {
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, bytes.toString('utf8').slice(0, 300));
  assert.equal(res.headers.get('content-type'), 'image/png');
  return PNG.sync.read(bytes);
}

/** Mean absolute RGB difference, 0-255. */
function difference(a: PNG, b: PNG): number {
  assert.deepEqual([a.width, a.height], [b.width, b.height]);
  let sum = 0;
  for (let i = 0; i < a.data.length; i += 4) sum += Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]);
  return sum / (a.width * a.height * 3);
}

/** Share of grey (not white) pixels within the middle ninth of the image. */
function middleInk(p: PNG): number {
  let n = 0;
  let total = 0;
  for (let y = Math.floor(p.height / 3); y < (2 * p.height) / 3; y++) {
    for (let x = Math.floor(p.width / 3); x < (2 * p.width) / 3; x++) {
      const i = (y * p.width + x) * 4;
      total++;
      if (p.data[i] < 245) n++;
    }
  }
  return n / total;
}

function storedFiles(): number {
  const dir = join(s.dataDir, 'files');
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).length : 0;
}

test('a PNG preview: the page at the scale, the PREVIEW mark across an empty page, no credit, no file', async () => {
  const { apiKey } = await s.team(2);
  const files = storedFiles();
  const res = await preview(apiKey, { definition: { page, content: [] }, scale: 1 });
  assert.equal(res.headers.get('x-platen-pages'), '1');
  const png = await pixels(res);
  assert.deepEqual([png.width, png.height], [300, 300]);
  assert.ok(middleInk(png) > 0.03, `the mark shows in the middle of an empty page (${middleInk(png)})`);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 2);
  assert.equal(storedFiles(), files);
});

test('the pixels follow the definition: two definitions differ, the same one twice does not', async () => {
  const { apiKey } = await s.team(1);
  const a = { page, content: [{ text: 'Invoice {{n}}', fontSize: 28 }] };
  const b = { page, content: [{ text: 'Invoice {{n}}', fontSize: 28, color: '#c00000' }, { line: { thickness: 4 } }] };
  const first = await pixels(await preview(apiKey, { definition: a, data: { n: 1 } }));
  const again = await pixels(await preview(apiKey, { definition: a, data: { n: 1 } }));
  const other = await pixels(await preview(apiKey, { definition: b, data: { n: 1 } }));
  assert.equal(difference(first, again), 0);
  assert.ok(difference(first, other) > 0.3, `difference ${difference(first, other)}`);
});

test('page chooses the page; past the last one is 400 naming page; JSON export carries the PNG and its size', async () => {
  const { apiKey } = await s.team(1);
  const definition = { page, content: [{ text: 'one' }, { pageBreak: true }, { text: 'TWO', fontSize: 80, fontWeight: 'bold' }] };
  const one = await pixels(await preview(apiKey, { definition, page: 1, scale: 0.5 }));
  const two = await pixels(await preview(apiKey, { definition, page: 2, scale: 0.5 }));
  assert.ok(difference(one, two) > 1);
  const past = await preview(apiKey, { definition, page: 3 });
  assert.equal(past.status, 400);
  const body = (await past.json()) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.equal(body.errors[0].path, 'page');
  assert.match(body.errors[0].message, /2 pages/);
  const json = (await (await preview(apiKey, { definition, page: 2, scale: 1, export_type: 'json' })).json()) as Record<string, unknown>;
  assert.deepEqual([json.page, json.pages, json.width, json.height], [2, 2, 300, 300]);
  assert.equal(json.pdf, undefined);
  const decoded = PNG.sync.read(Buffer.from(json.png as string, 'base64'));
  assert.deepEqual([decoded.width, decoded.height], [300, 300]);
});

test('an image template previews as PNG (and is still refused as a PDF)', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { page, content: [{ text: 'label' }] }, 'image');
  await pixels(await preview(apiKey, { template_id: id, scale: 0.5 }));
  assert.equal((await s.api('POST', '/v1/templates/preview', apiKey, { template_id: id })).status, 400);
});
