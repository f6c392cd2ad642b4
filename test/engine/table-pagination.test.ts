/**
 * Tables across pages, on hand-built boxes (paginate alone) and on laid-out documents: a band of
 * rows taller than the room left starts where it is when it could not fit on a page or moving it
 * would waste more than half a page; cells cut at the page bottom keep fill and borders on every
 * part; a footer never stands alone under a repeated header; content nested in a cell or a frame
 * is judged by the room a fresh page leaves it there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paginate } from '../../engine/layout/paginate.ts';
import type { Box, DrawItem, MCell, MRow, TableBox } from '../../engine/layout/nodes.ts';
import { fills, layout, strokes, texts } from './helpers/layout.ts';

const NO_PAD = { top: 0, right: 0, bottom: 0, left: 0 };
const base = { x: 0, marginTop: 0, marginBottom: 0, keepTogether: false, breakBefore: false, frame: null };

/** Content of `lines` rules of 10 pt each: cut between them, like lines of text. */
function content(lines: number): Box {
  const children: Box[] = Array.from({ length: lines }, () => ({ ...base, kind: 'line', width: 50, height: 10, thickness: 10, color: [0, 0, 0], length: 50 }));
  return { ...base, kind: 'stack', width: 50, height: lines * 10, children };
}

function mcell(col: number, lines: number, rowSpan = 1, fill: readonly [number, number, number] | null = null): MCell {
  return { col, colSpan: 1, rowSpan, x: col * 50, width: 50, content: content(lines), fill, padding: NO_PAD, verticalAlign: 'top', shift: 0 };
}

function table(header: MRow[], body: MRow[], footer: MRow[] = []): TableBox {
  let h = 0;
  for (const r of [...header, ...body, ...footer]) h += r.height;
  return { ...base, kind: 'table', width: 100, height: h, header, body, footer, borders: 'all', borderColor: [0, 0, 0], borderWidth: 1, continued: false };
}

const row = (lines: number, ...cells: MCell[]): MRow => ({ height: lines * 10, cells });
/** Cell borders (stroked rects) of a page's items. */
const cellRects = (items: DrawItem[]) => items.filter((i): i is Extract<DrawItem, { kind: 'rect' }> => i.kind === 'rect' && i.stroke !== null);
const spacer = (h: number): Box => ({ ...base, kind: 'spacer', width: 100, height: h });

test('paginate: a band that fits on a page moves whole when the room left is under half a page', () => {
  // Region 100 pt: 60 used by a spacer, the 50-pt row does not fit in the 40 left and moves.
  const t = table([], [row(5, mcell(0, 5), mcell(1, 1))]);
  const pages = paginate([spacer(60), t], 0, 0, 100, 10);
  assert.equal(pages.length, 2);
  assert.equal(cellRects(pages[0]).length, 0);
  assert.deepEqual(cellRects(pages[1]).map((r) => [r.y, r.h]), [[0, 50], [0, 50]]);
});

test('paginate: a band that would leave more than half a page empty starts where it is, cut inside its cells', () => {
  // 30 used, 70 left: the 80-pt row fits on a page but moving it would waste 70 of 100 points.
  const t = table([], [row(8, mcell(0, 8), mcell(1, 2))]);
  const pages = paginate([spacer(30), t], 0, 0, 100, 10);
  assert.equal(pages.length, 2);
  assert.deepEqual(cellRects(pages[0]).map((r) => [r.y, r.h]), [[30, 70], [30, 70]], 'both cells cut at the page bottom');
  assert.deepEqual(cellRects(pages[1]).map((r) => [r.y, r.h]), [[0, 10], [0, 10]], 'the rest: one line of the tall cell');
});

test('paginate: a band taller than a page starts where it is even with little room left', () => {
  const t = table([row(1, mcell(0, 1), mcell(1, 1))], [row(25, mcell(0, 25), mcell(1, 1))]);
  const pages = paginate([spacer(70), t], 0, 0, 100, 10);
  // Page 1: header (10) and 20 points of the row; then 90 a page under the repeated header.
  assert.equal(pages.length, 4);
  assert.deepEqual(cellRects(pages[0]).map((r) => [r.y, r.h]), [[70, 10], [70, 10], [80, 20], [80, 20]]);
});

test('paginate: a cell spanning rows is cut at the page bottom and continues, with its fill, over the rows it still spans', () => {
  const green = [0, 200, 0] as const;
  // Rows of 30 + 30 + 30 tied by a rowSpan-3 cell; region 100 with 20 used: 80 left, band of 90.
  const t = table([], [row(3, mcell(0, 9, 3, green), mcell(1, 3)), row(3, mcell(1, 3)), row(3, mcell(1, 3))]);
  const pages = paginate([spacer(20), t], 0, 0, 100, 10);
  assert.equal(pages.length, 2);
  const greens = (items: DrawItem[]) => items.filter((i) => i.kind === 'rect' && i.fill === green).map((i) => i.kind === 'rect' && [i.y, i.h]);
  assert.deepEqual(greens(pages[0]), [[20, 80]], 'the merged cell to the bottom of page 1');
  assert.deepEqual(greens(pages[1]), [[0, 10]], 'its rest on page 2, over the part of the third row left');
  // Page 2: the merged cell's border, and the rest of the third row's cell.
  assert.deepEqual(cellRects(pages[1]).map((r) => [r.x, r.y, r.h]), [[0, 0, 10], [50, 0, 10]]);
});

test('paginate: the footer is never alone under a repeated header', () => {
  // Header 10, eight body rows of 10, footer 10; region 100 with 10 used: everything but the footer fits.
  const body = Array.from({ length: 8 }, () => row(1, mcell(0, 1), mcell(1, 1)));
  const t = table([row(1, mcell(0, 1), mcell(1, 1))], body, [row(1, mcell(0, 1), mcell(1, 1))]);
  const pages = paginate([spacer(10), t], 0, 0, 100, 10);
  assert.equal(pages.length, 2);
  // Page 2: header, the last body row, footer.
  assert.deepEqual([...new Set(cellRects(pages[1]).map((r) => r.y))], [0, 10, 20]);
});

test('paginate: a table in a padded cell judges its footer by the room the cell leaves, not the page', () => {
  // Region 79; the outer cell has 12 pt of padding above and below: 55 pt for the inner table on a
  // fresh page. Its 70-pt footer fits the page but not the cell, so it is cut like the body's rows.
  const one = (c: Box, padding = NO_PAD): MCell => ({ col: 0, colSpan: 1, rowSpan: 1, x: 0, width: 100, content: c, fill: null, padding, verticalAlign: 'top', shift: 0 });
  const inner = table([], [{ height: 20, cells: [one(content(2))] }, { height: 20, cells: [one(content(2))] }], [{ height: 70, cells: [one(content(7))] }]);
  const outer = table([], [{ height: inner.height + 24, cells: [one(inner, { top: 12, right: 0, bottom: 12, left: 0 })] }]);
  const pages = paginate([outer], 0, 0, 79, 20);
  const bars = pages.map((items) => items.filter((i): i is Extract<DrawItem, { kind: 'line' }> => i.kind === 'line' && i.width === 10));
  assert.equal(bars.flat().length, 11, 'every line of every inner row is drawn once');
  for (const [k, page] of bars.entries()) {
    assert.ok(page.length > 0, `page ${k + 1} holds lines (no empty page)`);
    // A 10-pt line drawn at its centre line y: its bottom edge is y + 5, above the cell's bottom padding.
    for (const l of page) assert.ok(l.y1 + 5 <= 79 - 12 + 1e-6, `page ${k + 1}: a line ends at ${l.y1 + 5}, past the cell's content bottom (67)`);
  }
});

test('paginate: a keepTogether block that fits a page but not the room a frame leaves on it is cut where it is', () => {
  // Region 100; the frame's padding takes 20 of it. A 90-pt block kept together cannot fit 80 on
  // any page: moving it on would only leave a part of the page empty.
  const frame = { background: [0.9, 0.9, 0.9] as const, border: null, padding: { top: 10, right: 0, bottom: 10, left: 0 }, radius: 0 };
  const kept: Box = { ...content(9), keepTogether: true };
  const box = { ...base, kind: 'stack', width: 100, height: 130, frame, children: [content(2), kept] } as unknown as Box;
  const pages = paginate([box], 0, 0, 100, 10);
  const lines = pages.map((items) => items.filter((i) => i.kind === 'line').length);
  assert.deepEqual(lines, [8, 3], 'the block starts on page 1 under the two lines before it');
});

test('layout: a row taller than a page starts right under the text before it (no blank half page)', () => {
  const tall = Array.from({ length: 60 }, (_, i) => `tall line ${i + 1}`).join('\n');
  const pages = layout({
    page: { size: [300, 300], margin: 20 },
    content: [{ text: 'Intro.' }, { table: { columns: [60, '*'], header: [['H1', 'H2']], rows: [['r1', tall], ['r2', 'v2']] } }],
  });
  const first = texts(pages[0]);
  assert.ok(first.some((t) => t.text === 'tall line 1'), 'the tall row begins on page 1');
  const lowest = Math.max(...first.map((t) => t.y));
  assert.ok(lowest > 300 - 20 - 20, `page 1 is used to ${lowest}`);
  const all = pages.flatMap((p) => texts(p).map((t) => t.text)).filter((s) => s.startsWith('tall line'));
  assert.deepEqual(all, Array.from({ length: 60 }, (_, i) => `tall line ${i + 1}`), 'every line once, in order');
});

test('layout: a row-spanning cell keeps its borders and background on the continuation page', () => {
  const lines = (tag: string, n: number) => Array.from({ length: n }, (_, k) => `${tag}${k + 1}`).join('\n');
  const pages = layout({
    page: { size: [300, 300], margin: 20 },
    content: [
      { text: 'Intro.' },
      { table: { columns: [60, '*'], header: [['H1', 'H2']], rows: [[{ text: 'SPAN', rowSpan: 2, backgroundColor: '#00ff00' }, lines('a', 10)], [lines('b', 12)]] } },
    ],
  });
  assert.ok(pages.length >= 2);
  const green = (p: (typeof pages)[number]) => fills(p).filter((f) => f.fill[1] === 255 && f.fill[0] === 0);
  for (const [i, p] of pages.entries()) {
    const g = green(p);
    assert.equal(g.length, 1, `page ${i + 1}: the merged cell's background`);
    const border = strokes(p).find((r) => Math.abs(r.x - g[0].x) < 0.01 && Math.abs(r.y - g[0].y) < 0.01);
    assert.ok(border && Math.abs(border.h - g[0].h) < 0.01, `page ${i + 1}: its border around the same box`);
  }
  assert.deepEqual(pages.flatMap((p) => texts(p).map((t) => t.text)).filter((s) => /^b\d+$/.test(s)), Array.from({ length: 12 }, (_, k) => `b${k + 1}`));
});

test('layout: header rows taller than a quarter of the page open the table once and are cut like rows', () => {
  // 12 header rows of ~17 pt on a 160 pt content area: repeated, they left no room and the
  // render ended in LIMIT_EXCEEDED (1000 pages).
  const pages = layout({
    page: { size: [300, 200], margin: 20 },
    content: [{ table: { header: Array.from({ length: 12 }, (_, i) => [`H${i}`, 'x']), rows: Array.from({ length: 6 }, (_, i) => [`r${i}`, `v${i}`]) } }],
  });
  assert.ok(pages.length >= 2 && pages.length <= 3, `${pages.length} pages`);
  const all = pages.flatMap((p) => texts(p).map((t) => t.text));
  assert.deepEqual(all.filter((s) => /^H\d+$/.test(s)), Array.from({ length: 12 }, (_, i) => `H${i}`), 'each header row once, in order');
  assert.deepEqual(all.filter((s) => /^r\d$/.test(s)), Array.from({ length: 6 }, (_, i) => `r${i}`));
  for (const [n, p] of pages.entries()) for (const s of strokes(p)) assert.ok(s.y + s.h <= 180 + 0.01, `page ${n + 1}: a cell runs to ${s.y + s.h}, past the content area's bottom`);
});

test('layout: a header that leaves a row too little room on every page is not repeated, and no row runs into the footer', () => {
  // Content area 160 less a 100 pt footer: 60 pt. Header ~46 pt, rows 58 pt (two 25 pt lines):
  // under a repeated header every row was drawn past the content area, into the footer.
  const def = {
    page: { size: [300, 200], margin: 20 },
    footer: [{ text: 'FOOT', height: 100 }],
    content: [{ table: { header: [[{ text: 'H1', fontSize: 30 }, 'H2']], rows: Array.from({ length: 3 }, (_, i) => [{ text: `row${i} `.repeat(4), fontSize: 20 }, `v${i}`]) } }],
  };
  const pages = layout(def);
  const all = pages.flatMap((p) => texts(p).map((t) => t.text));
  assert.equal(all.filter((s) => s === 'H1').length, 1, 'the header once');
  for (const [n, p] of pages.entries()) {
    assert.ok(texts(p).some((t) => t.text === 'FOOT'), `page ${n + 1}: its footer`);
    for (const s of strokes(p)) assert.ok(s.y + s.h <= 80 + 0.01, `page ${n + 1}: a cell runs to ${s.y + s.h}, into the footer at 80`);
  }
  for (let i = 0; i < 3; i++) assert.ok(all.includes(`v${i}`), `row ${i}`);
});

test('layout: a header under a quarter of the page repeats on every page of the table', () => {
  const pages = layout({
    page: { size: [300, 200], margin: 20 },
    content: [{ table: { header: [['H1', 'H2']], rows: Array.from({ length: 30 }, (_, i) => [`r${i}`, `v${i}`]) } }],
  });
  assert.ok(pages.length >= 3);
  for (const [n, p] of pages.entries()) assert.equal(texts(p).filter((t) => t.text === 'H1').length, 1, `page ${n + 1}`);
});

/** Every stroke, fill and text line of the pages, as [page, top, bottom] (text: its baseline for both). */
function extents(pages: ReturnType<typeof layout>): { page: number; top: number; bottom: number; what: string }[] {
  return pages.flatMap((p, n) => [
    ...strokes(p).map((r) => ({ page: n + 1, top: r.y, bottom: r.y + r.h, what: 'cell border' })),
    ...fills(p).map((r) => ({ page: n + 1, top: r.y, bottom: r.y + r.h, what: 'fill' })),
    ...texts(p).map((t) => ({ page: n + 1, top: t.y, bottom: t.y, what: `text "${t.text}"` })),
  ]);
}

test('layout: a footer row nearly as tall as the page, or taller, goes after the body and is cut like a row (was LIMIT_EXCEEDED, or drawn off the paper)', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `F${i}`).join('\n');
  for (const [rows, n] of [[[['a']], 26], [[], 30]] as const) {
    const pages = layout({ page: { size: 'A6' }, content: [{ table: { rows, footer: [[lines(n)]] } }] });
    assert.ok(pages.length <= 3, `${n} footer lines: ${pages.length} pages`);
    const all = pages.flatMap((p) => texts(p).map((t) => t.text));
    assert.deepEqual(all.filter((t) => /^F\d+$/.test(t)), Array.from({ length: n }, (_, i) => `F${i}`), 'each footer line once, in order');
    // A6 is 419.53 pt tall; the margins are 40.
    for (const e of extents(pages)) assert.ok(e.bottom <= 419.53 - 40 + 0.01, `page ${e.page}: ${e.what} reaches ${e.bottom}`);
  }
  // A cell of padding only, cut at a page of 1 pt of room, is not cut again on every page.
  const padded = layout({ page: { size: [300, 100], margin: 10 }, footer: [{ stack: [], height: 65 }], content: [{ table: { cellPadding: 10, rows: [['']] } }] });
  assert.ok(padded.length <= 2, `${padded.length} pages`);
});

test('layout: a table with a header too tall to repeat, in a framed box that does not fit, leaves no empty frame behind', () => {
  const header = Array.from({ length: 10 }, (_, i) => `Header line ${i}`).join('\n');
  const pages = layout({ page: { size: 'A6' }, content: [{ spacer: 300 }, { stack: [{ table: { header: [[header]], rows: [['row 1'], ['row 2']] } }], border: { width: 1 }, padding: 5 }] });
  assert.equal(pages.length, 2);
  assert.deepEqual(strokes(pages[0]), [], 'nothing of the box on page 1');
  assert.ok(texts(pages[1]).some((t) => t.text === 'Header line 0') && texts(pages[1]).some((t) => t.text === 'row 2'));
});

test('layout: a header repeats on every page with room for it, whatever the room of the page the table starts on', () => {
  const rows = Array.from({ length: 120 }, (_, i) => [`Item ${i + 1}`, `${i + 1}.00`]);
  const pages = layout({
    page: { size: 'A4', margin: 40 },
    header: [{ if: { eq: ['$page', 1] }, then: [{ stack: [{ text: 'Letterhead' }], height: 560 }] }],
    content: [{ table: { columns: ['*', 80], header: [['Description\n(as ordered)\nincl. options\nand variants', 'Amount']], rows } }],
  });
  assert.ok(pages.length >= 4);
  for (const [n, p] of pages.entries()) assert.equal(texts(p).filter((t) => t.text === 'Description').length, 1, `page ${n + 1}: the header`);
});

test('layout: on a page whose own header leaves a row no room under the table header, the part goes without it and stays out of the footer', () => {
  const rows = Array.from({ length: 59 }, (_, i) => [`Row ${i + 1} text`, `${i + 1}`]);
  const pages = layout({
    page: { size: 'A6', margin: 20 },
    header: [{ if: { eq: ['$page', 3] }, then: [{ stack: [{ text: 'Page-3 notice' }], height: 320 }] }],
    footer: [{ stack: [{ text: 'Page {{$page}} of {{$pages}}' }], height: 20 }],
    content: [{ table: { columns: ['*', 60], header: [['Description\n(continued)', 'Qty']], rows } }],
  });
  // The footer band starts 20 pt above the bottom margin: 419.53 - 20 - 20.
  const footerTop = 419.53 - 40;
  for (const e of extents(pages)) if (!e.what.startsWith('text "Page ')) assert.ok(e.bottom <= footerTop + 0.01, `page ${e.page}: ${e.what} reaches ${e.bottom}, into the footer at ${footerTop}`);
  assert.equal(texts(pages[2]).filter((t) => t.text === 'Description').length, 0, 'no table header on page 3');
  assert.equal(texts(pages[3]).filter((t) => t.text === 'Description').length, 1, 'the header again on page 4');
  const all = pages.flatMap((p) => texts(p).map((t) => t.text)).filter((t) => /^Row \d+ text$/.test(t));
  assert.deepEqual(all, rows.map((r) => r[0]), 'every row once, in order');
});

test('layout: a cell paragraph alone on a fresh page places a line even when its orphans do not fit there (a page of empty cell frames before)', () => {
  // 70 pt pages; a 33 pt line fits, two do not: orphans 2 placed nothing on page 1, and the
  // row's frames stood there empty (a neighbour cell had made progress).
  const text = 'Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda';
  for (const other of ['', 'x']) {
    const pages = layout({ page: { size: [300, 150], margin: 40 }, content: [{ table: { rows: [[{ text, fontSize: 11, lineHeight: 3 }, other]] } }] });
    const words = pages.map((p) => texts(p).map((t) => t.text.trim()).filter((t) => t !== 'x').join(' '));
    for (const [k, w] of words.entries()) assert.ok(w.length > 0, `page ${k + 1} of ${pages.length} holds none of the paragraph (other cell "${other}")`);
    assert.equal(words.join(' ').replace(/\s+/g, ' '), text);
  }
});
