/**
 * Hostile templates and data: absurd numbers and spans are refused when the template is validated
 * (saved), and a render that passes a limit stops early with LIMIT_EXCEEDED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RenderError, renderPdf, validateTemplate } from '../../engine/index.ts';
import { BOUNDS } from '../../engine/template/bounds.ts';
import { MIN_REGION } from '../../engine/template/page.ts';
import { NOW, renderError } from '../helpers/render.ts';

/** The faults of a definition that must not validate. */
function faults(definition: unknown): { path: string; message: string }[] {
  const v = validateTemplate(definition);
  assert.ok(!v.ok, `expected ${JSON.stringify(definition).slice(0, 200)} to be refused`);
  return v.errors;
}

function assertRefused(definition: unknown, path: string, message?: RegExp): void {
  const errors = faults(definition);
  const at = errors.find((e) => e.path === path);
  assert.ok(at, `no fault at ${path}: ${JSON.stringify(errors)}`);
  if (message) assert.match(at.message, message);
}

test('a colSpan of a billion is refused at validation with the cell path, and the render fails cleanly', async () => {
  const definition = { content: [{ table: { rows: [[{ text: 'x', colSpan: 1_000_000_000 }]] } }] };
  assertRefused(definition, 'content[0].table.rows[0][0].colSpan', /at most 1000/);
  const e = await renderError(definition);
  assert.equal(e.code, 'TEMPLATE_INVALID');
});

test('a colSpan that runs past the declared columns is refused with the cell path', () => {
  assertRefused({ content: [{ table: { columns: [50, 50], rows: [['a', { text: 'b', colSpan: 2 }]] } }] }, 'content[0].table.rows[0][1].colSpan', /runs past the table's 2 columns/);
  // Row spans from above push a cell right: it is placed where it really goes.
  assertRefused(
    { content: [{ table: { columns: [50, 50, 50], rows: [[{ text: 'a', rowSpan: 2 }, 'b', 'c'], [{ text: 'd', colSpan: 3 }]] } }] },
    'content[0].table.rows[1][0].colSpan',
    /colSpan 3 from column 2/,
  );
  // In a row made by each, and in a header.
  assertRefused({ content: [{ table: { columns: ['*'], rows: [{ each: 'items', row: [{ text: 'x', colSpan: 2 }] }] } }] }, 'content[0].table.rows[0].row[0].colSpan');
  assertRefused({ content: [{ table: { columns: ['*', '*'], header: [[{ text: 'x', colSpan: 3 }]], rows: [] } }] }, 'content[0].table.header[0][0].colSpan');
  // A colSpan from a named style.
  assertRefused({ styles: { wide: { colSpan: 3 } }, content: [{ table: { columns: [1, 2], rows: [[{ text: 'x', style: 'wide' }]] } }] }, 'content[0].table.rows[0][0]', /colSpan 3/);
  // Within the columns it is fine, and so is a table without declared columns.
  assert.ok(validateTemplate({ content: [{ table: { columns: [50, 50], rows: [[{ text: 'b', colSpan: 2 }]] } }] }).ok);
  assert.ok(validateTemplate({ content: [{ table: { rows: [[{ text: 'b', colSpan: 40 }]] } }] }).ok);
});

test('a row wider than 1000 columns is refused', () => {
  const row = Array.from({ length: 3 }, () => ({ text: 'x', colSpan: 400 }));
  assertRefused({ content: [{ table: { rows: [row] } }] }, 'content[0].table.rows[0][2]', /wider than 1000 columns/);
});

test('a rowSpan past the last literal row is refused; rows from each are clamped at render time', async () => {
  assertRefused({ content: [{ table: { rows: [[{ text: 'a', rowSpan: 3 }, 'b'], ['c']] } }] }, 'content[0].table.rows[0][0].rowSpan', /runs past the last row/);
  assertRefused({ content: [{ table: { rows: [['a', { text: 'b', rowSpan: 5000 }]] } }] }, 'content[0].table.rows[0][1].rowSpan', /at most 1000/);
  const ok = { content: [{ table: { rows: [[{ text: 'a', rowSpan: 3 }, 'b'], { each: 'items', row: ['c'] }] } }] };
  assert.ok(validateTemplate(ok).ok);
  const r = await renderPdf(ok, { items: [1] }, { now: NOW });
  assert.equal(r.pages, 1);
});

test('rows from each whose row spans push cells past 1000 columns fail with LIMIT_EXCEEDED, not a crash', async () => {
  const definition = { content: [{ table: { rows: [{ each: 'items', row: [{ text: 'x', rowSpan: 1000, colSpan: 600 }] }] } }] };
  assert.ok(validateTemplate(definition).ok);
  const e = await renderError(definition, { items: [1, 2, 3] });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /wider than 1000 columns; the row is made from data\.items\[1\]$/);
  // The row's cell as written in the template (the second item's row, rows[1] once expanded).
  assert.equal(e.path, 'content[0].table.rows[0].row[0]');
});

test('absurd numbers are refused at validation, each with its path (1e308, 0, negatives)', () => {
  const errors = faults({
    page: { size: [1e308, 2], margin: [1e308, 0] },
    font: { size: 1e308, lineHeight: 1e308 },
    styles: { big: { fontSize: 5000, letterSpacing: 1e308, padding: 1e308 } },
    content: [
      { text: 'x', fontSize: 1e308, lineHeight: 0.001, margin: 1e308, padding: [0, 1e308], border: { width: 1e308 } },
      { spacer: 1e308 },
      { image: 'data:image/png;base64,AA', width: 1e308, height: 1e308 },
      { qrcode: 'x', size: 1e308 },
      { barcode: 'x', width: 1e308, height: 1e308 },
      { line: { thickness: 1e308, length: 1e308, dash: [1e308] } },
      { line: { dash: Array.from({ length: 17 }, () => 1) } },
      { list: ['a'], start: 1e15 },
      { columns: [{ width: 1e308, content: [] }], gap: 1e308 },
      { table: { columns: [1e308, '5000*'], rows: [['a', 'b']], borderWidth: 1e308, cellPadding: 1e308 } },
    ],
  });
  const paths = errors.map((e) => e.path);
  for (const p of [
    'page.size[0]',
    'page.size[1]',
    'page.margin[0]',
    'font.size',
    'font.lineHeight',
    'styles.big.fontSize',
    'styles.big.letterSpacing',
    'styles.big.padding',
    'content[0].fontSize',
    'content[0].lineHeight',
    'content[0].margin',
    'content[0].padding[1]',
    'content[0].border.width',
    'content[1].spacer',
    'content[2].width',
    'content[2].height',
    'content[3].size',
    'content[4].width',
    'content[4].height',
    'content[5].line.thickness',
    'content[5].line.length',
    'content[5].line.dash[0]',
    'content[6].line.dash',
    'content[7].start',
    'content[8].columns[0].width',
    'content[8].gap',
    'content[9].table.columns[0]',
    'content[9].table.columns[1]',
    'content[9].table.borderWidth',
    'content[9].table.cellPadding',
  ]) {
    assert.ok(paths.includes(p), `no fault at ${p}; faults: ${paths.join(', ')}`);
  }
  for (const e of errors) assert.ok(e.message.length > 0 && !/invalid input/i.test(e.message), `${e.path}: ${e.message}`);
});

test('the edges of every range validate', () => {
  // The smallest page side is a valid size, but no page 3 pt wide has the 12 pt of room inside
  // its margins that content needs: that, and only that, is refused (at page.margin).
  const tiny = validateTemplate({ page: { size: [BOUNDS.pageSide.min, BOUNDS.pageSide.max], margin: 0 }, content: [] });
  assert.deepEqual(!tiny.ok && tiny.errors.map((e) => e.path), ['page.margin']);
  const v = validateTemplate({
    page: { size: [MIN_REGION, BOUNDS.pageSide.max], margin: 0 },
    font: { size: BOUNDS.fontSize.max, lineHeight: BOUNDS.lineHeight.min },
    content: [
      { text: 'x', fontSize: BOUNDS.fontSize.min, lineHeight: BOUNDS.lineHeight.max, letterSpacing: BOUNDS.letterSpacing.min, margin: BOUNDS.length },
      { spacer: BOUNDS.length },
      { list: ['a'], start: BOUNDS.listStart },
      { table: { columns: [`${BOUNDS.share}*`], rows: [[{ text: 'a', colSpan: 1 }]] } },
    ],
  });
  assert.ok(v.ok, JSON.stringify(!v.ok && v.errors));
});

test('a JSON number too large for a double (1e309 parses as Infinity) is refused', () => {
  const definition = JSON.parse('{"content":[{"spacer":1e309}]}');
  assertRefused(definition, 'content[0].spacer', /not a JSON number/);
});

/** Number fields with their [min, max]; outside them a template must not validate. */
const NUMBER_FIELDS: { name: string; min: number; max: number; make: (n: number) => unknown; roomless?: (n: number) => boolean }[] = [
  { name: 'content[0].fontSize', min: BOUNDS.fontSize.min, max: BOUNDS.fontSize.max, make: (n) => ({ content: [{ text: 'x', fontSize: n }] }) },
  { name: 'content[0].lineHeight', min: BOUNDS.lineHeight.min, max: BOUNDS.lineHeight.max, make: (n) => ({ content: [{ text: 'x', lineHeight: n }] }) },
  { name: 'content[0].letterSpacing', min: BOUNDS.letterSpacing.min, max: BOUNDS.letterSpacing.max, make: (n) => ({ content: [{ text: 'x', letterSpacing: n }] }) },
  { name: 'content[0].spacer', min: 0, max: BOUNDS.length, make: (n) => ({ content: [{ spacer: n }] }) },
  { name: 'content[0].margin', min: 0, max: BOUNDS.length, make: (n) => ({ content: [{ text: 'x', margin: n }] }) },
  // A page narrower than 12 pt is a valid size with no room for content: refused at page.margin instead.
  { name: 'page.size[0]', min: BOUNDS.pageSide.min, max: BOUNDS.pageSide.max, make: (n) => ({ page: { size: [n, 100], margin: 0 }, content: [] }), roomless: (n) => n < MIN_REGION },
  { name: 'content[0].size', min: Number.MIN_VALUE, max: BOUNDS.length, make: (n) => ({ content: [{ qrcode: 'x', size: n }] }) },
  { name: 'content[0].table.rows[0][0].colSpan', min: 1, max: BOUNDS.span, make: (n) => ({ content: [{ table: { rows: [[{ text: 'x', colSpan: n }]] } }] }) },
];

test('property: every number field validates exactly inside its range, and outside it names the field', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...NUMBER_FIELDS),
      fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -5, max: 20_000 }), fc.constantFrom(1e308, -1e308, 0, -0, 5e-324)),
      (field, n) => {
        const inside = n >= field.min && n <= field.max && (!field.name.endsWith('colSpan') || Number.isInteger(n));
        const v = validateTemplate(field.make(n));
        if (inside && field.roomless?.(n)) assert.deepEqual(!v.ok && v.errors.map((e) => e.path), ['page.margin'], `${field.name} = ${n}`);
        else if (inside) assert.ok(v.ok, `${field.name} = ${n}: ${JSON.stringify(!v.ok && v.errors)}`);
        else {
          assert.ok(!v.ok, `${field.name} = ${n} validated`);
          assert.ok(v.errors.some((e) => e.path === field.name), `${field.name} = ${n}: ${JSON.stringify(v.errors)}`);
        }
      },
    ),
    { numRuns: 500 },
  );
});

test('property: a table of random spans either fails validation with a path or renders (never a crash)', async () => {
  const cell = fc.record({ text: fc.constant('c'), colSpan: fc.integer({ min: 1, max: 6 }), rowSpan: fc.integer({ min: 1, max: 4 }) }, { requiredKeys: ['text'] });
  await fc.assert(
    fc.asyncProperty(
      fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
      async (columns, rows) => {
        const definition = { page: { size: [300, 300] }, content: [{ table: { ...(columns ? { columns: Array.from({ length: columns }, () => '*') } : {}), rows } }] };
        const v = validateTemplate(definition);
        if (!v.ok) {
          assert.ok(v.errors.every((e) => e.path.startsWith('content[0].table.rows[')), JSON.stringify(v.errors));
          return;
        }
        try {
          const r = await renderPdf(definition, {}, { now: NOW });
          assert.ok(r.pages >= 1);
        } catch (e) {
          assert.ok(e instanceof RenderError, String(e));
        }
      },
    ),
    { numRuns: 60 },
  );
});

// ---------------------------------------------------------------------------------------------
// Limits while laying out

/** RSS growth (MB) across `fn`, which must fail with a RenderError; returns it with the growth. */
async function failingRender(fn: () => Promise<unknown>): Promise<{ error: RenderError; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  const growthMb = (process.memoryUsage().rss - before) / 2 ** 20;
  assert.ok(error instanceof RenderError, `expected a RenderError, got ${String(error)}`);
  return { error, growthMb };
}

test('page bomb: three nested each over 60 items (216,000 paragraphs from a 400-byte request) stops early with LIMIT_EXCEEDED', async () => {
  const a = Array.from({ length: 60 }, (_, i) => i);
  const definition = { content: [{ each: 'a', as: 'x', content: [{ each: 'a', as: 'y', content: [{ each: 'a', as: 'z', content: [{ text: 'line {{x}}.{{y}}.{{z}} lorem ipsum dolor sit amet' }] }] }] }] };
  const { error, growthMb } = await failingRender(() => renderPdf(definition, { a }, { now: NOW }));
  assert.equal(error.code, 'LIMIT_EXCEEDED');
  assert.match(error.message, /pages|characters|boxes/);
  assert.ok(growthMb < 300, `RSS grew by ${growthMb.toFixed(0)} MB`);
});

test('page bomb: an each over 100,000 items of pageBreak fails on pages while preparing, with the path where it passed the limit', async () => {
  const items = Array.from({ length: 100_000 }, (_, i) => i);
  const definition = { content: [{ each: 'items', content: [{ text: '{{item}}' }, { pageBreak: true }] }] };
  const { error, growthMb } = await failingRender(() => renderPdf(definition, { items }, { now: NOW }));
  assert.equal(error.code, 'LIMIT_EXCEEDED');
  assert.match(error.message, /more than 1000 pages/);
  // The estimate stopped at a node of the loop's content, named by its template path (the loop's
  // 1001st page is somewhere in the expanded document, not in the template).
  assert.match(error.path ?? '', /^content\[0\]\.content\[[01]\]$/);
  assert.ok(growthMb < 300, `RSS grew by ${growthMb.toFixed(0)} MB`);
});

test('page bomb: 1.5 million line breaks in one placeholder fail with LIMIT_EXCEEDED', async () => {
  const { error, growthMb } = await failingRender(() => renderPdf({ content: [{ text: '{{t}}' }] }, { t: 'x\n'.repeat(750_000) }, { now: NOW }));
  assert.equal(error.code, 'LIMIT_EXCEEDED');
  assert.match(error.path ?? '', /^content\[0\]/);
  assert.ok(growthMb < 300, `RSS grew by ${growthMb.toFixed(0)} MB`);
});

test('maxGlyphs: text past the limit fails before it is shaped, with the path of the paragraph that passed it', async () => {
  const definition = { content: [{ text: 'a'.repeat(60) }, { text: '{{t}}' }] };
  const e = await renderError(definition, { t: 'b'.repeat(60) }, { maxGlyphs: 100 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /more than 100 characters of text/);
  assert.equal(e.path, 'content[1]');
  const ok = await renderPdf(definition, { t: 'b'.repeat(40) }, { now: NOW, limits: { maxGlyphs: 100 } });
  assert.equal(ok.pages, 1);
});

test('maxGlyphs: a header repeated on every page counts on every page', async () => {
  const definition = { page: { size: [200, 200] }, header: [{ text: 'h'.repeat(30) }], content: [{ text: 'x' }, { pageBreak: true }, { text: 'y' }, { pageBreak: true }, { text: 'z' }] };
  const e = await renderError(definition, {}, { maxGlyphs: 100 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.path ?? '', /^header/);
});

test('maxBoxes: nodes and lines count; past the limit the render fails', async () => {
  const items = Array.from({ length: 100 }, (_, i) => i);
  const e = await renderError({ content: [{ each: 'items', content: [{ text: '{{item}}' }] }] }, { items }, { maxBoxes: 150 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /more than 150 boxes/);
  // Lines a paragraph wraps into count too: 1 node + 1 hard line + the wrapped lines.
  const long = { page: { size: [100, 400], margin: 10 }, content: [{ text: 'word '.repeat(60) }] };
  const e2 = await renderError(long, {}, { maxBoxes: 10 });
  assert.equal(e2.code, 'LIMIT_EXCEEDED');
  const ok = await renderPdf(long, {}, { now: NOW, limits: { maxBoxes: 200 } });
  assert.ok(ok.pages >= 1);
});

test('maxPages: the estimate stops a long each while preparing, and paginate stops what the estimate cannot see', async () => {
  const items = Array.from({ length: 5000 }, (_, i) => i);
  const e = await renderError({ page: { size: [300, 300], margin: 20 }, content: [{ each: 'items', content: [{ text: 'item {{item}}' }] }] }, { items }, { maxPages: 10 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /more than 10 pages/);
  assert.ok(e.path !== undefined && Number(/\d+/.exec(e.path)![0]) < 1000, `stopped at ${e.path}`);
  // Wrapped lines are only known once measured: paginate stops those.
  const e2 = await renderError({ page: { size: [300, 300], margin: 20 }, content: [{ text: 'word '.repeat(5000) }] }, {}, { maxPages: 10 });
  assert.equal(e2.code, 'LIMIT_EXCEEDED');
  assert.match(e2.message, /more than 10 pages/);
});

/** A random document of the things the page estimate counts, and of things that only add height. */
function documentArb() {
  const text = fc.record(
    {
      text: fc.oneof(
        fc.constantFrom('a', 'two words', 'line\nbreak', 'x\n\ny', '', 'lorem ipsum dolor sit amet '.repeat(8)),
        fc.integer({ min: 2, max: 60 }).map((n) => 'line\n'.repeat(n)),
      ),
      fontSize: fc.constantFrom(6, 10, 24, 72),
      lineHeight: fc.constantFrom(0.5, 1, 1.5),
      margin: fc.constantFrom(0, 8),
      padding: fc.constantFrom(0, 4),
      breakBefore: fc.constantFrom('auto', 'page'),
      keepWithNext: fc.boolean(),
    },
    { requiredKeys: ['text'] },
  );
  const leaf = fc.oneof(
    { weight: 6, arbitrary: text },
    { weight: 1, arbitrary: fc.constant({ pageBreak: true }) },
    { weight: 1, arbitrary: fc.record({ spacer: fc.constantFrom(5, 100, 500) }) },
    { weight: 1, arbitrary: fc.record({ line: fc.record({ thickness: fc.constantFrom(1, 50, 400) }) }) },
    { weight: 1, arbitrary: fc.record({ qrcode: fc.constant('q'), size: fc.constantFrom(40, 150, 400) }) },
  );
  const node: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('stack'), tie('columns'), tie('table'), tie('list')),
    stack: fc.record({ stack: fc.array(tie('node'), { maxLength: 5 }), keepTogether: fc.boolean() }),
    columns: fc.record({ columns: fc.array(fc.record({ content: fc.array(tie('node'), { maxLength: 4 }) }), { minLength: 1, maxLength: 3 }) }),
    table: fc.record({ table: fc.record({ header: fc.constant([['h1', 'h2']]), rows: fc.array(fc.tuple(tie('node'), fc.constantFrom('c', 'x\ny')), { maxLength: 6 }) }) }),
    list: fc.record({ list: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
  })).node;
  return fc.record({
    page: fc.record({ size: fc.constantFrom([200, 200], [300, 150], [595, 842]), margin: fc.constantFrom(10, 30) }),
    header: fc.constantFrom(undefined, [{ text: 'header' }]),
    content: fc.array(node, { maxLength: 12 }),
  });
}

test('property: the page estimate never passes the real page count (a document of exactly maxPages pages renders)', async () => {
  await fc.assert(
    fc.asyncProperty(documentArb(), async (definition) => {
      const clean = JSON.parse(JSON.stringify(definition));
      const v = validateTemplate(clean);
      if (!v.ok) return; // e.g. a row of nodes the table refuses: not what this property is about
      let pages: number;
      try {
        pages = (await renderPdf(clean, {}, { now: NOW, limits: { maxPages: 100_000 } })).pages;
      } catch (e) {
        assert.ok(e instanceof RenderError, String(e));
        return;
      }
      const again = await renderPdf(clean, {}, { now: NOW, limits: { maxPages: pages } });
      assert.equal(again.pages, pages);
      const e = await renderError(clean, {}, { maxPages: pages - 1 }).catch(() => null);
      if (pages > 1) assert.equal(e?.code, 'LIMIT_EXCEEDED');
    }),
    { numRuns: 12 }, // each run renders a generated document three times; fast-check draws new ones every run
  );
});

test('a barcode value the symbology refuses is named shortly in the message, however long it is', async () => {
  const e = await renderError({ content: [{ barcode: '{{v}}' }] }, { v: 'A'.repeat(8000) });
  assert.equal(e.code, 'BARCODE_INVALID');
  assert.ok(e.message.length < 400, `${e.message.length} characters`);
  assert.match(e.message, /"A{37}\.\.\." \(8000 characters\)/);
});

test('a QR code drawn smaller than its size does not count at its size toward the page estimate (regression)', async () => {
  // Found by the page-estimate property: a 150 pt QR code in a table on a 200 pt page is scaled down
  // to fit, so the document has 1 page and must render with maxPages 1.
  const definition = { page: { size: [200, 200], margin: 30 }, content: [{ table: { header: [['h1', 'h2']], rows: [[{ qrcode: 'q', size: 150 }, 'c']] } }] };
  const result = await renderPdf(definition, {}, { now: NOW, limits: { maxPages: 1 } });
  assert.equal(result.pages, 1);
});
