/**
 * The table grid: spans resolved against the declared columns with both ways of writing covered
 * cells (left out, or `{}` / `""` placeholders as pdfmake requires), faults with the cell's path
 * at validation, and column widths as CSS tables share them (min/max-content, a long word never
 * starving its neighbours).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateTemplate } from '../../engine/index.ts';
import { placeRow, type GridEntry } from '../../engine/template/table-grid.ts';
import { resolveWidths } from '../../engine/layout/widths.ts';
import { renderError } from '../helpers/render.ts';
import { fills, layout, strokes, texts } from './helpers/layout.ts';

const cell = (colSpan = 1, rowSpan = 1): GridEntry => ({ colSpan, rowSpan, kind: 'cell' });
const obj: GridEntry = { colSpan: 1, rowSpan: 1, kind: 'emptyObject' };
const str: GridEntry = { colSpan: 1, rowSpan: 1, kind: 'emptyString' };

test('placeRow: covered cells left out', () => {
  const r = placeRow([cell(2), cell()], [], 3, true);
  assert.equal(r.fault, null);
  assert.deepEqual(r.placement.cols, [0, 2]);
  // Column 0 covered by a rowSpan from above: the row's cells start at column 1.
  const below = placeRow([cell(), cell()], [1, 0, 0], 3, true);
  assert.deepEqual(below.placement.cols, [1, 2]);
});

test('placeRow: {} placeholders at covered positions, under a colSpan and under a rowSpan', () => {
  assert.deepEqual(placeRow([cell(3), obj, obj], [], 3, true).placement.cols, [0, -1, -1]);
  assert.deepEqual(placeRow([obj, cell(), cell()], [1, 0, 0], 3, true).placement.cols, [-1, 1, 2]);
  // A {} at a free position is an empty cell.
  assert.deepEqual(placeRow([cell(), obj, cell()], [], 3, true).placement.cols, [0, 1, 2]);
});

test('placeRow: "" is a placeholder only when the row does not fit otherwise', () => {
  // Fits left out: "" is an empty cell in column 2.
  assert.deepEqual(placeRow([cell(2), str, cell()], [], 4, true).placement.cols, [0, 2, 3]);
  // Runs past 3 columns left out: "" stands under the colSpan.
  assert.deepEqual(placeRow([cell(2), str, cell()], [], 3, true).placement.cols, [0, -1, 2]);
});

test('placeRow: faults name the entry: past the columns, a colSpan into a rowSpan from above', () => {
  const past = placeRow([cell(), cell(), cell(), cell()], [], 3, true);
  assert.equal(past.fault?.entry, 3);
  assert.match(past.fault!.message, /column 4, past the table's 3 columns/);
  const into = placeRow([cell(2)], [0, 1], 3, true);
  assert.equal(into.fault?.entry, 0);
  assert.equal(into.fault?.key, 'colSpan');
  assert.match(into.fault!.message, /runs into column 2, which a rowSpan from a row above covers/);
  // Without declared columns a wider row widens the table.
  assert.equal(placeRow([cell(), cell(), cell(), cell()], [], 3, false).fault, null);
});

/** The table of the issue: 4 columns, header rows with placeholders under colSpan and rowSpan. */
const pdfmakeTable = (placeholder: unknown) => ({
  page: { size: 'A4', margin: 40 },
  content: [
    {
      table: {
        columns: [100, 100, 100, 100],
        header: [
          [{ text: 'Product', rowSpan: 2 }, { text: 'Details', colSpan: 3 }, placeholder, placeholder],
          [placeholder, 'Colour', 'Size', 'Price'],
        ],
        rows: [['Shirt', 'red', 'M', '10.00']],
      },
    },
  ],
});

for (const placeholder of [{}, '']) {
  test(`pdfmake placeholders (${JSON.stringify(placeholder)}) keep a 4-column table at 4 columns, headers over their data`, () => {
    assert.ok(validateTemplate(pdfmakeTable(placeholder)).ok);
    const [page] = layout(pdfmakeTable(placeholder));
    const x = (s: string) => texts(page).find((t) => t.text === s)!.x;
    for (const [head, data] of [['Colour', 'red'], ['Size', 'M'], ['Price', '10.00']]) assert.ok(Math.abs(x(head) - x(data)) < 0.01, `${head} over ${data}`);
    assert.ok(Math.abs(x('Product') - x('Shirt')) < 0.01);
    assert.ok(Math.abs(x('Details') - x('Colour')) < 0.01, 'Details spans from the second column');
    // No cell sticks out past the table's 400 points.
    for (const r of strokes(page)) assert.ok(r.x + r.w <= 40 + 400 + 0.01, `a cell border reaches ${r.x + r.w}`);
    assert.equal(strokes(page).length, 2 + 3 + 4, 'cells: 2 in the first header row, 3 in the second, 4 in the body');
  });
}

test('a row that does not fit the declared columns is TEMPLATE_INVALID with the cell path', async () => {
  const v = validateTemplate({ content: [{ table: { columns: ['*', '*', '*'], header: [[{ text: 'A', colSpan: 2 }, 'B', 'C']], rows: [] } }] });
  assert.ok(!v.ok);
  assert.deepEqual(v.errors.map((e) => e.path), ['content[0].table.header[0][2]']);
  assert.match(v.errors[0].message, /column 4, past the table's 3 columns/);
  const under = validateTemplate({ content: [{ table: { columns: ['*', '*'], rows: [[{ text: 'A', rowSpan: 2 }, 'B'], ['x', { text: 'C', colSpan: 2 }]] } }] });
  assert.ok(!under.ok);
  assert.deepEqual(under.errors.map((e) => e.path), ['content[0].table.rows[1][1]']);
  assert.match(under.errors[0].message, /column 3, past the table's 2 columns/);
  // Rows from each are only known at render time: the same fault is TEMPLATE_INVALID then.
  const each = { content: [{ table: { columns: ['*', '*'], rows: [[{ text: 'A', rowSpan: 2 }, 'B'], { each: 'items', row: ['x', 'y'] }] } }] };
  assert.ok(validateTemplate(each).ok);
  const e = await renderError(each, { items: [1] });
  assert.equal(e.code, 'TEMPLATE_INVALID');
  assert.equal(e.path, 'content[0].table.rows[1].row[1]');
});

test('a row from each that does not fit names the row as written (rows[1].row[1]) and its data item, not its place after expansion', async () => {
  // Six rows from `pre` come first: the faulty row is the table's 8th (rows[7] once expanded).
  const rows = [{ each: 'pre', row: ['p', 'q'] }, { each: 'items', as: 'it', row: [{ text: '{{it}}', rowSpan: 2 }, 'x'] }];
  const data = { pre: [1, 2, 3, 4, 5, 6], items: ['a', 'b'] };
  for (const content of [
    [{ text: 'x' }, { table: { columns: ['*', '*'], rows } }],
    // With a toc the bound rows are copied (expandToc): the same paths.
    [{ toc: {} }, { table: { columns: ['*', '*'], rows } }, { text: 'Heading', role: 'h1' }],
  ]) {
    const def = { content };
    assert.ok(validateTemplate(def).ok);
    const e = await renderError(def, data);
    assert.equal(e.code, 'TEMPLATE_INVALID');
    assert.equal(e.path, 'content[1].table.rows[1].row[1]');
    assert.match(e.message, /column 3, past the table's 2 columns .*; the row is made from data\.items\[1\]$/);
  }
  // Past the 1,000 columns a table may have: LIMIT_EXCEEDED, named the same way.
  const wide = { content: [{ table: { rows: [{ each: 'pre', row: ['p', 'q'] }, { each: 'items', row: [{ text: '{{item}}', rowSpan: 2, colSpan: 999 }, 'x'] }] } }] };
  assert.ok(validateTemplate(wide).ok);
  const limit = await renderError(wide, data);
  assert.equal(limit.code, 'LIMIT_EXCEEDED');
  assert.equal(limit.path, 'content[0].table.rows[1].row[0]');
  assert.match(limit.message, /wider than 1000 columns; the row is made from data\.items\[1\]$/);
});

test('a short row gets empty cells to the last column: borders and stripes cover the whole grid', () => {
  const [page] = layout({ content: [{ table: { columns: [50, 50, 50], stripe: '#eeeeee', rows: [['a', 'b', 'c'], ['d']] } }] });
  const cells = strokes(page);
  assert.equal(cells.length, 6);
  const stripe = fills(page);
  assert.equal(stripe.length, 1, 'the striped second row: its three cells in one rectangle');
  assert.ok(Math.abs(stripe[0].w - 150) < 0.01, `the stripe is ${stripe[0].w} pt wide`);
});

test('stripes do not show through a merged cell: it takes the fill of the row it starts in', () => {
  const [page] = layout({
    content: [{ table: { columns: [60, 60], stripe: '#eeeeee', rows: [['a', 'b'], [{ text: 'M', rowSpan: 2 }, 'c'], ['d']] } }],
  });
  const m = texts(page).find((t) => t.text === 'M')!;
  const d = texts(page).find((t) => t.text === 'd')!;
  // Rows 2 and 3: the merged cell starts in row 2 (striped) and covers row 3 (not striped).
  const under = fills(page).filter((f) => f.x < m.x && m.x < f.x + f.w);
  assert.equal(under.length, 1, 'one fill in the merged cell column');
  assert.ok(under[0].y < m.y && under[0].y + under[0].h > d.y, 'the fill covers both rows of the merged cell');
  const dRow = fills(page).filter((f) => f.y < d.y && d.y < f.y + f.h && f.x > m.x);
  assert.equal(dRow.length, 0, 'row 3 is not striped');
});

test('resolveWidths: an auto column with a 300-character word does not starve its neighbours', () => {
  const long = { min: 1500, max: 1500 };
  const word = { min: 55, max: 120 };
  // Two auto columns in 400 points: the neighbour keeps its longest word, the long one the rest.
  const [a, b] = resolveWidths(['auto', 'auto'], 400, () => [word, long]);
  assert.ok(a >= 55 - 1e-9, `neighbour ${a}`);
  assert.ok(Math.abs(a + b - 400) < 1e-9);
  // An auto column and a star: the star keeps its min-content width.
  const [c, d] = resolveWidths(['auto', '*'], 400, () => [long, word]);
  assert.ok(d >= 55 - 1e-9, `star ${d}`);
  assert.ok(c >= 200 - 1e-9, `the long word's column gets at least an equal share: ${c}`);
  // Many columns that cannot all have their min-content: equal shares at worst.
  const widths = resolveWidths(['auto', 'auto', 'auto', 'auto'], 100, () => [long, long, long, { min: 10, max: 10 }]);
  assert.deepEqual(widths.map((w) => Math.round(w)), [30, 30, 30, 10]);
  // Fixed widths wider than the room are made narrower together, and do not starve other columns.
  assert.deepEqual(resolveWidths([300, 300], 400, () => []), [200, 200]);
  const mixed = resolveWidths(['*', 165, 'auto'], 110, () => [{ min: 20, max: 40 }, { min: 0, max: 0 }, { min: 25, max: 60 }]);
  assert.deepEqual(mixed.map((w) => Math.round(w)), [20, 65, 25]);
});

test('a 300-character word in an auto column: the column stays wide, its neighbours keep whole words', () => {
  const long = 'x'.repeat(300);
  for (const columns of [['auto', 'auto'], ['*', 'auto'], [80, 'auto']]) {
    const [page] = layout({ page: { size: 'A5', margin: 30 }, content: [{ table: { columns, rows: [['Description', long], ['Short', 'ok']] } }] });
    const pieces = texts(page).filter((t) => t.text.startsWith('x'));
    assert.ok(pieces.length <= 12, `${JSON.stringify(columns)}: the word takes ${pieces.length} lines`);
    assert.ok(pieces.every((p) => p.width > 100), `${JSON.stringify(columns)}: a line of the word is ${Math.min(...pieces.map((p) => p.width))} pt wide`);
    assert.ok(texts(page).some((t) => t.text === 'Description'), `${JSON.stringify(columns)}: "Description" is broken`);
  }
});
