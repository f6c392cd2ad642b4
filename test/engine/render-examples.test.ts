/**
 * The bundled examples render as documented: the report's pagination (repeated header row,
 * page numbers, row order) and every example's fonts (embedded subsets, never the standard 14).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderPdf } from '../../engine/index.ts';
import { pdfFonts, readPdf, type ReadPdf } from '../helpers/pdf.ts';
import { textLines } from '../helpers/pdfops.ts';
import { example, NOW, render, type Rendered } from '../helpers/render.ts';

// The report is rendered once and shared by the tests below.
let reportPromise: Promise<Rendered> | undefined;
function report(): Promise<Rendered> {
  reportPromise ??= render(example('report').template, example('report').data);
  return reportPromise;
}

/** The report's table node and its header cell strings, from the template itself. */
function reportTable(): { headerCells: string[]; orders: string[] } {
  const { template, data } = example('report');
  const table = template.content.find((n: any) => n.table).table;
  const headerCells = table.header[0].map((c: any) => (typeof c === 'string' ? c : c.text));
  const orders = data.rows.map((r: any) => r.order as string);
  return { headerCells, orders };
}

test('report: 20 to 30 pages, and the page count matches the PDF', async () => {
  const r = await report();
  assert.ok(r.pages >= 20 && r.pages <= 30, `pages: ${r.pages}`);
  assert.equal(r.doc.pages.length, r.pages);
});

test('report: the table header row appears on every page, in column order', async () => {
  const r = await report();
  const { headerCells } = reportTable();
  assert.equal(headerCells.length, 7);
  r.doc.pages.forEach((page, i) => {
    const line = textLines(page).find((l) => l.text === headerCells.join(' '));
    assert.ok(line, `page ${i + 1} has no header row "${headerCells.join(' ')}"; lines: ${textLines(page).slice(0, 5).map((l) => l.text).join(' | ')}`);
    // Each header cell is its own run, left to right in template order.
    const xs = headerCells.map((h) => line.runs.find((run) => run.str.trim() === h)?.x);
    assert.ok(xs.every((x) => x !== undefined), `page ${i + 1}: header cells ${JSON.stringify(xs)}`);
    for (let k = 1; k < xs.length; k++) assert.ok(xs[k]! > xs[k - 1]!, `page ${i + 1}: header cell ${headerCells[k]} is not right of ${headerCells[k - 1]}`);
  });
});

test('report: the footer shows "Page 3 of N" on page 3 and "Page n of N" on every page', async () => {
  const r = await report();
  const n = r.pages;
  assert.ok(r.doc.pages[2].text.includes(`Page 3 of ${n}`), `page 3 text ends: ${r.doc.pages[2].text.slice(-200)}`);
  r.doc.pages.forEach((page, i) => {
    const matches = page.text.match(/Page \d+ of \d+/g) ?? [];
    assert.deepEqual(matches, [`Page ${i + 1} of ${n}`], `page ${i + 1}`);
  });
});

/** Every order number (a data row's third cell) with its page and line index, in reading order. */
function orderSequence(doc: ReadPdf, known: Set<string>): { order: string; page: number; y: number }[] {
  const out: { order: string; page: number; y: number }[] = [];
  doc.pages.forEach((page, p) => {
    for (const line of textLines(page)) {
      for (const run of line.runs) {
        const s = run.str.trim();
        if (known.has(s)) out.push({ order: s, page: p, y: line.y });
      }
    }
  });
  return out;
}

test('report: every data row appears exactly once, in data order, the last one on the last page', async () => {
  const r = await report();
  const { orders } = reportTable();
  const seen = orderSequence(r.doc, new Set(orders));
  assert.equal(seen.length, orders.length, 'number of data rows printed');
  assert.deepEqual(
    seen.map((s) => s.order),
    orders,
    'rows in data order',
  );
  // Row 1's cells come before row 2's: on the same page, a lower baseline.
  assert.equal(seen[0].page, seen[1].page);
  assert.ok(seen[0].y < seen[1].y);
  // The whole of row 1 is on one line: its number, date, order, region... share the baseline.
  const { data } = example('report');
  const first = data.rows[0];
  const row1 = textLines(r.doc.pages[seen[0].page]).find((l) => l.y === seen[0].y)!;
  assert.ok(row1.text.startsWith(`${first.n} ${first.date} ${first.order} ${first.region}`), row1.text);
  assert.equal(seen[seen.length - 1].page, r.pages - 1, 'the last data row is on the last page');
  // And the table footer (Total) follows the last row on the last page.
  const last = r.doc.pages[r.pages - 1];
  const totalLine = textLines(last).find((l) => l.text.startsWith('Total'));
  assert.ok(totalLine, 'Total row on the last page');
  assert.ok(totalLine.y > seen[seen.length - 1].y, 'Total row below the last data row');
  for (const page of r.doc.pages.slice(0, -1)) assert.ok(!textLines(page).some((l) => l.text.startsWith('Total')), 'Total only on the last page');
});

test('report: fonts are embedded subsets only', async () => {
  const r = await report();
  assertFontsEmbedded(r.pdf, 'report');
});

const STANDARD_14 = /Helvetica|Times|Courier|Symbol|ZapfDingbats|Arial/i;

function assertFontsEmbedded(pdf: Buffer, what: string): ReturnType<typeof pdfFonts> {
  const fonts = pdfFonts(pdf);
  assert.ok(fonts.length > 0, `${what}: no fonts listed`);
  for (const f of fonts) {
    assert.ok(f.embedded, `${what}: ${f.name} is not embedded`);
    assert.ok(f.subset, `${what}: ${f.name} is not a subset`);
    assert.match(f.name, /^[A-Z]{6}\+/, `${what}: ${f.name} has no subset tag`);
    assert.doesNotMatch(f.name, STANDARD_14, `${what}: ${f.name} is a standard-14 font`);
  }
  return fonts;
}

test('invoice: one page, fonts embedded subsets only', async () => {
  const { template, data } = example('invoice');
  const r = await render(template, data);
  assert.equal(r.pages, 1);
  assertFontsEmbedded(r.pdf, 'invoice');
});

test('shipping-label: one 4x6in page; absolute, rotated and shrunk boxes on the paper, no warnings', async () => {
  const { template, data } = example('shipping-label');
  const r = await renderPdf(template, data, { now: NOW });
  assert.deepEqual(r.warnings, []);
  const doc = await readPdf(r.pdf);
  assert.equal(doc.pages.length, 1);
  const page = doc.pages[0];
  assert.deepEqual([page.width, page.height], [288, 432]);
  assertFontsEmbedded(r.pdf, 'shipping-label');
  // The service mark stays one word, shrunk into its 74 pt box at the top right.
  const service = page.runs.find((x) => x.str === data.service)!;
  assert.ok(service && service.size < 30 && service.x + service.width <= 288 - 14, JSON.stringify(service));
  // The zone reads bottom to top in the left margin of the address box.
  const zone = page.runs.find((x) => x.str.startsWith('ZONE'))!;
  assert.ok(zone && zone.x < 40, JSON.stringify(zone));
  for (const t of page.runs) assert.ok(t.x >= 0 && t.x <= 288 && t.y >= 0 && t.y <= 432, JSON.stringify(t));
  for (const w of ['SHIP TO', 'AUSTRIA', 'HANDLE WITH CARE', data.tracking]) assert.ok(page.text.includes(w), w);
});

test('letter: fonts embedded subsets only, and the body uses Noto Serif faces', async () => {
  const { template, data } = example('letter');
  const r = await render(template, data);
  const fonts = assertFontsEmbedded(r.pdf, 'letter');
  const serif = fonts.filter((f) => f.name.includes('NotoSerif'));
  assert.ok(serif.length > 0, `no Noto Serif face: ${fonts.map((f) => f.name).join(', ')}`);
  // The letter uses regular, bold and italic serif text.
  for (const face of ['NotoSerif-Regular', 'NotoSerif-Bold', 'NotoSerif-Italic']) {
    assert.ok(fonts.some((f) => f.name.endsWith(`+${face}`)), `${face} missing: ${fonts.map((f) => f.name).join(', ')}`);
  }
});
