/**
 * Image output (engine/raster): a page painted by Skia from the same placed boxes as the PDF. Read
 * back as pixels: the PNG and poppler's rendering of the PDF page at the same resolution agree.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { PNG } from 'pngjs';
import { imagePixelSize, RenderError, renderImage, renderPdf } from '../../engine/index.ts';
import { paintImage } from '../../engine/raster/raster.ts';
import type { Page } from '../../engine/layout/nodes.ts';
import { alphaPngDataUri, JPEG_16, withExifOrientation } from '../helpers/images.ts';
import { pdfOperators } from '../helpers/pdfops.ts';
import { example, NOW } from '../helpers/render.ts';
import { docArb } from './helpers/generated-docs.ts';

type Pixels = { width: number; height: number; data: Buffer };

/** Page `page` of a PDF as pixels, rendered by pdftoppm at `dpi`. */
function pdfPage(pdf: Buffer, page: number, dpi: number): Pixels {
  const dir = mkdtempSync(join(tmpdir(), 'platen-raster-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
    return PNG.sync.read(readFileSync(join(dir, 'out.png')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mean absolute difference of the RGB channels (0-255) over the common area. */
function meanDifference(a: Pixels, b: Pixels): number {
  const w = Math.min(a.width, b.width);
  const h = Math.min(a.height, b.height);
  let sum = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * a.width + x) * 4;
      const j = (y * b.width + x) * 4;
      sum += Math.abs(a.data[i] - b.data[j]) + Math.abs(a.data[i + 1] - b.data[j + 1]) + Math.abs(a.data[i + 2] - b.data[j + 2]);
    }
  }
  return sum / (w * h * 3);
}

/**
 * Mean absolute difference (0-255) of the two images' grey levels after a 5 x 5 box blur: the
 * antialiasing of dense small text, which poppler and Skia place a fraction of a pixel apart,
 * averages out; a missing or misplaced item does not. (With a 3 x 3 blur a small page filled with
 * 8 pt text measured 7.8, at the test's bound, though both images showed the same text; 5.7 with
 * 5 x 5, against 17 with half of its lines missing.)
 */
function blurredDifference(a: Pixels, b: Pixels): number {
  const w = Math.min(a.width, b.width);
  const h = Math.min(a.height, b.height);
  const grey = (p: Pixels) => {
    const g = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const i = (y * p.width + x) * 4;
      g[y * w + x] = (p.data[i] + p.data[i + 1] + p.data[i + 2]) / 3;
    }
    return g;
  };
  const blur = (g: Float32Array) => {
    const out = new Float32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      let t = 0;
      let n = 0;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) {
        const xx = x + dx;
        const yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        t += g[yy * w + xx];
        n++;
      }
      out[y * w + x] = t / n;
    }
    return out;
  };
  const ga = blur(grey(a));
  const gb = blur(grey(b));
  let sum = 0;
  for (let i = 0; i < ga.length; i++) sum += Math.abs(ga[i] - gb[i]);
  return sum / ga.length;
}

/** Share of pixels that are not white. */
function inked(p: Pixels): number {
  let n = 0;
  for (let i = 0; i < p.data.length; i += 4) if (p.data[i] < 250 || p.data[i + 1] < 250 || p.data[i + 2] < 250) n++;
  return n / (p.width * p.height);
}

/** Every kind of draw item the PDF paint draws: text with decorations, fills, borders, rules, images, codes, bullets. */
const everything = {
  page: { size: 'A5', margin: 30 },
  content: [
    { text: 'Image output', fontSize: 22, fontWeight: 'bold', color: '#1f4e79' },
    { text: [{ text: 'underlined ', textDecoration: 'underline' }, { text: 'struck', textDecoration: 'line-through' }, ' and plain, with kerning: AVATAR Wolf'] },
    { line: { thickness: 2, color: '#c00000', dash: [6, 3] }, margin: [6, 0, 6, 0] },
    {
      table: {
        columns: ['*', 60, 80],
        header: [['Item', 'Qty', 'Price']],
        rows: [
          ['Paper', '2', '€4.00'],
          ['Toner', '1', '€80.00'],
        ],
        borders: 'all',
      },
    },
    { list: ['first bullet', 'second bullet'], marker: 'disc' },
    { list: ['circle'], marker: 'circle' },
    { list: ['square'], marker: 'square' },
    { columns: [{ width: 80, content: [{ image: alphaPngDataUri(40, 20), width: 80 }] }, { width: 60, content: [{ image: JPEG_16.dataUri, width: 60 }] }, { width: '*', content: [{ qrcode: 'https://example.com/pay', size: 70 }] }] },
    { barcode: '4006381333931', format: 'ean13', height: 40 },
    { text: 'مرحبا بالعالم · שלום · हिन्दी', fontSize: 14 },
  ],
};

test('a PNG and poppler\'s rendering of the same PDF page agree (every kind of draw item)', async () => {
  const pdf = await renderPdf(everything, {}, { now: NOW });
  const png = await renderImage(everything, {}, { now: NOW, scale: 2 });
  const image = PNG.sync.read(png.image);
  const reference = pdfPage(pdf.pdf, 1, 144);
  assert.equal(image.width, reference.width);
  assert.equal(image.height, reference.height);
  assert.ok(inked(image) > 0.02, `the image is nearly blank (${inked(image)})`);
  const diff = meanDifference(image, reference);
  assert.ok(diff < 6, `mean difference ${diff.toFixed(2)} of 255`);
});

test('the examples\' PNGs agree with their PDFs page for page (invoice page 1, report page 3)', async () => {
  for (const [name, page] of [
    ['invoice', 1],
    ['report', 3],
  ] as const) {
    const { template, data } = example(name);
    const pdf = await renderPdf(template, data, { now: NOW });
    const png = await renderImage(template, data, { now: NOW, scale: 1.5, page });
    assert.equal(png.pages, pdf.pages);
    const diff = meanDifference(PNG.sync.read(png.image), pdfPage(pdf.pdf, page, 108));
    assert.ok(diff < 6, `${name} page ${page}: mean difference ${diff.toFixed(2)} of 255`);
  }
});

test('the page asked for is painted, and a page past the last one is PAGE_OUT_OF_RANGE naming page', async () => {
  const doc = { content: [{ text: 'one' }, { pageBreak: true }, { text: 'two', fontSize: 60 }] };
  const first = await renderImage(doc, {}, { page: 1, scale: 1 });
  const second = await renderImage(doc, {}, { page: 2, scale: 1 });
  assert.equal(first.pages, 2);
  assert.ok(inked(PNG.sync.read(second.image)) > inked(PNG.sync.read(first.image)) * 3, 'page 2 holds the large text');
  await assert.rejects(renderImage(doc, {}, { page: 3 }), (e: unknown) => e instanceof RenderError && e.code === 'PAGE_OUT_OF_RANGE' && e.path === 'page' && /2 pages/.test(e.message));
});

test('scale sets the pixels per point; JPEG output is a JPEG; too many pixels is LIMIT_EXCEEDED naming scale', async () => {
  const doc = { page: { size: [200, 100], margin: 10 }, content: [{ text: 'Hello', color: '#ff0000' }] };
  const png = await renderImage(doc, {}, { scale: 3 });
  assert.deepEqual([png.width, png.height], [600, 300]);
  assert.deepEqual(imagePixelSize(doc, 3), { width: 600, height: 300 });
  assert.equal(png.image.subarray(1, 4).toString('latin1'), 'PNG');
  const jpeg = await renderImage(doc, {}, { format: 'jpeg', scale: 0.5 });
  assert.deepEqual([jpeg.image[0], jpeg.image[1], jpeg.image[2]], [0xff, 0xd8, 0xff]);
  assert.deepEqual([jpeg.width, jpeg.height], [100, 50]);
  await assert.rejects(renderImage(doc, {}, { scale: 8, maxPixels: 1_000_000 }), (e: unknown) => e instanceof RenderError && e.code === 'LIMIT_EXCEEDED' && e.path === 'scale');
});

test('a watermark is painted into the image as into the PDF', async () => {
  const doc = { content: [{ text: 'body' }] };
  const plain = PNG.sync.read((await renderImage(doc, {}, { scale: 0.5 })).image);
  const marked = PNG.sync.read((await renderImage(doc, {}, { scale: 0.5, watermark: 'PREVIEW' })).image);
  assert.ok(meanDifference(plain, marked) > 1, 'the mark changes the picture');
  const pdf = await renderPdf(doc, {}, { watermark: 'PREVIEW' });
  assert.ok(meanDifference(marked, pdfPage(pdf.pdf, 1, 36)) < 4);
});

test('a draw item kind the raster backend does not know fails clearly instead of being left out', async () => {
  const page = { width: 100, height: 100, items: [{ kind: 'hologram', x: 0, y: 0 }] } as unknown as Page;
  await assert.rejects(paintImage(page, { format: 'png', scale: 1, maxPixels: 1e6 }), (e: unknown) => e instanceof RenderError && e.code === 'RENDER_ERROR' && /"hologram"/.test(e.message));
});

/** The layout features drawn through groups, clips and rounded paths: absolute, rotated, translucent, rounded, SVG. */
const features = {
  page: { size: [400, 300], margin: 20 },
  content: [
    { text: 'EXPRESS', fontSize: 22, fontWeight: 'bold', color: '#ffffff', backgroundColor: '#b3261e', padding: [4, 8], position: 'absolute', top: 14, right: 14, borderRadius: 6 },
    { text: 'RETURN TO SENDER', fontSize: 12, rotate: -90, position: 'absolute', left: 10, top: 150 },
    { text: 'translucent', fontSize: 30, color: '#1f4e79', opacity: 0.4 },
    { stack: [{ text: 'FRAGILE', fontWeight: 'bold', textAlign: 'center' }], width: 120, height: 40, padding: 8, border: { width: 2 }, borderRadius: 10 },
    { image: alphaPngDataUri(40, 40, 7), width: 60, height: 60, fit: 'cover', borderRadius: 30 },
    { image: `data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"><circle cx="5" cy="5" r="4" fill="#c00000"/><rect x="11" y="2" width="7" height="6" fill="#1f4e79"/></svg>')}`, width: 100 },
  ],
};

test('absolute, rotated, translucent and rounded boxes, clipped images and SVG agree with the PDF', async () => {
  const pdf = await renderPdf(features, {}, { now: NOW });
  const png = PNG.sync.read((await renderImage(features, {}, { now: NOW, scale: 2 })).image);
  const diff = meanDifference(png, pdfPage(pdf.pdf, 1, 144));
  assert.ok(diff < 6, `mean difference ${diff.toFixed(2)} of 255`);
  assert.ok(inked(png) > 0.05);
});

test('renders at once in one thread (the canvas is reused) give what they give one by one, PNG and JPEG', async () => {
  const docs = ['one', 'two', 'three'].map((word, i) => ({ page: { size: [200, 100], margin: 10 }, content: [{ text: word, fontSize: 20 + i * 10, color: ['#c00000', '#00a000', '#0000c0'][i] }, { image: alphaPngDataUri(8, 8, i), width: 30 }] }));
  for (const format of ['png', 'jpeg'] as const) {
    const alone: Buffer[] = [];
    for (const doc of docs) alone.push((await renderImage(doc, {}, { format, scale: 1 })).image);
    const together = await Promise.all(docs.map((doc) => renderImage(doc, {}, { format, scale: 1 })));
    together.forEach((r, i) => assert.ok(r.image.equals(alone[i]), `${format} ${i}`));
  }
});

test('property: for generated documents (tables, spans, stripes, images, codes, long words) every page image agrees with the PDF page', async () => {
  await fc.assert(
    fc.asyncProperty(docArb, fc.nat(), async (doc, pick) => {
      let pdf;
      try {
        pdf = await renderPdf(doc.definition, doc.data, { now: NOW });
      } catch (e) {
        // A document the engine refuses (too many pages) is refused the same way as an image.
        assert.ok(e instanceof RenderError, String(e));
        await assert.rejects(renderImage(doc.definition, doc.data, { now: NOW }), (f: unknown) => f instanceof RenderError && f.code === e.code);
        return;
      }
      const page = 1 + (pick % pdf.pages);
      const png = await renderImage(doc.definition, doc.data, { now: NOW, scale: 1.5, page });
      assert.equal(png.pages, pdf.pages);
      const image = PNG.sync.read(png.image);
      const reference = pdfPage(pdf.pdf, page, 108);
      assert.deepEqual([image.width, image.height], [reference.width, reference.height]);
      const diff = blurredDifference(image, reference);
      assert.ok(diff < 8, `page ${page} of ${pdf.pages}: mean difference (blurred) ${diff.toFixed(2)} of 255`);
    }),
    { numRuns: 10 },
  );
});

test('a JPEG with an EXIF orientation that turns it a quarter is laid out, drawn and rasterized turned, undistorted', async () => {
  const { createCanvas } = await import('@napi-rs/canvas');
  // Stored 200 x 100: top half red, bottom half blue. Orientation 6 shows it turned a quarter
  // clockwise, 100 x 200: the stored top (red) on the right.
  const canvas = createCanvas(200, 100);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ff0000';
  ctx.fillRect(0, 0, 200, 50);
  ctx.fillStyle = '#0000ff';
  ctx.fillRect(0, 50, 200, 50);
  const jpeg = withExifOrientation(canvas.encodeSync('jpeg', 95), 6);
  const template = { page: { size: [200, 300], margin: 10 }, content: [{ image: `data:image/jpeg;base64,${jpeg.toString('base64')}`, width: 90 }] };
  const pdf = await renderPdf(template, {}, { now: NOW });
  const [ops] = await pdfOperators(pdf.pdf);
  assert.equal(ops.images.length, 1);
  assert.ok(Math.abs(ops.images[0].width - 90) < 0.5 && Math.abs(ops.images[0].height - 180) < 0.5, `drawn ${ops.images[0].width} x ${ops.images[0].height}, expected 90 x 180`);
  const png = await renderImage(template, {}, { now: NOW, scale: 1 });
  for (const [what, px] of [['PDF', pdfPage(pdf.pdf, 1, 72)], ['PNG', PNG.sync.read(png.image)]] as const) {
    const at = (x: number, y: number) => [...px.data.subarray((y * px.width + x) * 4, (y * px.width + x) * 4 + 3)];
    const [left, right, below] = [at(10 + 22, 10 + 90), at(10 + 67, 10 + 90), at(10 + 45, 10 + 185)];
    assert.ok(left[2] > 180 && left[0] < 80, `${what}: left half blue, got ${left}`);
    assert.ok(right[0] > 180 && right[2] < 80, `${what}: right half red, got ${right}`);
    assert.ok(below.every((c) => c > 240), `${what}: nothing below the 180 pt picture, got ${below}`);
  }
});
