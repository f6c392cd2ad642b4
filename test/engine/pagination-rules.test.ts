/**
 * Pagination rules of paragraphs, read back from the PDFs: widows and orphans (no single line of a
 * paragraph alone at the top or bottom of a page, default 2) and keepWithNext (a heading never
 * sits alone at the bottom of a page).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PdfPage } from '../helpers/pdf.ts';
import { render } from '../helpers/render.ts';

// A small page: 200 pt high with 20 pt margins, so the content area is 160 pt, and 10 pt text
// with lineHeight 1.25 has 12.5 pt lines (12.8 lines a page: never a whole number).
const PAGE = { size: [300, 200], margin: 20 };
const LINE = 12.5;

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');
/** A paragraph of about `lines` lines at the page's width. */
function paragraph(lines: number): string {
  return Array.from({ length: lines * 7 }, (_, i) => WORDS[i % WORDS.length]).join(' ');
}

/** Distinct baselines of the runs on a page that are in `text`'s words (the paragraph's lines there). */
function linesOn(page: PdfPage, words: Set<string>): number {
  const ys = new Set<number>();
  for (const r of page.runs) {
    const w = r.str.trim().split(/\s+/)[0];
    if (w && words.has(w)) ys.add(Math.round(r.y * 10) / 10);
  }
  return ys.size;
}

/** Lines of a paragraph on each page, for a paragraph after a spacer of `offset` points. */
async function split(offset: number, text: string, rules: Record<string, number> = {}): Promise<number[]> {
  const r = await render({ page: PAGE, content: [{ spacer: offset }, { text, ...rules }] });
  const words = new Set(text.split(' '));
  return r.doc.pages.map((p) => linesOn(p, words));
}

/** Offsets from 0 to one page, in steps that hit every fraction of a line. */
const OFFSETS = Array.from({ length: 67 }, (_, i) => i * 2.4);

test('widows and orphans (default 2): no page of a cut paragraph holds a single line of it', async () => {
  const text = paragraph(9);
  const whole = (await split(0, text))[0];
  assert.ok(whole >= 8 && whole <= 10, `the paragraph has ${whole} lines`);
  let cuts = 0;
  for (const offset of OFFSETS) {
    const perPage = await split(offset, text);
    const used = perPage.filter((n) => n > 0);
    assert.equal(used.reduce((a, b) => a + b, 0), whole, `offset ${offset}: lines lost or doubled (${perPage})`);
    if (used.length > 1) cuts++;
    for (const n of used) assert.ok(n >= 2 || used.length === 1, `offset ${offset}: lines per page ${perPage}`);
    // Page 1 holds as many lines as fit, less what the next page needs (2), and none if fewer than 2 remain.
    const fit = Math.floor((160 - offset) / LINE + 1e-6);
    let first = fit >= whole ? whole : whole - fit < 2 ? whole - 2 : fit;
    if (first < 2 && first < whole) first = 0;
    assert.equal(perPage[0], first, `offset ${offset}: ${fit} lines fit, page 1 has ${perPage[0]} (${perPage})`);
  }
  assert.ok(cuts > 25, `only ${cuts} offsets cut the paragraph`);
});

test('widows and orphans set to 1 allow a single line; set to 3 they raise the minimum', async () => {
  const text = paragraph(9);
  const ones = new Set<string>();
  for (const offset of OFFSETS) {
    const used = (await split(offset, text, { widows: 1, orphans: 1 })).filter((n) => n > 0);
    if (used.length > 1 && used[0] === 1) ones.add('orphan');
    if (used.length > 1 && used[used.length - 1] === 1) ones.add('widow');
  }
  assert.deepEqual([...ones].sort(), ['orphan', 'widow'], 'with 1 and 1 a single line is left at the bottom and at the top of a page');

  for (const offset of OFFSETS) {
    const used = (await split(offset, text, { widows: 3, orphans: 3 })).filter((n) => n > 0);
    if (used.length > 1) assert.ok(used.every((n) => n >= 3), `offset ${offset}: ${used}`);
  }
  // Separately: widows 3 alone keeps three at the top, orphans default 2 at the bottom.
  for (const offset of OFFSETS) {
    const used = (await split(offset, text, { widows: 3 })).filter((n) => n > 0);
    if (used.length > 1) assert.ok(used[0] >= 2 && used[used.length - 1] >= 3, `offset ${offset}: ${used}`);
  }
});

test('a three-line paragraph is never cut (2 + 1 and 1 + 2 both break a rule): it moves whole', async () => {
  const text = paragraph(3);
  for (const offset of OFFSETS) {
    const used = (await split(offset, text)).filter((n) => n > 0);
    assert.equal(used.length, 1, `offset ${offset}: ${used}`);
  }
});

test('a paragraph taller than a page is still cut, honouring the rules', async () => {
  const text = paragraph(30);
  const perPage = await split(40, text);
  assert.ok(perPage.length >= 3);
  assert.ok(perPage.every((n) => n >= 2), `${perPage}`);
});

/** Page (0-based) of the first run whose text starts with `word`. */
function pageOf(pages: PdfPage[], word: string): number {
  return pages.findIndex((p) => p.runs.some((r) => r.str.trim().startsWith(word)));
}

test('keepWithNext: a heading that would be the last line of a page moves to the next page with its paragraph', async () => {
  const body = paragraph(4);
  const doc = (offset: number, keep: boolean) => ({
    page: PAGE,
    styles: { h2: { fontSize: 14, fontWeight: 'bold', margin: [0, 0, 4, 0], ...(keep ? { keepWithNext: true } : {}) } },
    content: [{ spacer: offset }, { text: 'Heading', style: 'h2' }, { text: body }],
  });
  // The heading is 17.5 pt high, with 4 pt under it: at offset 135 it fits (ends at 152.5) but no
  // line of the paragraph does, and two lines (orphans) only fit up to offset 160 - 21.5 - 25 = 113.5.
  const without = await render(doc(135, false));
  assert.equal(pageOf(without.doc.pages, 'Heading'), 0, 'without keepWithNext the heading stays at the page bottom');
  assert.equal(pageOf(without.doc.pages, 'lorem'), 1);
  const withKeep = await render(doc(135, true));
  assert.equal(pageOf(withKeep.doc.pages, 'Heading'), 1, 'with keepWithNext it moves');
  assert.equal(pageOf(withKeep.doc.pages, 'lorem'), 1);

  // At every offset, the heading is on the page where its paragraph starts, and that page holds at least two of its lines.
  for (let offset = 90; offset <= 160; offset += 1.5) {
    const r = await render(doc(offset, true));
    const h = pageOf(r.doc.pages, 'Heading');
    assert.equal(h, pageOf(r.doc.pages, 'lorem'), `offset ${offset}: heading on page ${h + 1}, paragraph starts on ${pageOf(r.doc.pages, 'lorem') + 1}`);
    assert.ok(linesOn(r.doc.pages[h], new Set(body.split(' '))) >= 2, `offset ${offset}`);
  }
});

test('keepWithNext in a chain: a heading followed by a sub-heading and a paragraph stays with both', async () => {
  const body = paragraph(4);
  const doc = (offset: number) => ({
    page: PAGE,
    styles: { h1: { fontSize: 16, fontWeight: 'bold', keepWithNext: true }, h2: { fontSize: 12, fontWeight: 'bold', keepWithNext: true } },
    content: [{ spacer: offset }, { text: 'Chapter', style: 'h1' }, { text: 'Section', style: 'h2' }, { text: body }],
  });
  for (let offset = 80; offset <= 160; offset += 2) {
    const r = await render(doc(offset));
    const pages = ['Chapter', 'Section', 'lorem'].map((w) => pageOf(r.doc.pages, w));
    assert.deepEqual(pages, [pages[2], pages[2], pages[2]], `offset ${offset}: Chapter, Section and the paragraph start on pages ${pages.map((p) => p + 1)}`);
  }
});

test('keepWithNext before a table keeps the heading with the header row and first row', async () => {
  const doc = (offset: number) => ({
    page: PAGE,
    content: [
      { spacer: offset },
      { text: 'Figures', fontSize: 14, fontWeight: 'bold', keepWithNext: true },
      { table: { columns: ['*', '*'], header: [['Name', 'Value']], rows: Array.from({ length: 12 }, (_, i) => [`row${i}`, String(i)]) } },
    ],
  });
  for (let offset = 100; offset <= 160; offset += 3) {
    const r = await render(doc(offset));
    const h = pageOf(r.doc.pages, 'Figures');
    assert.equal(h, pageOf(r.doc.pages, 'row0'), `offset ${offset}: the heading is not with the first row`);
    assert.equal(h, pageOf(r.doc.pages, 'Name'), `offset ${offset}: the heading is not with the header row`);
  }
});

test('keepWithNext: a heading before a three-line paragraph (which orphans and widows of 2 keep whole) goes with all of it', async () => {
  // A6 with its 40 pt margins: 339.5 pt of room. After a 289 pt spacer the heading and two lines
  // fit, but the paragraph cannot be cut 2 + 1: it moves whole, and the heading was left alone.
  const r = await render({
    page: { size: 'A6' },
    styles: { h2: { fontSize: 16, fontWeight: 'bold', keepWithNext: true } },
    content: [{ spacer: 289 }, { text: 'Delivery terms', style: 'h2' }, { text: 'Goods are shipped within five working days of the order. Shipping is free above 100 EUR; below that it is 7.50 EUR per order.' }],
  });
  assert.equal(r.pages, 2);
  assert.equal(pageOf(r.doc.pages, 'Delivery'), 1, 'the heading on the page of its paragraph');
  assert.equal(pageOf(r.doc.pages, 'Goods'), 1);
});

test('page breaks where a page cannot end (table cells, bands, absolute, fixed-height and rotated boxes) are ignored: nothing after them is lost', async () => {
  const B = { text: 'before' };
  const A = { text: 'after' };
  const contexts: Record<string, object> = {
    'cell, pageBreak node': { content: [{ table: { rows: [[{ stack: [B, { pageBreak: true }, A] }]] } }] },
    'cell, breakBefore': { content: [{ table: { rows: [[{ stack: [B, { text: 'after', breakBefore: 'page' }] }]] } }] },
    'cell, pageBreak after': { content: [{ table: { rows: [[{ stack: [{ text: 'before', pageBreak: 'after' }, A] }]] } }] },
    absolute: { content: [{ stack: [B, { pageBreak: true }, A], position: 'absolute', top: 100, left: 50 }] },
    'fixed height': { content: [{ stack: [B, { pageBreak: true }, A], height: 100 }] },
    rotated: { content: [{ stack: [B, { pageBreak: true }, A], rotate: 90 }] },
    header: { header: [B, { text: 'after', breakBefore: 'page' }], content: [{ text: 'body' }] },
  };
  for (const [where, def] of Object.entries(contexts)) {
    const r = await render(def);
    assert.equal(r.pages, 1, where);
    assert.equal(pageOf(r.doc.pages, 'after'), 0, `${where}: the text after the break`);
  }
  // Where a page can end, they break: a stack, a list item, a column; a fixed-height box's own break.
  for (const content of [[{ stack: [B, { pageBreak: true }, A] }], [{ list: [{ stack: [B, { pageBreak: true }, A] }] }], [B, { stack: [A], height: 100, breakBefore: 'page' }]]) {
    const r = await render({ content });
    assert.equal(r.pages, 2, JSON.stringify(content));
    assert.equal(pageOf(r.doc.pages, 'after'), 1);
  }
});
