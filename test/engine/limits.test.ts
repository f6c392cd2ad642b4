/**
 * Resource limits fail with clear LIMIT_EXCEEDED (or TEMPLATE_INVALID for a definition nested too
 * deep) errors instead of runaway renders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS, validateTemplate } from '../../engine/index.ts';
import { alphaPngDataUri, encodePng } from '../helpers/images.ts';
import { render, renderError } from '../helpers/render.ts';

const SMALL = { size: [300, 300], margin: 20 };

/** A document of `n` pages, one paragraph each. */
function pagesDoc(n: number) {
  const content: unknown[] = [];
  for (let i = 1; i <= n; i++) {
    if (i > 1) content.push({ pageBreak: true });
    content.push({ text: `page body ${i}` });
  }
  return { page: SMALL, content };
}

/** `depth` stacks nested in each other around one text node. */
function nested(depth: number) {
  let node: unknown = { text: 'deep inside' };
  for (let i = 0; i < depth; i++) node = { stack: [node] };
  return { content: [node] };
}

test('the default limits are the documented ones', () => {
  assert.deepEqual({ ...DEFAULT_LIMITS }, {
    maxPages: 1000,
    maxNodes: 250_000,
    maxDepth: 48,
    maxGlyphs: 2_000_000,
    maxBoxes: 1_000_000,
    maxDataDepth: 32,
    maxImageBytes: 20 * 1024 * 1024,
    maxImagePixels: 40_000_000,
    maxSvgElements: 20_000,
    maxDataScan: 20_000_000,
  });
});

test('maxPages: a 10-page document with maxPages 3 fails with LIMIT_EXCEEDED about pages', async () => {
  const ok = await render(pagesDoc(10));
  assert.equal(ok.pages, 10, 'the document has 10 pages without the limit');
  const e = await renderError(pagesDoc(10), {}, { maxPages: 3 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /pages/i);
  assert.match(e.message, /\b3\b/, 'the message names the limit');
});

test('maxPages: a document of exactly maxPages pages renders', async () => {
  const r = await render(pagesDoc(3), {}, { maxPages: 3 });
  assert.equal(r.pages, 3);
});

test('maxPages: a long table passing the limit fails instead of rendering', async () => {
  const rows = Array.from({ length: 400 }, (_, i) => [`row ${i}`]);
  const e = await renderError({ page: SMALL, content: [{ table: { header: [['H']], rows } }] }, {}, { maxPages: 5 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /pages/i);
});

test('maxNodes: an each over 1,200 items with maxNodes 100 fails with LIMIT_EXCEEDED', async () => {
  const items = Array.from({ length: 1200 }, (_, i) => i);
  const definition = { content: [{ each: 'items', content: [{ text: 'item {{item}}' }] }] };
  const e = await renderError(definition, { items }, { maxNodes: 100 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /nodes/i);
  assert.match(e.message, /100/);
  assert.ok(e.path?.startsWith('content[0]'), `path ${e.path}`);
});

test('maxNodes: table rows from each count their cells', async () => {
  const items = Array.from({ length: 1200 }, (_, i) => ({ n: i }));
  const definition = { content: [{ table: { rows: [{ each: 'items', as: 'it', row: ['{{it.n}}', 'x'] }] } }] };
  const e = await renderError(definition, { items }, { maxNodes: 100 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /nodes/i);
  // 60 rows of 2 cells are 120 cells: over 100 as well.
  const e2 = await renderError(definition, { items: items.slice(0, 60) }, { maxNodes: 100 });
  assert.equal(e2.code, 'LIMIT_EXCEEDED');
});

test('maxNodes: a document under the limit renders', async () => {
  const items = Array.from({ length: 50 }, (_, i) => i);
  const r = await render({ content: [{ each: 'items', content: [{ text: 'item {{item}}' }] }] }, { items }, { maxNodes: 100 });
  assert.equal(r.pages, 1);
  assert.ok(r.doc.pages[0].text.includes('item 49'));
});

test('nesting depth: a definition nested 100 stacks deep is refused with a message about depth', async () => {
  const v = validateTemplate(nested(100));
  assert.ok(!v.ok);
  assert.ok(v.errors.some((e) => /deep|depth|nest/i.test(e.message)), JSON.stringify(v.errors.map((e) => e.message)));
  const e = await renderError(nested(100));
  assert.ok(e.code === 'TEMPLATE_INVALID' || e.code === 'LIMIT_EXCEEDED', e.code);
  assert.match(e.message, /deep|depth|nest/i);
});

test('nesting depth: a very deep definition (10,000 levels) fails cleanly, without a stack overflow', async () => {
  const e = await renderError(nested(10_000));
  assert.ok(e.code === 'TEMPLATE_INVALID' || e.code === 'LIMIT_EXCEEDED', e.code);
  assert.match(e.message, /deep|depth|nest/i);
});

test('nesting depth: 20 levels render under the default limit', async () => {
  const r = await render(nested(20));
  assert.equal(r.doc.pages[0].text, 'deep inside');
});

test('nesting depth: options.limits.maxDepth is honoured', async () => {
  const e = await renderError(nested(10), {}, { maxDepth: 5 });
  assert.ok(e.code === 'TEMPLATE_INVALID' || e.code === 'LIMIT_EXCEEDED', e.code);
  assert.match(e.message, /deep|depth|nest/i);
});

test('maxImagePixels: an image with more pixels than the limit fails with LIMIT_EXCEEDED and the node path', async () => {
  const png = alphaPngDataUri(20, 10, 101); // 200 pixels
  const e = await renderError({ content: [{ text: 'x' }, { image: png }] }, {}, { maxImagePixels: 100 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /pixels/i);
  assert.match(e.path ?? '', /^content\[1\](\.image)?$/, `path ${e.path}`);
  // The same image under a limit it meets renders.
  const png2 = alphaPngDataUri(20, 10, 102);
  const r = await render({ content: [{ image: png2 }] }, {}, { maxImagePixels: 200 });
  assert.equal(r.pages, 1);
});

test('maxImagePixels applies to every render, also to an image an earlier render already used', async () => {
  const png = alphaPngDataUri(30, 30, 103); // 900 pixels
  const first = await render({ content: [{ image: '{{img}}' }] }, { img: png });
  assert.equal(first.pages, 1);
  const e = await renderError({ content: [{ image: '{{img}}' }] }, { img: png }, { maxImagePixels: 100 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
});

test('maxImageBytes: an image larger than the limit fails with LIMIT_EXCEEDED', async () => {
  // Noise does not compress: about 3 x 64 x 64 = 12 kB of PNG.
  let seed = 7;
  const noise = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 24;
  const png = encodePng(64, 64, () => [noise(), noise(), noise(), 255]);
  assert.ok(png.length > 4096);
  const e = await renderError({ content: [{ image: `data:image/png;base64,${png.toString('base64')}` }] }, {}, { maxImageBytes: 4096 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /bytes|large|size/i);
});
