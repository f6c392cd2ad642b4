/**
 * Page setup, vertical spacing (margins add up, line height), stack boxes (padding, border,
 * background on both parts of a split) and document metadata.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pdfOperators, textLines } from '../helpers/pdfops.ts';
import { NOW, render } from '../helpers/render.ts';

const near = (a: number, b: number, tol = 0.5) => Math.abs(a - b) < tol;

test('page sizes by name, as [w, h], and landscape orientation', async () => {
  for (const [size, orientation, w, h] of [
    ['A4', 'portrait', 595.28, 841.89],
    ['A5', 'landscape', 595.28, 419.53],
    ['Letter', 'landscape', 792, 612],
    ['Legal', 'portrait', 612, 1008],
    ['a6', 'portrait', 297.64, 419.53],
    ['B5', 'landscape', 708.66, 498.9],
    ['TABLOID', 'portrait', 792, 1224],
    [[200, 333], 'portrait', 200, 333],
  ] as const) {
    const r = await render({ page: { size, orientation }, content: [{ text: 'x' }] });
    const p = r.doc.pages[0];
    assert.ok(near(p.width, w, 0.01) && near(p.height, h, 0.01), `${JSON.stringify(size)} ${orientation}: ${p.width} x ${p.height}`);
  }
});

test('page margins [top, right, bottom, left] place the first line and right-aligned text', async () => {
  const r = await render({ page: { size: [400, 400], margin: [50, 30, 20, 70] }, content: [{ text: 'L' }, { text: 'R', textAlign: 'right' }] });
  const [l, rr] = textLines(r.doc.pages[0]);
  assert.ok(near(l.left, 70), `left ${l.left}`);
  assert.ok(near(rr.right, 400 - 30), `right ${rr.right}`);
  // First baseline inside the first 12.5 pt line box under the top margin.
  assert.ok(l.y > 50 && l.y < 50 + 12.5, `first baseline ${l.y}`);
});

test('vertical margins of neighbours add up; line height sets the distance between baselines', async () => {
  const r = await render({
    page: { size: [400, 400], margin: 20 },
    content: [
      { text: 'A', margin: [0, 0, 10, 0] },
      { text: 'B', margin: [7, 0, 0, 0] },
      { text: 'C1\nC2', lineHeight: 2 },
      { spacer: 30 },
      { text: 'D' },
    ],
  });
  const [a, b, c1, c2, d] = textLines(r.doc.pages[0]);
  // 10 pt text, line height 1.25: 12.5 pt line boxes, same baseline offset within each box.
  assert.ok(near(b.y - a.y, 12.5 + 10 + 7), `A to B: ${b.y - a.y}`);
  assert.ok(near(c2.y - c1.y, 20), `line height 2: ${c2.y - c1.y}`);
  // A 20 pt line box centres the 10 pt text 3.75 pt lower than a 12.5 pt one would (half-leading).
  assert.ok(near(c1.y - b.y, 12.5 + 3.75), `B to C1: ${c1.y - b.y}`);
  assert.ok(near(d.y - c2.y, 20 - 3.75 + 30), `C2 to D: ${d.y - c2.y}`);
});

test('a stack with padding and border indents its content; its background and border are drawn on both parts when split', async () => {
  const page = { size: [300, 300], margin: 20 };
  const r = await render({
    page,
    content: [
      { text: 'intro' },
      { stack: Array.from({ length: 30 }, (_, i) => ({ text: `s${i + 1}` })), padding: 10, border: { width: 2, color: 'blue' }, backgroundColor: '#ffeeee' },
      { text: 'outro' },
    ],
  });
  assert.equal(r.pages, 2);
  const ops = await pdfOperators(r.pdf);
  for (const [i, p] of r.doc.pages.entries()) {
    const first = textLines(p).find((l) => /^s\d+$/.test(l.text))!;
    assert.ok(near(first.left, 20 + 2 + 10), `page ${i + 1}: stack text at ${first.left}`);
    // The background fills the full content width, inside the page's margins.
    const bg = ops[i].filledBoxes.find((b) => near(b.width, 260, 1));
    assert.ok(bg, `page ${i + 1}: no background box in ${JSON.stringify(ops[i].filledBoxes)}`);
    assert.ok(bg.y >= 20 - 0.5 && bg.y + bg.height <= 280 + 0.5, `page ${i + 1}: background ${JSON.stringify(bg)}`);
    assert.ok(ops[i].names.includes('stroke') || ops[i].names.includes('closeStroke'), `page ${i + 1}: no border stroke`);
  }
  // Border and padding at the top of the second part too: its first line sits as far below the
  // top margin as s1 sat below the stack's top on page 1 (the stack starts under the 12.5 pt intro).
  const s1 = textLines(r.doc.pages[0]).find((l) => l.text === 's1')!;
  const p2 = textLines(r.doc.pages[1]).find((l) => /^s\d+$/.test(l.text))!;
  assert.ok(near(p2.y - 20, s1.y - (20 + 12.5)), `page 2: first stack line ${p2.y - 20} below the top, page 1: ${s1.y - 32.5}`);
  const all = r.doc.pages.flatMap((p) => textLines(p).map((l) => l.text));
  assert.deepEqual(all, ['intro', ...Array.from({ length: 30 }, (_, i) => `s${i + 1}`), 'outro']);
});

test('metadata is written to the document information, with placeholders, and language sets /Lang', async () => {
  const r = await render(
    {
      metadata: { title: 'Invoice {{number}}', author: '{{seller}}', subject: 'Subject line', keywords: 'invoice, 2025', language: 'de-AT' },
      content: [{ text: 'x' }],
    },
    { number: 'R-2025-001', seller: 'ACME GmbH' },
  );
  const info = r.doc.info;
  assert.equal(info.Title, 'Invoice R-2025-001');
  assert.equal(info.Author, 'ACME GmbH');
  assert.equal(info.Subject, 'Subject line');
  assert.equal(info.Keywords, 'invoice, 2025');
  assert.equal(info.Language, 'de-AT');
  const stamp = `D:${NOW.toISOString().slice(0, 19).replace(/[-:T]/g, '')}`;
  assert.ok(String(info.CreationDate).startsWith(stamp), `CreationDate ${info.CreationDate}, expected ${stamp}`);
});

test('metadata.language drives number, currency and date filters', async () => {
  const r = await render(
    { metadata: { language: 'de' }, content: [{ text: '{{t | currency:"EUR"}} | {{t | number:2}} | {{d | date:"d. MMMM yyyy"}}' }] },
    { t: 1234.5, d: '2025-03-14' },
  );
  const expected = [
    new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(1234.5),
    new Intl.NumberFormat('de', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(1234.5),
    '14. März 2025',
  ].join(' | ');
  assert.equal(textLines(r.doc.pages[0])[0].text, expected.replace(/\s+/g, ' '));
});

test('a framed box whose content fits but whose bottom padding, border or trailing margin does not moves whole to the next page; one taller than a page ends at its bottom', async () => {
  const { layout, fills, strokes } = await import('./helpers/layout.ts');
  // A6: 419.53 pt tall, margins 40, so the content area ends at 379.53.
  const bottom = 379.53;
  const cases = [
    [{ spacer: 310 }, { stack: [{ text: 'Signed:' }, { line: {}, margin: [4, 0, 30, 0] }], padding: 5, border: { width: 1 }, backgroundColor: '#eeeeee' }],
    [{ spacer: 330 }, { stack: [], padding: 20, backgroundColor: '#cccccc' }],
    [{ text: 'Intro paragraph.' }, { spacer: 250 }, { stack: [{ text: 'Boxed note' }, { spacer: 100 }], backgroundColor: '#dddddd', border: { width: 1 } }],
  ];
  for (const [n, content] of cases.entries()) {
    const pages = layout({ page: { size: 'A6' }, content });
    assert.equal(pages.length, 2, `case ${n + 1}`);
    assert.deepEqual([...fills(pages[0]), ...strokes(pages[0])], [], `case ${n + 1}: nothing of the box on page 1`);
    for (const r of [...fills(pages[1]), ...strokes(pages[1])]) assert.ok(r.y + r.h <= bottom + 0.01, `case ${n + 1}: page 2 box reaches ${r.y + r.h}`);
  }
  const tall = layout({ page: { size: 'A6' }, content: [{ stack: [{ text: 'x' }, { spacer: 506 }], backgroundColor: '#dddddd', border: { width: 1 } }, { text: 'after' }] });
  for (const r of [...fills(tall[0]), ...strokes(tall[0])]) assert.ok(r.y + r.h <= bottom + 0.01, `the tall box reaches ${r.y + r.h}, past the page's content area`);
});

test('a framed box never outgrows the page: no room for its padding sends it on, a page break ending it leaves no empty frame, a table part without its header is framed as drawn', async () => {
  const { layout, fills, strokes, texts } = await import('./helpers/layout.ts');
  const bottom = 379.53; // A6, margins 40
  // 9.5 pt left, 24 of padding: the box starts on page 2 (it was drawn 15 pt past the area).
  const noRoom = layout({ page: { size: 'A6' }, content: [{ spacer: 330 }, { stack: [{ pageBreak: true }], padding: 12, backgroundColor: '#fafafa' }, { text: 'after' }] });
  for (const [n, p] of noRoom.entries()) for (const r of fills(p)) assert.ok(r.y + r.h <= bottom + 0.01, `page ${n + 1}: a fill reaches ${r.y + r.h}`);
  // A page break ending a bordered stack: what follows starts on page 2, with no empty frame there.
  const ended = layout({ page: { size: 'A6' }, content: [{ stack: [{ text: 'a' }, { pageBreak: true }], border: { width: 1 } }, { text: 'b' }] });
  assert.equal(ended.length, 2);
  assert.deepEqual(strokes(ended[1]), [], 'no frame on page 2');
  // Five header rows (over a quarter of the page): not repeated, so the table's last part is
  // shorter than measured; the frame around it ends with it (it ended a header's height lower).
  const rows = Array.from({ length: 30 }, (_, i) => [`r${i}`]);
  const framed = layout({ page: { size: 'A6' }, content: [{ stack: [{ table: { header: [['h1'], ['h2'], ['h3'], ['h4'], ['h5']], rows } }], border: { width: 1 } }] });
  // The same table in columns: the columns' last part too (the frame ran off the paper).
  const inColumns = layout({ page: { size: 'A6' }, content: [{ stack: [{ columns: [{ content: [{ text: 'left' }] }, { content: [{ table: { header: [['h1'], ['h2'], ['h3'], ['h4'], ['h5']], rows } }] }] }, { text: 'after' }], border: { width: 1 } }] });
  for (const pages of [framed, inColumns]) {
    const last = pages[pages.length - 1];
    const frame = strokes(last).reduce((a, b) => (b.w > a.w ? b : a));
    const lastLine = Math.max(...texts(last).map((t) => t.y));
    assert.ok(frame.y + frame.h - lastLine < 15, `the frame ends at ${frame.y + frame.h}, the last line's baseline is at ${lastLine}`);
  }
  // What follows the columns comes right under the table's last row.
  const last = inColumns[inColumns.length - 1];
  const row = texts(last).find((t) => t.text === 'r29');
  const after = texts(last).find((t) => t.text === 'after');
  assert.ok(row && after && after.y - row.y < 30, `"after" at ${after?.y}, the last row at ${row?.y}, on the last page`);
});

test('a framed box whose padding and border are taller than a page\'s room still lays its content out (it made empty frames until the page limit)', async () => {
  const { layout, texts } = await import('./helpers/layout.ts');
  // 180 pt between the margins, 148 of header: 32 pt of room; 14 + 4 of insets above and below.
  const pages = layout({ page: { size: [300, 200], margin: 10 }, header: [{ stack: [], height: 148 }], content: [{ stack: [{ table: { rows: [['one'], ['two'], ['three']] } }], padding: 14, border: { width: 4 } }] });
  assert.ok(pages.length <= 3, `${pages.length} pages`);
  assert.deepEqual(pages.flatMap((p) => texts(p).map((t) => t.text)), ['one', 'two', 'three']);
});
