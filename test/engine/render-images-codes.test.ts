/**
 * Images (PNG with alpha, JPEG; sizing; bad sources) and vector codes (QR, barcodes), checked on
 * the PDF's operator list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pdfOperators, unionBox } from '../helpers/pdfops.ts';
import { alphaPngDataUri, encodePng, JPEG_16 } from '../helpers/images.ts';
import { execFileSync } from 'node:child_process';
import { renderPdf } from '../../engine/index.ts';
import { NOW, render, renderError } from '../helpers/render.ts';

const MARGIN = 40;
const PAGE = { size: 'A4', margin: MARGIN };
const CONTENT_WIDTH = 595.28 - 2 * MARGIN;
const near = (a: number, b: number, tol = 0.5) => Math.abs(a - b) < tol;

test('a PNG with alpha renders as an image XObject with a soft mask', async () => {
  const png = alphaPngDataUri(40, 20, 1);
  const r = await render({ page: PAGE, content: [{ text: 'before' }, { image: '{{logo}}', width: 100 }, { text: 'after' }] }, { logo: png });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 1, `image ops: ${ops.names.filter((n) => /Image/.test(n)).join(', ')}`);
  assert.equal(ops.images[0].op, 'paintImageXObject');
  // PNG transparency is kept: the image has an SMask (dictionaries are not compressed).
  assert.ok(r.pdf.includes('/SMask'), 'no /SMask in the PDF');
});

test('a width-only image keeps its aspect ratio and sits at the left margin, between its neighbours', async () => {
  const png = alphaPngDataUri(40, 20, 2);
  const r = await render({ page: PAGE, content: [{ text: 'before' }, { image: png, width: 100 }, { text: 'after' }] });
  const [ops] = await pdfOperators(r.pdf);
  const img = ops.images[0];
  assert.ok(near(img.width, 100), `width ${img.width}`);
  assert.ok(near(img.height, 50), `height ${img.height}, expected 100 * 20 / 40 = 50`);
  assert.ok(near(img.x, MARGIN), `x ${img.x}`);
  const page = r.doc.pages[0];
  const before = page.runs.find((x) => x.str === 'before')!;
  const after = page.runs.find((x) => x.str === 'after')!;
  assert.ok(img.y > before.y, 'image below the first paragraph');
  assert.ok(img.y + img.height < after.y, 'the next paragraph is below the image');
});

test('a height-only image keeps its aspect ratio; no size is 1 px = 1 pt; too wide is scaled down', async () => {
  const png = alphaPngDataUri(40, 20, 3);
  const wide = alphaPngDataUri(1000, 10, 4);
  const r = await render({ page: PAGE, content: [{ image: png, height: 30 }, { image: png }, { image: wide }] });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 3);
  const [byHeight, natural, scaled] = [...ops.images].sort((a, b) => a.y - b.y);
  assert.ok(near(byHeight.height, 30) && near(byHeight.width, 60), `height-only: ${byHeight.width} x ${byHeight.height}`);
  assert.ok(near(natural.width, 40) && near(natural.height, 20), `natural: ${natural.width} x ${natural.height}`);
  assert.ok(near(scaled.width, CONTENT_WIDTH) && near(scaled.height, (CONTENT_WIDTH * 10) / 1000), `too wide: ${scaled.width} x ${scaled.height}`);
});

test('fit contain centres the image in the box; align right puts it at the right margin', async () => {
  const png = alphaPngDataUri(40, 20, 5);
  const r = await render({ page: PAGE, content: [{ image: png, width: 100, height: 100, fit: 'contain' }, { image: png, width: 80, align: 'right' }] });
  const [ops] = await pdfOperators(r.pdf);
  const [contain, right] = [...ops.images].sort((a, b) => a.y - b.y);
  assert.ok(near(contain.width, 100) && near(contain.height, 50), `contain: ${contain.width} x ${contain.height}`);
  assert.ok(near(contain.x, MARGIN), `contain x ${contain.x}`);
  assert.ok(near(contain.y, MARGIN + 25), `contain y ${contain.y}: centred vertically in the 100 pt box`);
  assert.ok(near(right.x + right.width, 595.28 - MARGIN), `right-aligned image ends at ${right.x + right.width}`);
});

test('a JPEG renders as an image XObject at its size', async () => {
  const r = await render({ page: PAGE, content: [{ image: JPEG_16.dataUri, width: 64 }] });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 1);
  assert.equal(ops.images[0].op, 'paintImageXObject');
  assert.ok(near(ops.images[0].width, 64) && near(ops.images[0].height, (64 * JPEG_16.height) / JPEG_16.width));
  assert.ok(r.pdf.includes('/DCTDecode'), 'the JPEG is embedded as DCT data');
});

test('the same image used twice is embedded once and painted twice', async () => {
  const png = alphaPngDataUri(8, 8, 6);
  const r = await render({ page: PAGE, content: [{ image: png, width: 20 }, { image: png, width: 30 }] });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 2);
  const xobjects = r.pdf.toString('latin1').match(/\/Subtype\s*\/Image/g) ?? [];
  // One image and its soft mask.
  assert.equal(xobjects.length, 2, `image XObjects: ${xobjects.length}`);
});

test('an image is prepared once and copied into every document: at once, one after another, plain and PDF/A-1', async () => {
  const png = alphaPngDataUri(24, 12, 7);
  const definition = { page: PAGE, content: [{ image: '{{logo}}', width: 48 }] };
  const images = (pdf: Buffer) => execFileSync('pdfimages', ['-list', '-'], { input: pdf, encoding: 'utf8' }).split('\n').slice(2).filter(Boolean).map((l) => l.trim().split(/\s+/).slice(2, 7).join(' '));
  const together = await Promise.all([1, 2, 3].map(() => renderPdf(definition, { logo: png }, { now: NOW })));
  const after = await renderPdf(definition, { logo: png }, { now: NOW });
  for (const r of [...together, after]) {
    // type width height colour components: the colour image and its soft mask, in every document.
    assert.deepEqual(images(r.pdf), ['image 24 12 rgb 3', 'smask 24 12 gray 1']);
  }
  assert.ok(after.pdf.equals(together[0].pdf), 'the same input gives the same bytes whether or not the image was prepared before');
  const a1 = await renderPdf(definition, { logo: png }, { now: NOW, pdfVariant: 'pdf/a-1b' });
  assert.deepEqual(images(a1.pdf), ['image 24 12 rgb 3'], 'PDF/A-1 gets the flattened image, without a soft mask');
  const again = await renderPdf(definition, { logo: png }, { now: NOW });
  assert.deepEqual(images(again.pdf), ['image 24 12 rgb 3', 'smask 24 12 gray 1'], 'and the plain one is still the plain one');
});

test('an invalid data URI fails with IMAGE_INVALID naming the node', async () => {
  const e = await renderError({ content: [{ text: 'x' }, { stack: [{ text: 'y' }, { image: 'data:image/png;base64,AAAA' }] }] });
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.match(e.path ?? '', /^content\[1\]\.stack\[1\](\.image)?$/, `path ${e.path}`);
});

test('an image from data that is not a data URI (a URL) fails with IMAGE_INVALID naming the node', async () => {
  const e = await renderError({ content: [{ image: '{{logo}}' }] }, { logo: 'https://example.com/logo.png' });
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.match(e.path ?? '', /^content\[0\](\.image)?$/, `path ${e.path}`);
});

test('a PNG data URI whose bytes are garbage fails with IMAGE_INVALID', async () => {
  const junk = `data:image/png;base64,${Buffer.from('definitely not an image at all, sorry').toString('base64')}`;
  const e = await renderError({ content: [{ columns: [{ content: [{ image: junk }] }] }] });
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.match(e.path ?? '', /^content\[0\]\.columns\[0\]\.content\[0\](\.image)?$/, `path ${e.path}`);
});

test('a PNG with a sound header but corrupt pixel data fails with IMAGE_INVALID (not a crash later, in paint)', async () => {
  const png = encodePng(8, 8, (x, y) => [x * 30, y * 30, 0, 128]);
  const idat = png.indexOf('IDAT');
  png.fill(0x5a, idat + 4, idat + 4 + png.readUInt32BE(idat - 4)); // keep the length, scramble the zlib stream
  const e = await renderError({ content: [{ text: 'logo' }, { image: `data:image/png;base64,${png.toString('base64')}` }] });
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.match(e.message, /corrupt/);
  assert.match(e.path ?? '', /^content\[1\](\.image)?$/, `path ${e.path}`);
});

test('a QR code renders as vector fills of its size', async () => {
  const r = await render({ page: PAGE, content: [{ qrcode: '{{url}}', size: 96 }] }, { url: 'https://example.com/pay/123' });
  const [ops] = await pdfOperators(r.pdf);
  assert.ok(ops.fills >= 1, `fills: ${ops.fills}`);
  assert.ok(ops.names.includes('constructPath'));
  assert.equal(ops.images.length, 0, 'drawn as vectors, not an image');
  // The modules fill (most of) the 96 pt square at the top-left of the content area, never more.
  const box = unionBox(ops.filledBoxes);
  assert.ok(box.x >= MARGIN - 0.5 && box.y >= MARGIN - 0.5, `QR at ${JSON.stringify(box)}`);
  assert.ok(box.x + box.width <= MARGIN + 96 + 0.5 && box.y + box.height <= MARGIN + 96 + 0.5, `QR larger than 96: ${JSON.stringify(box)}`);
  assert.ok(box.width > 80 && near(box.width, box.height), `QR box ${JSON.stringify(box)}`);
});

test('a centred QR code is centred by textAlign', async () => {
  const r = await render({ page: PAGE, content: [{ qrcode: 'hello', size: 80, textAlign: 'center' }] });
  const [ops] = await pdfOperators(r.pdf);
  const box = unionBox(ops.filledBoxes);
  assert.ok(near(box.x + box.width / 2, 595.28 / 2, 1), `QR centre ${box.x + box.width / 2}`);
});

test('an EAN-13 barcode renders bars and its caption', async () => {
  const value = '4006381333931';
  const r = await render({ page: PAGE, content: [{ barcode: value, format: 'ean13' }] });
  const [ops] = await pdfOperators(r.pdf);
  assert.ok(ops.fills >= 1);
  assert.equal(r.doc.pages[0].text.replace(/\s+/g, ''), value);
  // Natural width: 1 pt per module (an EAN-13 symbol is 95 modules); default height 40.
  const bars = unionBox(ops.filledBoxes);
  assert.ok(near(bars.x, MARGIN) && near(bars.y, MARGIN), `bars at ${JSON.stringify(bars)}`);
  assert.ok(near(bars.width, 95, 1), `bars ${bars.width} wide`);
  assert.ok(bars.height >= 40 - 0.5 && bars.height <= 40 + 8, `bars ${bars.height} high`);
  // The caption is under the bars.
  const caption = r.doc.pages[0].runs.find((x) => x.str.trim() !== '')!;
  assert.ok(caption.y > bars.y + 30, `caption at ${caption.y}`);
});

test('a code128 barcode with a placeholder value renders bars and caption; showText false hides it', async () => {
  const r = await render(
    { page: PAGE, content: [{ barcode: '{{sku}}', format: 'code128', height: 30 }, { barcode: '{{sku}}', showText: false }, { text: 'END' }] },
    { sku: 'SKU-4711-X' },
  );
  const [ops] = await pdfOperators(r.pdf);
  assert.ok(ops.fills >= 2, `fills: ${ops.fills}`);
  assert.deepEqual(r.doc.pages[0].text.split('\n'), ['SKU-4711-X', 'END']);
  assert.ok(near(ops.filledBoxes[0].height, 30), `bar height ${ops.filledBoxes[0].height}`);
});

test('a barcode with a width is stretched to that width', async () => {
  const r = await render({ page: PAGE, content: [{ barcode: 'ABC', format: 'code128', width: 200, height: 25, showText: false }] });
  const [ops] = await pdfOperators(r.pdf);
  const bars = unionBox(ops.filledBoxes);
  assert.ok(near(bars.width, 200) && near(bars.height, 25), `bars ${bars.width} x ${bars.height}`);
});

test('an invalid EAN-13 value fails with BARCODE_INVALID and the node path', async () => {
  const e = await renderError({ content: [{ text: 'x' }, { barcode: '4006381333932', format: 'ean13' }] });
  assert.equal(e.code, 'BARCODE_INVALID');
  assert.match(e.path ?? '', /^content\[1\](\.barcode)?$/, `path ${e.path}`);
  const e2 = await renderError({ content: [{ stack: [{ barcode: '{{v}}', format: 'ean13' }] }] }, { v: 'ABCDEFGHIJKLM' });
  assert.equal(e2.code, 'BARCODE_INVALID');
  assert.match(e2.path ?? '', /^content\[0\]\.stack\[0\](\.barcode)?$/, `path ${e2.path}`);
});

test('a fault of a node an each made names its data item: a barcode, an image, inside a stack, in nested eaches', async () => {
  const codes = { content: [{ text: 'x' }, { each: 'items', as: 'i', content: [{ barcode: '{{i.v}}', format: 'ean13' }] }] };
  const e = await renderError(codes, { items: [{ v: '4006381333931' }, { v: '4006381333932' }] });
  assert.equal(e.code, 'BARCODE_INVALID');
  assert.equal(e.path, 'content[1].content[0].barcode');
  assert.match(e.message, /check digit.*; the node is made from data\.items\[1\]$/);
  const images = { content: [{ each: 'rows', content: [{ stack: [{ text: '{{item.name}}' }, { image: '{{item.logo}}' }] }] }] };
  const png = `data:image/png;base64,${encodePng(2, 2, () => [0, 0, 0, 255]).toString('base64')}`;
  const i = await renderError(images, { rows: [{ name: 'a', logo: png }, { name: 'b', logo: png }, { name: 'c', logo: 'data:image/png;base64,AAAA' }] });
  assert.equal(i.code, 'IMAGE_INVALID');
  assert.equal(i.path, 'content[0].content[0].stack[1].image');
  assert.match(i.message, /; the node is made from data\.rows\[2\]$/);
  // Nested: the inner item names the whole way, once.
  const nested = { content: [{ each: 'groups', as: 'g', content: [{ text: '{{g.name}}' }, { each: 'g.items', as: 'i', content: [{ qrcode: '{{i}}', size: 10, errorCorrection: 'H' }, { barcode: '{{i}}', format: 'ean8' }] }] }] };
  const n = await renderError(nested, { groups: [{ name: 'A', items: ['96385074'] }, { name: 'B', items: ['96385074', 'oops'] }] });
  assert.equal(n.code, 'BARCODE_INVALID');
  assert.match(n.message, /; the node is made from data\.groups\[1\]\.items\[1\]$/);
  assert.equal(n.message.match(/made from/g)!.length, 1);
  // A cell of a row an each made names the row's item, inside an outer each too.
  const cells = { content: [{ each: 'groups', as: 'g', content: [{ table: { rows: [{ each: 'g.items', as: 'i', row: ['{{i}}', { barcode: '{{i}}', format: 'ean8' }] }] } }] }] };
  const c = await renderError(cells, { groups: [{ items: ['96385074'] }, { items: ['96385074', 'oops'] }] });
  assert.equal(c.code, 'BARCODE_INVALID');
  assert.equal(c.path, 'content[0].content[0].table.rows[0].row[1].barcode');
  assert.match(c.message, /; the row is made from data\.groups\[1\]\.items\[1\]$/);
  assert.equal(c.message.match(/made from/g)!.length, 1);
});

test('a barcode scaled down to the page keeps its caption inside it: the caption broken again under narrower bars shrinks the bars further', async () => {
  const { layout, texts, flatItems } = await import('./helpers/layout.ts');
  // A6 (419.53 pt tall), margin 20: 379.53 pt of room. Scaled to it, "ABC123" took two lines.
  const pages = layout({ page: { size: 'A6', margin: 20 }, content: [{ barcode: 'ABC123', height: 1100 }] });
  assert.equal(pages.length, 1);
  const bars = flatItems(pages[0].items).filter((i) => i.kind === 'bars');
  assert.equal(bars.length, 1);
  const baselines = texts(pages[0]).map((t) => t.y);
  assert.ok(baselines.length >= 1 && Math.max(...baselines) <= 399.53, `caption baselines ${baselines}: past the bottom margin at 399.53`);
});

test('a code sized to a page\'s exact room moves to the next page when the room left is less (a rounding error placed it anyway, into the footer)', async () => {
  const { layout, texts } = await import('./helpers/layout.ts');
  const pages = layout({ page: { size: 'A6', margin: 20 }, font: { size: 12 }, footer: [{ stack: [], height: 150 }], content: [{ text: 'Intro' }, { barcode: 'ABC123', height: 428 }] });
  assert.equal(pages.length, 2);
  assert.deepEqual(texts(pages[0]).map((t) => t.text), ['Intro']);
  assert.ok(texts(pages[1]).some((t) => t.text === 'ABC123'));
});

test('an image with no room at all (a 0 pt wide stack) is not drawn, rather than drawn at its own size off the paper', async () => {
  const png = alphaPngDataUri(400, 100, 1);
  const svg = `data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100"><rect width="400" height="100"/></svg>')}`;
  for (const image of [png, svg]) {
    const r = await renderPdf({ page: { size: 'A5' }, content: [{ stack: [{ image }], padding: [0, 200] }, { text: 'after' }] }, {}, { now: NOW });
    const [page] = await pdfOperators(r.pdf);
    assert.equal(page.images.length, 0, 'no picture drawn');
    assert.equal(page.filledBoxes.length, 0, 'no SVG shape drawn');
    const clamped = r.warnings.find((w) => w.code === 'IMAGE_CLAMPED');
    assert.match(clamped?.message ?? '', /\(0 x [\d.]+ pt\): not drawn \(no room at all\)/);
  }
});
