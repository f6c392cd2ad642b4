/**
 * Layout features of labels, certificates and long documents: page sizes with units, fixed-size
 * and absolutely positioned boxes, rotation, opacity, rounded corners, template watermarks, text
 * that shrinks to fit, internal links, outlines, tables of contents and page-break variants. Each
 * is read back from the PDF (pdf.js positions, operators, annotations).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { test } from 'node:test';
import fc from 'fast-check';
import { PNG } from 'pngjs';
import { renderPdf, RenderError } from '../../engine/index.ts';
import { parseTemplate } from '../../engine/template/schema.ts';
import { encodePng } from '../helpers/images.ts';
import { readPdf } from '../helpers/pdf.ts';
import { pdfOperators, textLines } from '../helpers/pdfops.ts';
import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { NOW, render } from '../helpers/render.ts';

/** The PDF's bytes with every Flate stream inflated (operators and dictionaries searchable). */
function pdfText(pdf: Buffer): string {
  const raw = pdf.toString('latin1');
  let out = raw;
  const re = /stream\r?\n/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(raw)) !== null) {
    const start = m.index + m[0].length;
    const end = raw.indexOf('endstream', start);
    try {
      out += '\n' + inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      // not a Flate stream
    }
  }
  return out;
}

test('page sizes with units: inches, millimetres, centimetres and points', async () => {
  const cases: [string, number, number][] = [
    ['4x6in', 288, 432],
    ['100x150mm', 283.46, 425.2],
    ['210x297mm', 595.28, 841.89],
    ['8.5x11in', 612, 792],
    ['595x842pt', 595, 842],
    ['10 x 15 cm', 283.46, 425.2],
    ['4X6IN', 288, 432],
  ];
  for (const [size, w, h] of cases) {
    const { doc } = await render({ page: { size }, content: [{ text: 'x' }] });
    assert.ok(Math.abs(doc.pages[0].width - w) < 0.02 && Math.abs(doc.pages[0].height - h) < 0.02, `${size}: ${doc.pages[0].width} x ${doc.pages[0].height}`);
  }
  // Landscape turns a unit size like a named one.
  const { doc } = await render({ page: { size: '4x6in', orientation: 'landscape' }, content: [{ text: 'x' }] });
  assert.deepEqual([doc.pages[0].width, doc.pages[0].height], [432, 288]);
});

test('a bad page size is refused with its path and what is accepted', () => {
  for (const size of ['4x6', '4x6ft', 'x6in', '0.01x6in', '300x6in', 'A7']) {
    const r = parseTemplate({ page: { size }, content: [] });
    assert.equal(r.ok, false, size);
    if (r.ok) continue;
    assert.equal(r.errors[0].path, 'page.size', size);
    assert.match(r.errors[0].message, /4x6in|pt/, size);
  }
});

const pageOf = (doc: { pages: { text: string }[] }, needle: string): number => doc.pages.findIndex((p) => p.text.includes(needle)) + 1;

test('pageBreak "before" and "after" on any node; {"pageBreak": true} still ends the page', async () => {
  const { doc } = await render({
    content: [
      { text: 'Alpha' },
      { text: 'Beta', pageBreak: 'before' },
      { stack: [{ text: 'Gamma' }, { text: 'Delta', pageBreak: 'after' }] },
      { text: 'Epsilon' },
      { pageBreak: true },
      { text: 'Zeta' },
    ],
  });
  assert.deepEqual(['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta'].map((w) => pageOf(doc, w)), [1, 2, 2, 2, 3, 4]);
  // A break after the last node adds no empty page.
  const last = await render({ content: [{ text: 'only', pageBreak: 'after' }] });
  assert.equal(last.pages, 1);
});

test('pageBreak "avoid" keeps a node whole and with the next one', async () => {
  const para = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');
  const filler = { text: para(55) };
  // Without avoid the paragraph is cut; with it, it moves whole to page 2.
  const cut = await render({ content: [filler, { text: `KEEP\n${para(10)}` }] });
  assert.equal(pageOf(cut.doc, 'KEEP'), 1);
  const kept = await render({ content: [filler, { text: `KEEP\n${para(10)}`, pageBreak: 'avoid' }] });
  assert.equal(pageOf(kept.doc, 'KEEP'), 2);
  assert.ok(kept.doc.pages[1].text.includes('line 9'));
  // A heading with avoid goes with the paragraph after it.
  const heading = await render({ content: [{ text: para(57) }, { text: 'HEADING', pageBreak: 'avoid' }, { text: `after\n${para(8)}`, widows: 4, orphans: 4 }] });
  assert.equal(pageOf(heading.doc, 'HEADING'), pageOf(heading.doc, 'after'));
});

test('pageBreak must be before, after or avoid on a node; true is the page break node', () => {
  const r = parseTemplate({ content: [{ text: 'x', pageBreak: 'later' }] });
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.errors[0].path, 'content[0].pageBreak');
  assert.equal(parseTemplate({ content: [{ text: 'x', pageBreak: 'after' }, { pageBreak: true }] }).ok, true);
  assert.equal(parseTemplate({ styles: { chapter: { pageBreak: 'before' } }, content: [{ text: 'x', style: 'chapter' }] }).ok, true);
});

// ---------------------------------------------------------------------------------------------
// Fixed size, absolute position, rotation, opacity, rounded corners.

const near = (a: number, b: number, tol = 0.6) => Math.abs(a - b) <= tol;

/** The RGB of pixel (x, y) (points at 72 dpi) of page 1. */
function pixelAt(pdf: Buffer, x: number, y: number): [number, number, number] {
  const dir = mkdtempSync(join(tmpdir(), 'lf-'));
  try {
    writeFileSync(join(dir, 'a.pdf'), pdf);
    execFileSync('pdftoppm', ['-png', '-r', '72', '-f', '1', '-l', '1', '-singlefile', join(dir, 'a.pdf'), join(dir, 'p')]);
    const png = PNG.sync.read(readFileSync(join(dir, 'p.png')));
    const i = (Math.round(y) * png.width + Math.round(x)) * 4;
    return [png.data[i], png.data[i + 1], png.data[i + 2]];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('width and height make a box of that size; content taller than the height is cut off (CONTENT_CLIPPED)', async () => {
  const def = {
    page: { size: [300, 300], margin: 20 },
    content: [
      { stack: [{ text: 'Label' }], width: 100, height: 50, backgroundColor: '#ff0000' },
      { text: 'After' },
      { stack: [{ text: 'a\nb\nc\nd\ne\nf\ng\nh' }], height: 30, width: 60, backgroundColor: '#00ff00' },
    ],
  };
  const r = await renderPdf(def, {}, { now: NOW });
  const [ops] = await pdfOperators(r.pdf);
  const red = ops.filledBoxes[0];
  assert.ok(near(red.x, 20) && near(red.y, 20) && near(red.width, 100) && near(red.height, 50), JSON.stringify(red));
  const doc = await readPdf(r.pdf);
  const after = doc.pages[0].runs.find((x) => x.str === 'After')!;
  assert.ok(after.y > 70 && after.y < 85, `After at ${after.y}`);
  // The clipped box: its text stops at its bottom edge (the lines are drawn, the clip hides them).
  assert.ok(pdfText(r.pdf).includes(' W n'), 'a clip path');
  assert.deepEqual(r.warnings.map((w) => [w.code, w.path]), [['CONTENT_CLIPPED', 'content[2]']]);
});

test('absolute boxes: placed from the page or the parent, taking no room in the flow', async () => {
  const def = {
    page: { size: '4x6in', margin: 20 },
    content: [
      { text: 'TOPRIGHT', position: 'absolute', top: 10, right: 10 },
      { text: 'First' },
      { stack: [{ text: 'Inner' }, { text: 'CORNER', position: 'absolute', relativeTo: 'parent', right: 0, bottom: 0 }, { text: 'Second line' }], margin: [100, 0, 0, 0] },
      { text: 'FOOT', position: 'absolute', bottom: 5, left: 7 },
    ],
  };
  const { doc } = await render(def);
  const p = doc.pages[0];
  const run = (s: string) => p.runs.find((x) => x.str === s)!;
  // No room taken: "First" starts at the top margin.
  assert.ok(run('First').y < 20 + 12, `First at ${run('First').y}`);
  assert.ok(near(run('TOPRIGHT').x + run('TOPRIGHT').width, 288 - 10, 1) && run('TOPRIGHT').y < 10 + 12, JSON.stringify(run('TOPRIGHT')));
  assert.ok(near(run('FOOT').x, 7) && run('FOOT').y < 432 - 5 && run('FOOT').y > 432 - 20, JSON.stringify(run('FOOT')));
  // Parent-relative: the stack's right edge (288 - 20) and the bottom of its two lines.
  const corner = run('CORNER');
  assert.ok(near(corner.x + corner.width, 268, 1), JSON.stringify(corner));
  assert.ok(near(corner.y, run('Second line').y, 1), `${corner.y} vs ${run('Second line').y}`);
});

test('an absolute box placed from the bottom of a parent that is cut across pages goes with the parent\'s last part; one from its top stays with the first', async () => {
  const lines = Array.from({ length: 11 }, (_, i) => ({ text: `line ${i + 1}` }));
  const boxes = [{ text: 'BADGE', position: 'absolute', relativeTo: 'parent', bottom: 0, right: 0 }, { text: 'TOP', position: 'absolute', relativeTo: 'parent', top: 0, right: 0 }];
  // Written before the lines, and after them: the place does not depend on the order.
  for (const children of [[...boxes, ...lines], [...lines, ...boxes]]) await absoluteInCutParent(children, lines);
  // A stack that moves whole to the next page draws what its children placed there only once.
  const moved = await renderPdf({ page: { size: [200, 200], margin: 20 }, content: [{ spacer: 155 }, { stack: [{ text: 'DEFER', position: 'absolute', relativeTo: 'parent', top: 0, right: 0 }, { stack: [{ text: 'tiny', fontSize: 3, position: 'absolute', relativeTo: 'parent', top: 0, left: 0 }, { text: 'body text' }] }] }] }, {}, { now: NOW });
  const runs = (await readPdf(moved.pdf)).pages.flatMap((p) => p.runs.map((x) => x.str));
  assert.deepEqual(runs.filter((s) => s === 'tiny' || s === 'DEFER').sort(), ['DEFER', 'tiny']);
});

test('an absolute box placed from the bottom of a short column goes with the last part of columns cut across pages', async () => {
  const long = Array.from({ length: 30 }, (_, i) => ({ text: `row ${i + 1}` }));
  for (const stamp of [{ bottom: 0 }, { top: 300 }]) {
    const def = { page: { size: [200, 200], margin: 20 }, content: [{ columns: [
      { content: [{ text: 'short' }, { text: 'STAMP', position: 'absolute', relativeTo: 'parent', left: 0, ...stamp }] },
      { content: long },
    ] }, { text: 'after' }] };
    const r = await renderPdf(def, {}, { now: NOW });
    assert.deepEqual(r.warnings, [], 'nothing had to be moved onto the page');
    const doc = await readPdf(r.pdf);
    const where = (str: string) => doc.pages.flatMap((p, i) => p.runs.filter((x) => x.str === str).map((x) => ({ page: i, y: x.y })));
    const stamps = where('STAMP');
    assert.equal(stamps.length, 1, JSON.stringify(stamp));
    const [last] = where('row 30');
    const [first] = where('row 1');
    if ('bottom' in stamp) {
      assert.equal(stamps[0].page, last.page, 'from the bottom: on the page of the columns\' last line');
      assert.ok(near(stamps[0].y, last.y, 1), `stamp baseline ${stamps[0].y}, last line ${last.y}`);
    } else {
      // 300 pt from the columns' top: two pages of 160 pt down, 140 into the second.
      assert.equal(stamps[0].page, first.page + 1, 'from the top: in the part its top falls in');
      assert.ok(stamps[0].y > 20 && stamps[0].y < 200, `stamp baseline ${stamps[0].y}`);
    }
  }
});

async function absoluteInCutParent(children: unknown[], lines: { text: string }[]): Promise<void> {
  const def = { page: { size: [200, 200], margin: 20 }, content: [{ spacer: 100 }, { stack: children, border: { width: 1 }, padding: 4 }] };
  const r = await renderPdf(def, {}, { now: NOW });
  assert.deepEqual(r.warnings, [], 'nothing had to be moved onto the page');
  const doc = await readPdf(r.pdf);
  const where = (s: string) => doc.pages.flatMap((p, i) => p.runs.filter((x) => x.str === s).map((x) => ({ page: i, x: x.x + x.width, y: x.y })));
  const [badge] = where('BADGE');
  const [last] = where('line 11');
  assert.equal(badge.page, last.page, 'the badge is on the page of the last line');
  assert.ok(near(badge.y, last.y, 1), `badge baseline ${badge.y}, last line ${last.y}`);
  assert.ok(near(badge.x, 200 - 20 - 1 - 4, 1), `badge ends at ${badge.x}`);
  const [top] = where('TOP');
  const [firstLine] = where('line 1');
  assert.equal(top.page, firstLine.page, 'the box from the top stays on the first part');
  assert.ok(near(top.y, firstLine.y, 1), `top ${top.y}, line 1 ${firstLine.y}`);
  assert.equal(where(lines[lines.length - 1].text).length, 1);
}

test('property: a parent-relative absolute box in a stack cut across pages is drawn once, on the page, and every line once in order', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 45 }), fc.integer({ min: 0, max: 150 }), fc.boolean(), fc.integer({ min: 0, max: 60 }), async (n, before, fromBottom, offset) => {
      const lines = Array.from({ length: n }, (_, i) => ({ text: `line ${i + 1}` }));
      const badge = { text: 'BADGE', position: 'absolute', relativeTo: 'parent', right: 0, ...(fromBottom ? { bottom: offset } : { top: offset }) };
      const r = await renderPdf({ page: { size: [200, 200], margin: 20 }, content: [{ spacer: before }, { stack: [badge, ...lines], padding: 4 }] }, {}, { now: NOW });
      const doc = await readPdf(r.pdf);
      const runs = doc.pages.flatMap((p) => p.runs);
      assert.deepEqual(runs.filter((x) => x.str.startsWith('line')).map((x) => x.str), lines.map((l) => l.text));
      const badges = runs.filter((x) => x.str === 'BADGE');
      assert.equal(badges.length, 1);
      assert.ok(badges[0].y > 0 && badges[0].y <= 200, `badge at ${badges[0].y}`);
    }),
    { numRuns: 40 },
  );
});

test('a box that would leave the page is moved onto it, or scaled down, with BOX_CLAMPED', async () => {
  const r = await renderPdf({ page: { size: [200, 200], margin: 10 }, content: [{ text: 'AWAY', fontSize: 20, position: 'absolute', top: 190, left: 185 }, { stack: [{ text: 'BIG' }], position: 'absolute', top: 0, left: 0, width: 400, height: 150, backgroundColor: '#0000ff', rotate: 45 }] }, {}, { now: NOW });
  const doc = await readPdf(r.pdf);
  const away = doc.pages[0].runs.find((x) => x.str === 'AWAY')!;
  assert.ok(away.x >= 0 && away.x + away.width <= 200.5 && away.y <= 200, JSON.stringify(away));
  const [ops] = await pdfOperators(r.pdf);
  for (const b of ops.filledBoxes) assert.ok(b.x >= -0.5 && b.y >= -0.5 && b.x + b.width <= 200.5 && b.y + b.height <= 200.5, JSON.stringify(b));
  assert.deepEqual(r.warnings.map((w) => w.code), ['WIDTH_CLAMPED', 'BOX_CLAMPED', 'BOX_CLAMPED']);
});

test('rotate turns a box clockwise about its centre; it keeps its place in the flow', async () => {
  const box = { stack: [], width: 100, height: 20, backgroundColor: '#ff0000', margin: [60, 0, 60, 100] };
  const flat = (await pdfOperators((await renderPdf({ page: { size: [400, 400], margin: 20 }, content: [box, { text: 'Next' }] }, {})).pdf))[0].filledBoxes[0];
  const r = await renderPdf({ page: { size: [400, 400], margin: 20 }, content: [{ ...box, rotate: 90 }, { text: 'Next' }] }, {});
  const turned = (await pdfOperators(r.pdf))[0].filledBoxes[0];
  assert.ok(near(turned.width, 20) && near(turned.height, 100), JSON.stringify(turned));
  assert.ok(near(turned.x + turned.width / 2, flat.x + flat.width / 2) && near(turned.y + turned.height / 2, flat.y + flat.height / 2));
  const next = (await readPdf(r.pdf)).pages[0].runs.find((x) => x.str === 'Next')!;
  assert.ok(next.y > 20 + 60 + 20 + 60, `Next at ${next.y}`);
  // Rotated text reads along its angle.
  const t = await readPdf((await renderPdf({ content: [{ text: 'SLANTED', rotate: -30, margin: [100, 0, 0, 100] }] }, {})).pdf);
  assert.ok(t.pages[0].runs.some((x) => x.str === 'SLANTED'));
});

test('opacity draws fills and strokes translucent; PDF/A-1b refuses it with its path, PDF/A-2b keeps it', async () => {
  const def = { content: [{ text: 'x' }, { text: 'faint', opacity: 0.3, backgroundColor: '#ff0000' }] };
  const r = await renderPdf(def, {});
  assert.match(pdfText(r.pdf), /\/ca 0\.3/);
  assert.match(pdfText(r.pdf), /\/CA 0\.3/);
  const [r1, g1] = pixelAt(r.pdf, 45, 55);
  assert.ok(r1 > 240 && g1 > 150 && g1 < 200, `a light red: ${r1},${g1}`);
  await assert.rejects(renderPdf(def, {}, { pdfVariant: 'pdf/a-1b' }), (e: RenderError) => e.code === 'PDFA_CONFLICT' && e.path === 'content[1].opacity');
  await assert.rejects(renderPdf({ styles: { faint: { opacity: 0.5 } }, content: [{ text: 'y', style: 'faint' }] }, {}, { pdfVariant: 'pdf/a-1b' }), (e: RenderError) => e.path === 'styles.faint.opacity');
  assert.match(pdfText((await renderPdf(def, {}, { pdfVariant: 'pdf/a-2b' })).pdf), /\/ca 0\.3/);
});

test('borderRadius rounds backgrounds, borders and images', async () => {
  const square = { stack: [], width: 100, height: 100, backgroundColor: '#0000ff', margin: [0, 0, 0, 0] };
  const page = { size: [200, 200], margin: 20 };
  const plain = await renderPdf({ page, content: [square] }, {});
  const rounded = await renderPdf({ page, content: [{ ...square, borderRadius: 30 }] }, {});
  assert.deepEqual(pixelAt(plain.pdf, 22, 22), [0, 0, 255]);
  assert.deepEqual(pixelAt(rounded.pdf, 22, 22), [255, 255, 255]);
  assert.deepEqual(pixelAt(rounded.pdf, 70, 70), [0, 0, 255]);
  const red = `data:image/png;base64,${encodePng(10, 10, () => [255, 0, 0, 255]).toString('base64')}`;
  const img = await renderPdf({ page, content: [{ image: red, width: 100, height: 100, borderRadius: 50 }] }, {});
  assert.deepEqual(pixelAt(img.pdf, 22, 22), [255, 255, 255]);
  assert.deepEqual(pixelAt(img.pdf, 70, 70), [255, 0, 0]);
});

test('property: absolute and rotated boxes never paint outside the page', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          top: fc.option(fc.integer({ min: -300, max: 600 }), { nil: undefined }),
          left: fc.option(fc.integer({ min: -300, max: 600 }), { nil: undefined }),
          right: fc.option(fc.integer({ min: -300, max: 600 }), { nil: undefined }),
          bottom: fc.option(fc.integer({ min: -300, max: 600 }), { nil: undefined }),
          width: fc.option(fc.integer({ min: 5, max: 900 }), { nil: undefined }),
          height: fc.option(fc.integer({ min: 5, max: 900 }), { nil: undefined }),
          rotate: fc.integer({ min: -360, max: 360 }),
          absolute: fc.boolean(),
          words: fc.integer({ min: 1, max: 12 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      async (boxes) => {
        const content = boxes.map((b) => ({
          stack: [{ text: 'word '.repeat(b.words) }],
          backgroundColor: '#336699',
          ...(b.absolute ? { position: 'absolute', top: b.top, left: b.left, right: b.right, bottom: b.bottom } : {}),
          ...(b.width !== undefined ? { width: b.width } : {}),
          ...(b.height !== undefined ? { height: b.height } : {}),
          rotate: b.rotate,
        }));
        const r = await renderPdf({ page: { size: '4x6in', margin: 18 }, content }, {});
        const ops = await pdfOperators(r.pdf);
        const doc = await readPdf(r.pdf);
        for (const [i, p] of ops.entries()) {
          for (const f of p.filledBoxes) assert.ok(f.x >= -0.5 && f.y >= -0.5 && f.x + f.width <= p.width + 0.5 && f.y + f.height <= p.height + 0.5, `page ${i + 1}: fill ${JSON.stringify(f)}`);
          // Text cut off by a fixed height is in the file but hidden by the clip: only drawn text counts.
          if (r.warnings.some((w) => w.code === 'CONTENT_CLIPPED')) continue;
          for (const t of doc.pages[i].runs) assert.ok(t.x >= -1 && t.y >= -1 && t.x <= p.width + 1 && t.y <= p.height + 1, `page ${i + 1}: text ${JSON.stringify(t)}`);
        }
      },
    ),
    { numRuns: 12 },
  );
});

// ---------------------------------------------------------------------------------------------
// fit: "shrink"

test('fit shrink: "EXPRESS" in a 70 pt label cell stays one word at a smaller size', async () => {
  const cell = (fit: boolean) => ({ text: 'EXPRESS', fontSize: 24, fontWeight: 'bold', ...(fit ? { fit: 'shrink' } : {}) });
  const table = (fit: boolean) => ({ page: { size: '4x6in' }, content: [{ table: { columns: [70, '*'], rows: [[cell(fit), 'Service']] } }] });
  const broken = await render(table(false));
  assert.ok(!broken.doc.pages[0].runs.some((x) => x.str === 'EXPRESS'), 'without fit the word is broken');
  const r = await renderPdf(table(true), {});
  const run = (await readPdf(r.pdf)).pages[0].runs.find((x) => x.str === 'EXPRESS')!;
  assert.ok(run, 'one run');
  assert.ok(run.size < 24 && run.size > 10, `size ${run.size}`);
  assert.ok(run.width <= 70 - 8 + 0.01, `width ${run.width}`);
  assert.deepEqual(r.warnings, []);
  // Text that fits keeps its size.
  const fits = await render({ content: [{ text: 'OK', fit: 'shrink', fontSize: 24, width: 200 }] });
  assert.equal(Math.round(fits.doc.pages[0].runs[0].size), 24);
});

test('fit shrink with a height: the lines fit the box; below minFontSize SHRINK_FAILED', async () => {
  const text = 'Deliver to the back door of the warehouse between nine and five';
  const r = await renderPdf({ content: [{ text, fit: 'shrink', fontSize: 20, width: 120, height: 40 }] }, {});
  const runs = (await readPdf(r.pdf)).pages[0].runs;
  const size = runs[0].size;
  assert.ok(size < 20, `size ${size}`);
  const lines = new Set(runs.map((x) => Math.round(x.y))).size;
  assert.ok(lines * size * 1.25 <= 40 + 0.5, `${lines} lines at ${size} pt`);
  assert.deepEqual(r.warnings, []);
  const tiny = await renderPdf({ content: [{ text, fit: 'shrink', fontSize: 20, minFontSize: 12, width: 60, height: 20 }] }, {});
  assert.deepEqual(tiny.warnings.map((w) => [w.code, w.path]), [['SHRINK_FAILED', 'content[0]'], ['CONTENT_CLIPPED', 'content[0]']]);
  assert.equal(Math.round((await readPdf(tiny.pdf)).pages[0].runs[0].size), 12);
});

test('property: fit shrink text never exceeds its width', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.stringMatching(/^[A-Za-z]{1,14}$/), { minLength: 1, maxLength: 6 }),
      fc.integer({ min: 30, max: 250 }),
      fc.integer({ min: 8, max: 60 }),
      async (words, width, fontSize) => {
        const r = await renderPdf({ page: { size: [300, 400], margin: 10 }, content: [{ text: words.join(' '), fit: 'shrink', fontSize, minFontSize: 1, width }] }, {});
        // Large sizes on narrow widths make more lines than a page holds: they go on to the next.
        const runs = (await readPdf(r.pdf)).pages.flatMap((p) => p.runs);
        for (const t of runs) assert.ok(t.x >= 10 - 0.01 && t.x + t.width <= 10 + width + 0.05, `${JSON.stringify(t)} in ${width}`);
        // No word was broken: every word appears whole.
        const text = runs.map((t) => t.str).join(' ');
        for (const w of words) assert.ok(text.includes(w), `${w} in ${text}`);
      },
    ),
    { numRuns: 25 },
  );
});

// ---------------------------------------------------------------------------------------------
// Template watermark

test('a template watermark: text on every page, along the diagonal, translucent, behind the content', async () => {
  const def = {
    background: [{ stack: [], width: 595, height: 842, backgroundColor: '#ffeecc' }],
    watermark: { text: 'CONFIDENTIAL', color: '#ff0000', opacity: 0.25 },
    content: [{ text: 'one' }, { pageBreak: true }, { text: 'two' }],
  };
  const r = await renderPdf(def, {});
  const doc = await readPdf(r.pdf);
  assert.equal(doc.pages.length, 2);
  for (const p of doc.pages) {
    const run = p.runs.find((x) => x.str === 'CONFIDENTIAL');
    assert.ok(run && run.size > 50, JSON.stringify(run));
  }
  assert.match(pdfText(r.pdf), /\/ca 0\.25/);
  // Behind: drawn after the background (the background does not hide it) and before the content.
  const page1 = doc.pages[0].runs.map((x) => x.str);
  assert.ok(page1.indexOf('CONFIDENTIAL') < page1.indexOf('one'), page1.join('|'));
  const [cr, cg] = pixelAt(r.pdf, 297, 421);
  assert.ok(cr > 240 && cg < 220, `watermark red over the background at the centre: ${cr},${cg}`);
  // In front: drawn last.
  const front = await readPdf((await renderPdf({ ...def, watermark: { text: 'TOP', layer: 'front', rotate: 0, fontSize: 40 } }, {})).pdf);
  const order = front.pages[0].runs.map((x) => x.str);
  assert.equal(order[order.length - 1], 'TOP');
  const top = front.pages[0].runs.find((x) => x.str === 'TOP')!;
  assert.ok(near(top.size, 40, 0.1) && near(top.x + top.width / 2, 297.6, 2), JSON.stringify(top));
});

test('an image watermark is centred at its width; watermarks are checked and refused under PDF/A-1b when translucent', async () => {
  const red = `data:image/png;base64,${encodePng(10, 10, () => [255, 0, 0, 255]).toString('base64')}`;
  const r = await renderPdf({ page: { size: [400, 400] }, watermark: { image: red, width: 100, opacity: 1 }, content: [{ text: 'x' }] }, {});
  const [ops] = await pdfOperators(r.pdf);
  const img = ops.images[0];
  assert.ok(near(img.x, 150) && near(img.y, 150) && near(img.width, 100), JSON.stringify(img));
  await assert.rejects(renderPdf({ watermark: { text: 'DRAFT' }, content: [] }, {}, { pdfVariant: 'pdf/a-1b' }), (e: RenderError) => e.code === 'PDFA_CONFLICT' && e.path === 'watermark');
  await renderPdf({ watermark: { text: 'DRAFT', opacity: 1, color: '#eeeeee' }, content: [] }, {}, { pdfVariant: 'pdf/a-1b' });
  for (const [wm, path] of [[{ text: 'A', image: red }, 'watermark'], [{}, 'watermark'], [{ text: '{{x}}' }, 'watermark.text'], [{ text: 'A', layer: 'middle' }, 'watermark.layer'], [{ text: 'A', opacity: 2 }, 'watermark.opacity']] as const) {
    const v = parseTemplate({ watermark: wm, content: [] });
    assert.equal(v.ok, false, JSON.stringify(wm));
    if (!v.ok) assert.equal(v.errors[0].path, path, JSON.stringify(v.errors));
  }
});

test('images inside rotated and translucent boxes are drawn', async () => {
  const red = `data:image/png;base64,${encodePng(20, 10, () => [255, 0, 0, 255]).toString('base64')}`;
  const r = await renderPdf({ page: { size: [300, 300], margin: 20 }, content: [{ stack: [{ image: red, width: 100, height: 50 }], width: 100, rotate: 90, opacity: 0.5, margin: [50, 0, 0, 50] }] }, {});
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 1);
  assert.ok(near(ops.images[0].width, 50) && near(ops.images[0].height, 100), JSON.stringify(ops.images[0]));
});

// ---------------------------------------------------------------------------------------------
// ids, internal links, outline, table of contents

/** The document's outline ([title, dest, children]) and named destinations (page index and top) read with pdf.js. */
async function outlineAndDests(pdf: Buffer): Promise<{ outline: { title: string; dest: unknown; items: unknown[] }[] | null; dest: (name: string) => Promise<{ page: number; top: number } | null> ; links: { page: number; dest: unknown; url?: string }[]; doc: PDFDocumentProxy }> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0, isEvalSupported: false }).promise;
  const outline = (await doc.getOutline()) as never;
  const links: { page: number; dest: unknown; url?: string }[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    for (const a of await (await doc.getPage(n)).getAnnotations()) if (a.subtype === 'Link') links.push({ page: n, dest: a.dest, url: a.url });
  }
  const dest = async (name: string) => {
    const d = await doc.getDestination(name);
    if (!d) return null;
    const page = (await doc.getPageIndex(d[0] as never)) + 1;
    const height = (await doc.getPage(page)).view[3];
    return { page, top: height - (d[3] as number) };
  };
  return { outline, dest, links, doc };
}

const chapters = (n: number) => Array.from({ length: n }, (_, i) => [
  { text: `Chapter ${i + 1}`, style: 'h1', pageBreak: 'before' as const },
  { text: `Section ${i + 1}.1`, role: 'h2' },
  { text: 'Body. '.repeat(100) },
]).flat();

test('headings make the outline, nested by level; ids are link destinations', async () => {
  const def = {
    styles: { h1: { fontSize: 18, fontWeight: 'bold' as const } },
    content: [{ text: ['See ', { text: 'the terms', link: '#terms' }, '.'] }, ...chapters(2), { text: 'Terms and conditions', id: 'terms', margin: [40, 0, 0, 0] }],
  };
  const r = await renderPdf(def, {});
  assert.deepEqual(r.warnings, []);
  const { outline, dest, links, doc } = await outlineAndDests(r.pdf);
  try {
    assert.deepEqual(outline!.map((o) => [o.title, o.items.map((i) => (i as { title: string }).title)]), [['Chapter 1', ['Section 1.1']], ['Chapter 2', ['Section 2.1']]]);
    // The viewer opens the pages, not the bookmarks pane.
    assert.match(pdfText(r.pdf), /\/PageMode \/UseNone/);
    // The outline goes to the headings: chapter 2 on page 3.
    const ch2 = await dest(outline![1].dest as string);
    assert.equal(ch2?.page, 3);
    assert.ok(ch2 && ch2.top > 30 && ch2.top < 50, JSON.stringify(ch2));
    // The link on page 1 goes to the terms on page 3.
    assert.equal(links.length, 1);
    assert.equal(links[0].dest, 'terms');
    const terms = await dest('terms');
    assert.equal(terms?.page, 3);
  } finally {
    await doc.destroy();
  }
});

test('a toc node lists the headings with their page numbers and links to them', async () => {
  const def = { styles: { h1: { fontSize: 18 } }, content: [{ text: 'Contents', fontSize: 20 }, { toc: { levels: 2 } }, ...chapters(3)] };
  const r = await renderPdf(def, {});
  const read = await readPdf(r.pdf);
  const lines = textLines(read.pages[0]).map((l) => l.text);
  assert.deepEqual(lines.slice(1), ['Chapter 1 2', 'Section 1.1 2', 'Chapter 2 3', 'Section 2.1 3', 'Chapter 3 4', 'Section 3.1 4']);
  for (const [title, page] of [['Chapter 2', 3], ['Section 3.1', 4]] as const) assert.ok(read.pages[page - 1].text.includes(title));
  // Page numbers right-aligned at the content's right edge; entries link to the headings.
  const num = read.pages[0].runs.find((x) => x.str === '4')!;
  assert.ok(near(num.x + num.width, 595.28 - 40, 1), JSON.stringify(num));
  const { links, doc } = await outlineAndDests(r.pdf);
  await doc.destroy();
  assert.equal(links.filter((l) => l.page === 1).length, 12);
  // levels 1: chapters only, indented entries left out.
  const one = textLines((await readPdf((await renderPdf({ ...def, content: [{ toc: {} , style: 'toc' }, ...chapters(2)], styles: { ...def.styles, toc: { fontSize: 9 } } }, {})).pdf)).pages[0]).map((l) => l.text);
  assert.ok(one.includes('Section 1.1 2') && one.includes('Chapter 2 3'), one.join('|'));
  const only = textLines((await readPdf((await renderPdf({ ...def, content: [{ toc: { levels: 1 } }, ...chapters(2)] }, {})).pdf)).pages[0]).map((l) => l.text);
  assert.deepEqual(only, ['Chapter 1 2', 'Chapter 2 3']);
});

test('a toc long enough to push the chapters settles on the right page numbers', async () => {
  const def = { content: [{ toc: {} }, ...Array.from({ length: 70 }, (_, i) => ({ text: `Heading ${i + 1}`, role: 'h1', margin: [0, 0, 200, 0] }))] };
  const r = await renderPdf(def, {});
  const read = await readPdf(r.pdf);
  // Every entry's number is the page its heading is on.
  const entries = read.pages.flatMap((p) => textLines(p).map((l) => /^Heading (\d+) (\d+)$/.exec(l.text))).filter((m): m is RegExpExecArray => m !== null);
  assert.equal(entries.length, 70);
  const { dest, doc } = await outlineAndDests(r.pdf);
  try {
    // Headings without an id are named _h1, _h2, ... in document order.
    for (const m of entries) assert.equal(Number(m[2]), (await dest(`_h${m[1]}`))?.page, `Heading ${m[1]}`);
    assert.ok(Number(entries[69][2]) > 5);
  } finally {
    await doc.destroy();
  }
});

test('a link to an unknown id: TEMPLATE_INVALID when written out, LINK_UNRESOLVED when bound', async () => {
  const bad = parseTemplate({ content: [{ text: 'x', id: 'here' }, { stack: [{ text: 'go', link: '#nowhere' }] }] });
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.equal(bad.errors[0].path, 'content[1].stack[0].link');
    assert.match(bad.errors[0].message, /nowhere/);
  }
  assert.equal(parseTemplate({ content: [{ text: 'x', id: 'here' }, { text: 'go', link: '#here' }] }).ok, true);
  for (const id of ['1abc', 'a b', '']) assert.equal(parseTemplate({ content: [{ text: 'x', id }] }).ok, false, id);
  const r = await renderPdf({ content: [{ text: 'go', link: '#{{target}}' }] }, { target: 'missing' });
  assert.deepEqual(r.warnings.map((w) => [w.code, w.path]), [['LINK_UNRESOLVED', 'content[0]']]);
  const { links, doc } = await outlineAndDests(r.pdf);
  await doc.destroy();
  assert.equal(links.length, 0);
});

test('borderRadius on a table cell rounds its fill (drawn on its own, not merged with its neighbours)', async () => {
  const page = { size: [300, 200], margin: 20 };
  const cell = (radius?: number) => ({ text: ' ', backgroundColor: '#00aa00', ...(radius ? { borderRadius: radius } : {}) });
  const table = (radius?: number) => ({ page, content: [{ table: { columns: [100, 100], rows: [[cell(radius), cell()]], borders: 'none' }, height: 60 }] });
  const plain = await renderPdf(table(), {});
  const rounded = await renderPdf(table(8), {});
  assert.deepEqual(pixelAt(plain.pdf, 21, 21), [0, 170, 0]);
  assert.deepEqual(pixelAt(rounded.pdf, 21, 21), [255, 255, 255]);
  assert.deepEqual(pixelAt(rounded.pdf, 60, 30), [0, 170, 0]);
  // The square neighbour keeps its corners.
  assert.deepEqual(pixelAt(rounded.pdf, 219, 21), [0, 170, 0]);
  const [ops] = await pdfOperators(rounded.pdf);
  assert.equal(ops.filledBoxes.length, 2);
});

test('an absolute node in a column, from the bottom of its parent: the bottom of the columns', async () => {
  const { doc } = await render({
    content: [{ columns: [{ content: [{ text: 'a\nb\nc\nd\ne\nf' }] }, { content: [{ text: 'LOW', position: 'absolute', relativeTo: 'parent', bottom: 0, left: 0 }] }] }],
  });
  const runs = doc.pages[0].runs;
  const f = runs.find((x) => x.str === 'f')!;
  const low = runs.find((x) => x.str === 'LOW')!;
  assert.ok(near(low.y, f.y, 0.5), `${low.y} vs ${f.y}`);
});
