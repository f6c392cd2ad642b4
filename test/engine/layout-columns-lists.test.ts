/**
 * Columns (fixed, auto and star widths) and lists (markers, start, nesting).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pdfOperators, textLines, runsExactly } from '../helpers/pdfops.ts';
import { render } from '../helpers/render.ts';
import type { PdfPage } from '../helpers/pdf.ts';

const MARGIN = 40;
const A4_WIDTH = 595.28;
const CONTENT = A4_WIDTH - 2 * MARGIN;

function run(page: PdfPage, str: string) {
  const runs = runsExactly(page, str);
  assert.equal(runs.length, 1, `expected one run "${str}", got ${runs.length}: ${page.runs.map((r) => r.str).join('|')}`);
  return runs[0];
}

test('columns: a fixed first column of 100 puts the second column at margin + 100 + gap', async () => {
  const gap = 16;
  const r = await render({
    page: { size: 'A4', margin: MARGIN },
    content: [{ columns: [{ width: 100, content: [{ text: 'LEFTCOL' }] }, { width: '*', content: [{ text: 'RIGHTCOL' }] }], gap }],
  });
  const page = r.doc.pages[0];
  assert.ok(Math.abs(run(page, 'LEFTCOL').x - MARGIN) < 0.5);
  assert.ok(Math.abs(run(page, 'RIGHTCOL').x - (MARGIN + 100 + gap)) < 0.5, `second column at ${run(page, 'RIGHTCOL').x}`);
  // Both columns start on the same baseline.
  assert.ok(Math.abs(run(page, 'LEFTCOL').y - run(page, 'RIGHTCOL').y) < 0.5);
});

test('columns: the default gap is 12', async () => {
  const r = await render({
    page: { size: 'A4', margin: MARGIN },
    content: [{ columns: [{ width: 150, content: [{ text: 'ONE' }] }, { content: [{ text: 'TWO' }] }] }],
  });
  assert.ok(Math.abs(run(r.doc.pages[0], 'TWO').x - (MARGIN + 150 + 12)) < 0.5);
});

test('columns: gaps that would take more than half the width are narrowed to half of it, with WIDTH_CLAMPED; every column stays on the page', async () => {
  // Ten columns 40 pt apart in 220 pt: the gaps alone (360 pt) put the last columns past the paper.
  const letters = 'ABCDEFGHIJ';
  const columns = Array.from(letters, (c) => ({ content: [{ text: c }] }));
  const r = await render({ page: { size: [300, 200], margin: 40 }, content: [{ columns, gap: 40 }] });
  const page = r.doc.pages[0];
  const xs = Array.from(letters, (c) => run(page, c).x);
  for (const [i, x] of xs.entries()) assert.ok(x >= 40 - 0.01 && x < 260, `${letters[i]} at ${x}`);
  // 110 pt of gaps (half of 220) in 9: 12.2 pt each; columns of 11 pt.
  assert.ok(Math.abs(xs[1] - xs[0] - (11 + 110 / 9)) < 0.05, `${xs[1] - xs[0]}`);
  const clamped = r.warnings.filter((w) => w.code === 'WIDTH_CLAMPED');
  assert.equal(clamped.length, 1);
  assert.equal(clamped[0].path, 'content[0]');
  assert.match(clamped[0].message, /9 gaps of 40 pt take 360 pt of the 220 pt the columns have: gaps made 12.2 pt/);
  // Gaps within half the width are kept as given.
  const kept = await render({ page: { size: [300, 200], margin: 40 }, content: [{ columns: columns.slice(0, 3), gap: 50 }] });
  assert.ok(Math.abs(run(kept.doc.pages[0], 'B').x - run(kept.doc.pages[0], 'A').x - (120 / 3 + 50)) < 0.05);
  assert.deepEqual(kept.warnings, []);
});

test('columns: fixed, auto and star widths (1* and 2*) share the width as documented', async () => {
  const gap = 10;
  const r = await render({
    page: { size: 'A4', margin: MARGIN },
    content: [
      {
        columns: [
          { width: 100, content: [{ text: 'FIXED' }] },
          { width: 'auto', content: [{ text: 'AUTOWIDTH' }] },
          { width: '*', content: [{ text: 'STARONE' }] },
          { width: '2*', content: [{ text: 'STARTWO' }] },
        ],
        gap,
      },
    ],
  });
  const page = r.doc.pages[0];
  const auto = run(page, 'AUTOWIDTH');
  const autoWidth = auto.width; // an auto column is as wide as its content
  assert.ok(Math.abs(auto.x - (MARGIN + 100 + gap)) < 0.5, `auto column at ${auto.x}`);
  const share = (CONTENT - 100 - autoWidth - 3 * gap) / 3;
  const star1 = MARGIN + 100 + gap + autoWidth + gap;
  const star2 = star1 + share + gap;
  assert.ok(Math.abs(run(page, 'STARONE').x - star1) < 0.5, `* column at ${run(page, 'STARONE').x}, expected ${star1}`);
  assert.ok(Math.abs(run(page, 'STARTWO').x - star2) < 0.5, `2* column at ${run(page, 'STARTWO').x}, expected ${star2}`);
});

test('columns: right-aligned text in a star column ends at the right margin; the node is as tall as its tallest column', async () => {
  const r = await render({
    page: { size: 'A4', margin: MARGIN },
    content: [
      {
        columns: [
          { width: '*', content: [{ text: 'a1' }, { text: 'a2' }, { text: 'a3' }] },
          { width: '*', content: [{ text: 'RIGHT', textAlign: 'right' }] },
        ],
      },
      { text: 'BELOW' },
    ],
  });
  const page = r.doc.pages[0];
  const right = run(page, 'RIGHT');
  assert.ok(Math.abs(right.x + right.width - (A4_WIDTH - MARGIN)) < 0.5, `ends at ${right.x + right.width}`);
  assert.ok(run(page, 'BELOW').y > run(page, 'a3').y, 'the next node is below the tallest column');
});

/** The list lines of a page as marker and text. */
function items(page: PdfPage) {
  return textLines(page).map((l) => {
    const m = /^(\S+) (.*)$/.exec(l.text);
    assert.ok(m, `line "${l.text}"`);
    return { marker: m[1], text: m[2] };
  });
}

test('lists: decimal, lower-alpha and upper-roman markers, and start', async () => {
  const three = ['one', 'two', 'three'];
  const r = await render({
    content: [
      { list: three, marker: 'decimal' },
      { list: three, marker: 'lower-alpha' },
      { list: three, marker: 'upper-roman' },
      { list: three, marker: 'upper-alpha' },
      { list: three, marker: 'lower-roman' },
      { list: ['five', 'six', 'seven'], marker: 'decimal', start: 5 },
      { list: ['nine', 'ten'], marker: 'upper-roman', start: 9 },
    ],
  });
  const got = items(r.doc.pages[0]).map((i) => `${i.marker} ${i.text}`);
  assert.deepEqual(got, [
    '1. one', '2. two', '3. three',
    'a. one', 'b. two', 'c. three',
    'I. one', 'II. two', 'III. three',
    'A. one', 'B. two', 'C. three',
    'i. one', 'ii. two', 'iii. three',
    '5. five', '6. six', '7. seven',
    'IX. nine', 'X. ten',
  ]);
});

test('lists: a number a marker style cannot write is written in decimal, as CSS does (0 in letters or roman numerals, 4000 and up in roman numerals)', async () => {
  const r = await render({
    page: { size: 'A5' },
    content: [
      { list: ['zero', 'one'], marker: 'lower-alpha', start: 0 },
      { list: ['nought'], marker: 'upper-roman', start: 0 },
      { list: ['last', 'past'], marker: 'lower-roman', start: 3999 },
      { list: ['big'], marker: 'upper-roman', start: 40000 },
      { list: ['many'], marker: 'upper-alpha', start: 1000000 },
    ],
  });
  assert.deepEqual(items(r.doc.pages[0]).map((i) => `${i.marker} ${i.text}`), ['0. zero', 'a. one', '0. nought', 'mmmcmxcix. last', '4000. past', '40000. big', 'BDWGN. many']);
});

test('lists: disc markers and item texts line up; markers are right-aligned in the indent', async () => {
  const r = await render({ page: { size: 'A4', margin: MARGIN }, content: [{ list: ['alpha', 'beta'] }, { list: ['x', 'y', 'z', 'w', 'v', 'u', 'q', 'r', 's', 'last'].map((t) => ({ text: t, fontWeight: 'bold' })), marker: 'decimal' }] });
  // (Bold items, so that each marker is its own text run when read back.)
  const page = r.doc.pages[0];
  const lines = textLines(page);
  // Disc bullets are drawn as vector shapes (not text): the items are indented and something is filled.
  assert.deepEqual(lines.slice(0, 2).map((l) => l.text), ['alpha', 'beta']);
  assert.ok(lines[0].left > MARGIN + 3, `disc item text at ${lines[0].left}: no room for the bullet`);
  const ops = await pdfOperators(r.pdf);
  assert.ok(ops[0].fills >= 2, `bullets: ${ops[0].fills} fills`);
  // Decimal list: "9." and "10." end at the same x (right-aligned), item texts start at the same x.
  const nine = lines.find((l) => l.text === '9. s')!;
  const ten = lines.find((l) => l.text === '10. last')!;
  assert.ok(nine && ten);
  const markerEnd = (l: typeof nine, m: string) => {
    const run = l.runs.find((x) => x.str.startsWith(m))!;
    return run.x + (run.str.trim() === m ? run.width : NaN);
  };
  assert.ok(Math.abs(markerEnd(nine, '9.') - markerEnd(ten, '10.')) < 0.5, `markers end at ${markerEnd(nine, '9.')} and ${markerEnd(ten, '10.')}`);
  assert.ok(ten.left < nine.left, 'the wider marker starts further left');
  const textStart = (l: typeof nine, s: string) => l.runs.find((x) => x.str.trim() === s)!.x;
  assert.ok(Math.abs(textStart(nine, 's') - textStart(ten, 'last')) < 0.5, 'item texts are aligned');
});

test('lists: a nested list is indented further right than its parent and does not advance the numbering', async () => {
  const r = await render({
    content: [{ list: ['outer one', { list: ['inner one', 'inner two'], marker: 'lower-alpha' }, 'outer two'], marker: 'decimal' }],
  });
  const lines = textLines(r.doc.pages[0]);
  assert.deepEqual(lines.map((l) => l.text), ['1. outer one', 'a. inner one', 'b. inner two', '2. outer two']);
  const textX = (i: number, s: string) => lines[i].runs.find((x) => x.str.includes(s))!.x;
  const markerX = (i: number) => lines[i].left;
  assert.ok(markerX(1) > markerX(0) + 1, `inner marker at ${markerX(1)}, outer at ${markerX(0)}`);
  assert.ok(textX(1, 'inner') > textX(0, 'outer') + 1, 'inner text indented further right');
  // The inner list hangs under the outer item's text: its markers are not left of that text.
  assert.ok(markerX(1) >= textX(0, 'outer') - 0.5, `inner marker ${markerX(1)} left of the outer text ${textX(0, 'outer')}`);
  assert.ok(Math.abs(textX(3, 'outer') - textX(0, 'outer')) < 0.5);
});

test('columns and lists taller than a page continue on the next page with nothing lost', async () => {
  const page = { size: [300, 200], margin: 20 };
  const left = Array.from({ length: 25 }, (_, i) => `L${i + 1}`);
  const right = Array.from({ length: 25 }, (_, i) => `R${i + 1}`);
  const items = Array.from({ length: 25 }, (_, i) => `item ${i + 1}`);
  const r = await render({
    page,
    content: [
      { columns: [{ content: left.map((text) => ({ text })) }, { content: right.map((text) => ({ text })) }] },
      { list: items, marker: 'decimal' },
    ],
  });
  assert.ok(r.pages >= 4, `pages: ${r.pages}`);
  const runs = r.doc.pages.flatMap((p) => textLines(p).flatMap((l) => l.runs.map((x) => x.str.trim()).filter(Boolean)));
  assert.deepEqual(runs.filter((s) => /^L\d+$/.test(s)), left);
  assert.deepEqual(runs.filter((s) => /^R\d+$/.test(s)), right);
  const listLines = r.doc.pages.flatMap((p) => textLines(p).map((l) => l.text)).filter((t) => /item/.test(t));
  assert.deepEqual(listLines, items.map((t, i) => `${i + 1}. ${t}`));
  for (const [i, p] of r.doc.pages.entries()) for (const l of textLines(p)) assert.ok(l.y <= 200 - 20, `page ${i + 1}: "${l.text}" at ${l.y}`);
  // Left and right columns advance together: L13 and R13 share a baseline on the same page.
  const where = (s: string) => r.doc.pages.flatMap((p, i) => p.runs.filter((x) => x.str.trim() === s).map((x) => [i, Math.round(x.y * 10)]));
  assert.deepEqual(where('L13'), where('R13'));
});

test('lists: a marker moves to the next page with its item when the item cannot start on this one (orphans, keepTogether)', async () => {
  const page = { size: [300, 200], margin: 20 };
  // 130 pt used of 160: room for one 12.5 pt line of item 2, whose orphans rule wants two.
  const numbered = await render({ page, content: [{ spacer: 130 }, { list: ['First item is short.', 'Second item text is long enough to wrap onto a second line of this narrow page.'], marker: 'decimal' }] });
  assert.equal(numbered.pages, 2);
  const onPage = numbered.doc.pages.map((p) => textLines(p).map((l) => l.text));
  assert.deepEqual(onPage[0], ['1. First item is short.']);
  assert.match(onPage[1][0], /^2\. Second item/, `the marker starts page 2 with its text: ${JSON.stringify(onPage)}`);
  // A bullet and a keepTogether item: the page that has no item text has no bullet.
  const kept = { stack: [{ text: 'Kept-together item, line one' }, { text: 'line two' }, { text: 'line three' }], keepTogether: true };
  const bullets = await render({ page, content: [{ spacer: 118 }, { list: ['First item is short.', kept] }] });
  assert.equal(bullets.pages, 2);
  const ops = await pdfOperators(bullets.pdf);
  const lines = bullets.doc.pages.map((p) => textLines(p));
  assert.deepEqual(lines.map((ls) => ls.length), [1, 3]);
  // One bullet on each page, on the baseline band of the page's first item line.
  assert.deepEqual(ops.map((o) => o.filledBoxes.length), [1, 1]);
  for (const [i, o] of ops.entries()) {
    const b = o.filledBoxes[0];
    const first = lines[i][0];
    assert.ok(b.y > first.y - 12 && b.y < first.y, `page ${i + 1}: bullet at ${b.y}, first item line at ${first.y}`);
  }
});
