/**
 * Tables: cell alignment against fixed column widths, colSpan / rowSpan, header rows repeated on
 * every page, footer rows once at the end, rows moved whole to the next page and rows taller than
 * a page broken inside their cells.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, type PdfPage } from '../helpers/pdf.ts';
import { runsExactly, textLines } from '../helpers/pdfops.ts';
import { render } from '../helpers/render.ts';

const A4 = { size: 'A4', margin: 40 };
// A small page for pagination: 300 x 300 pt, 20 pt margins.
const SMALL = { size: [300, 300], margin: 20 };

function one(page: PdfPage, str: string) {
  const runs = runsExactly(page, str);
  assert.equal(runs.length, 1, `expected one run "${str}", got ${runs.length}: ${page.runs.map((r) => r.str).join('|')}`);
  return runs[0];
}

const rightEdge = (r: { x: number; width: number }) => r.x + r.width;

test('a right-aligned amount ends at its column right edge minus the cell padding', async () => {
  const r = await render({
    page: A4,
    content: [{ table: { columns: [200, 100], cellPadding: 4, borders: 'none', rows: [['Widgets', { text: '1,234.50', textAlign: 'right' }]] } }],
  });
  const page = r.doc.pages[0];
  const amount = one(page, '1,234.50');
  assert.ok(Math.abs(rightEdge(amount) - (40 + 300 - 4)) < 0.5, `amount ends at ${rightEdge(amount)}, expected ${40 + 300 - 4}`);
  assert.ok(Math.abs(one(page, 'Widgets').x - (40 + 4)) < 0.5, 'left cell starts at margin + padding');
});

test('cell padding [v, h] and centred cells are placed from the column widths', async () => {
  const r = await render({
    page: A4,
    content: [
      {
        table: {
          columns: [120, 80, 150],
          cellPadding: [2, 10],
          borders: 'all',
          rows: [[{ text: 'L' }, { text: 'MID', textAlign: 'center' }, { text: 'R9', textAlign: 'right' }]],
        },
      },
    ],
  });
  const page = r.doc.pages[0];
  assert.ok(Math.abs(one(page, 'L').x - (40 + 10)) < 0.5);
  const mid = one(page, 'MID');
  assert.ok(Math.abs(mid.x + mid.width / 2 - (40 + 120 + 40)) < 0.5, `MID centre ${mid.x + mid.width / 2}`);
  assert.ok(Math.abs(rightEdge(one(page, 'R9')) - (40 + 350 - 10)) < 0.5);
});

test('star columns share the width left after fixed columns', async () => {
  const r = await render({
    page: A4,
    content: [{ table: { columns: [100, '*', '2*'], cellPadding: 0, borders: 'none', rows: [['A', 'B', 'C']] } }],
  });
  const page = r.doc.pages[0];
  const rest = 595.28 - 80 - 100;
  assert.ok(Math.abs(one(page, 'B').x - (40 + 100)) < 0.5);
  assert.ok(Math.abs(one(page, 'C').x - (40 + 100 + rest / 3)) < 0.5, `C at ${one(page, 'C').x}`);
});

test('colSpan: a cell spans two columns and right-aligns to the end of the second', async () => {
  const r = await render({
    page: A4,
    content: [
      {
        table: {
          columns: [100, 100, 100],
          cellPadding: 4,
          rows: [
            ['a1', 'b1', 'c1'],
            [{ text: 'Total', colSpan: 2, textAlign: 'right' }, 'SUM'],
            [{ text: 'WIDE-CELL-TEXT-SPANNING-COLUMNS', colSpan: 2 }, 'c3'],
          ],
        },
      },
    ],
  });
  const page = r.doc.pages[0];
  const total = one(page, 'Total');
  assert.ok(Math.abs(rightEdge(total) - (40 + 200 - 4)) < 0.5, `Total ends at ${rightEdge(total)}, expected ${40 + 200 - 4}`);
  assert.ok(Math.abs(one(page, 'SUM').x - (40 + 200 + 4)) < 0.5, 'the cell after the span is in the third column');
  // A spanning cell's text may be wider than one column without wrapping.
  const wide = one(page, 'WIDE-CELL-TEXT-SPANNING-COLUMNS');
  assert.ok(wide.width > 100, 'the test text is wider than one column');
  assert.ok(Math.abs(one(page, 'c3').x - (40 + 200 + 4)) < 0.5);
});

test('rowSpan: the spanning cell text is in the first row band; the following rows leave its column out', async () => {
  const r = await render({
    page: A4,
    content: [
      {
        table: {
          columns: [80, 120, 60],
          rows: [
            [{ text: 'Q1', rowSpan: 3 }, 'January', '120'],
            ['February', '98'],
            ['March', '143'],
            [{ text: 'Total', colSpan: 2, textAlign: 'right' }, '361'],
          ],
        },
      },
    ],
  });
  const page = r.doc.pages[0];
  const q1 = one(page, 'Q1');
  const jan = one(page, 'January');
  const feb = one(page, 'February');
  const mar = one(page, 'March');
  assert.ok(Math.abs(q1.y - jan.y) < 0.5, `Q1 baseline ${q1.y}, January ${jan.y}`);
  assert.ok(q1.y < feb.y);
  // The rows below put their first cell in the second column.
  for (const run of [jan, feb, mar]) assert.ok(Math.abs(run.x - (40 + 80 + 4)) < 0.5, `${run.str} at ${run.x}`);
  assert.ok(Math.abs(one(page, '98').x - (40 + 200 + 4)) < 0.5);
  assert.ok(Math.abs(rightEdge(one(page, 'Total')) - (40 + 200 - 4)) < 0.5);
});

test('rowSpan with verticalAlign middle centres the text in the spanned band', async () => {
  const r = await render({
    page: A4,
    content: [{ table: { columns: [80, 120], rows: [[{ text: 'Q1', rowSpan: 3, verticalAlign: 'middle' }, 'January'], ['February'], ['March']] } }],
  });
  const page = r.doc.pages[0];
  // Three equal rows: the middle of the band is the middle row.
  assert.ok(Math.abs(one(page, 'Q1').y - one(page, 'February').y) < 0.5);
});

/** Rows r1..rN of a table on a small page. */
function rowsOf(n: number, tall?: { at: number; lines: number }) {
  return Array.from({ length: n }, (_, i) => {
    const label = `r${i + 1}`;
    if (tall && i === tall.at) return [label, Array.from({ length: tall.lines }, (_, k) => `${label}-line${k + 1}`).join('\n')];
    return [label, `v${i + 1}`];
  });
}

/** Page index of every run with exactly this text. */
function whereIs(doc: { pages: PdfPage[] }, str: string): number[] {
  const out: number[] = [];
  doc.pages.forEach((p, i) => {
    for (const run of p.runs) if (run.str.trim() === str) out.push(i);
  });
  return out;
}

test('header rows repeat on every page; footer rows appear once, after the last row', async () => {
  const rows = rowsOf(40);
  const r = await render({
    page: SMALL,
    content: [{ table: { columns: [100, '*'], header: [['HEAD-A', 'HEAD-B']], rows, footer: [['FOOT-A', 'FOOT-B']] } }],
  });
  assert.ok(r.pages >= 3, `pages: ${r.pages}`);
  assert.deepEqual(whereIs(r.doc, 'HEAD-A'), r.doc.pages.map((_, i) => i), 'HEAD-A on every page');
  assert.deepEqual(whereIs(r.doc, 'HEAD-B'), r.doc.pages.map((_, i) => i), 'HEAD-B on every page');
  const foot = whereIs(r.doc, 'FOOT-A');
  assert.equal(foot.length, 1, 'footer row once');
  assert.equal(foot[0], r.pages - 1, 'footer row on the last page');
  r.doc.pages.forEach((page, i) => {
    const lines = textLines(page);
    assert.ok(lines[0].text.startsWith('HEAD-A'), `page ${i + 1} starts with the header row: ${lines[0].text}`);
  });
  // Every body row once, in order.
  const labels = r.doc.pages.flatMap((p) => textLines(p).map((l) => l.text.split(' ')[0]).filter((t) => /^r\d+$/.test(t)));
  assert.deepEqual(labels, rows.map((row) => row[0]));
  const last = textLines(r.doc.pages[r.pages - 1]);
  const lastRow = last.find((l) => l.text.startsWith(`r${rows.length} `))!;
  const footLine = last.find((l) => l.text.startsWith('FOOT-A'))!;
  assert.ok(lastRow && footLine && footLine.y > lastRow.y, 'footer below the last row');
});

test('several header rows all repeat', async () => {
  const r = await render({
    page: SMALL,
    content: [{ table: { columns: ['*', '*'], header: [['H1a', 'H1b'], ['H2a', 'H2b']], rows: rowsOf(40) } }],
  });
  assert.ok(r.pages >= 3);
  for (const h of ['H1a', 'H1b', 'H2a', 'H2b']) assert.deepEqual(whereIs(r.doc, h), r.doc.pages.map((_, i) => i), h);
});

test('a row that does not fit in the room left moves whole to the next page, under the repeated header', async () => {
  // Single-line rows are 10 * 1.25 + 2 * 4 = 20.5 pt; the header is one such row; the body area is
  // 260 pt, so r1..r9 end at 20 + 20.5 * 10 = 225 and a 5-line row (70.5 pt) cannot fit in the 55 pt left.
  const tallAt = 9;
  const rows = rowsOf(14, { at: tallAt, lines: 5 });
  const r = await render({ page: SMALL, content: [{ table: { columns: [60, '*'], header: [['HDR', 'HDR2']], rows } }] });
  const tallLines = Array.from({ length: 5 }, (_, k) => `r${tallAt + 1}-line${k + 1}`);
  const pages = tallLines.map((s) => whereIs(r.doc, s));
  for (const [k, p] of pages.entries()) assert.equal(p.length, 1, `${tallLines[k]} printed ${p.length} times`);
  const target = pages[0][0];
  assert.ok(pages.every((p) => p[0] === target), `the tall row is split: pages ${JSON.stringify(pages)}`);
  assert.equal(target, 1, 'the tall row moved to page 2');
  assert.deepEqual(whereIs(r.doc, `r${tallAt}`), [0], 'the row before it stays on page 1');
  assert.deepEqual(whereIs(r.doc, `r${tallAt + 1}`), [1], 'the row label moved with its row');
  // Page 2 starts with the header, then the moved row.
  const lines = textLines(r.doc.pages[1]);
  assert.equal(lines[0].text, 'HDR HDR2');
  assert.equal(lines[1].text, `r${tallAt + 1} ${tallLines[0]}`);
  // Nothing of page 1 is drawn below the bottom margin.
  for (const l of textLines(r.doc.pages[0])) assert.ok(l.y <= 300 - 20, `"${l.text}" at ${l.y}`);
});

test('rows joined by a rowSpan move to the next page together', async () => {
  const rows: unknown[][] = rowsOf(9);
  rows.push([{ text: 'SPAN', rowSpan: 3 }, 'x1'], ['x2'], ['x3']);
  const r = await render({ page: SMALL, content: [{ table: { columns: [60, '*'], header: [['H', 'H2']], rows } }] });
  const p = ['SPAN', 'x1', 'x2', 'x3'].map((s) => whereIs(r.doc, s));
  assert.deepEqual(p, [[1], [1], [1], [1]], 'the spanned group is on page 2');
});

test('a row taller than a page is broken inside its cell across pages, every line exactly once', async () => {
  const count = 200;
  const big = Array.from({ length: count }, (_, i) => `cell-line-${i + 1}`);
  const r = await render({
    page: SMALL,
    content: [{ table: { columns: [50, '*'], header: [['HH', 'HH2']], rows: [['before', 'b'], ['BIG', big.join('\n')], ['after', 'a']] } }],
  });
  assert.ok(r.pages >= 10, `pages: ${r.pages}`);
  const seen = r.doc.pages.flatMap((p) => textLines(p).flatMap((l) => l.runs.map((run) => run.str.trim()).filter((s) => s.startsWith('cell-line-'))));
  assert.deepEqual(seen, big, 'every line of the tall cell once, in order');
  // The header repeats on each page the row runs over, and the rows around it are there once.
  assert.deepEqual(whereIs(r.doc, 'HH'), r.doc.pages.map((_, i) => i));
  assert.equal(whereIs(r.doc, 'before').length, 1);
  assert.deepEqual(whereIs(r.doc, 'after'), [r.pages - 1]);
  for (const [i, page] of r.doc.pages.entries()) {
    for (const l of textLines(page)) assert.ok(l.y <= 300 - 20, `page ${i + 1}: "${l.text}" below the bottom margin`);
  }
});

test('table cells inherit text properties from the table; headerStyle applies to header cells', async () => {
  const r = await render({
    page: A4,
    content: [
      {
        fontSize: 8,
        table: { columns: ['*', '*'], headerStyle: { fontWeight: 'bold', fontSize: 12 }, header: [['Hd', 'Hd2']], rows: [['body', 'cell']] },
      },
    ],
  });
  const page = r.doc.pages[0];
  assert.equal(Math.round(one(page, 'body').size), 8);
  assert.equal(Math.round(one(page, 'Hd').size), 12);
  assert.notEqual(one(page, 'Hd').fontName, one(page, 'body').fontName, 'header is bold');
  assert.ok(find(page, 'cell').length === 1);
});

test('each rows produce one row per item', async () => {
  const items = [{ name: 'apple', qty: 3 }, { name: 'pear', qty: 12 }, { name: 'plum', qty: 1 }];
  const r = await render(
    {
      page: A4,
      content: [
        {
          table: {
            columns: [200, 100],
            borders: 'none',
            rows: [{ each: 'items', as: 'it', row: ['{{it.name}} #{{$index}}', { text: '{{it.qty | number}}', textAlign: 'right' }] }],
          },
        },
      ],
    },
    { items },
  );
  const lines = textLines(r.doc.pages[0]);
  assert.deepEqual(lines.map((l) => l.text), items.map((it, i) => `${it.name} #${i} ${it.qty}`));
  for (const it of items) assert.ok(Math.abs(rightEdge(one(r.doc.pages[0], String(it.qty))) - (40 + 300 - 4)) < 0.5);
});
