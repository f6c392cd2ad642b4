/**
 * Render warnings as structured {code, message, path}: DATA_MISSING for placeholders and each
 * whose data path is missing (path: the placeholder's template path), IMAGE_CLAMPED for images and
 * codes larger than their room (drawn inside the page), WIDTH_CLAMPED for fixed widths wider than
 * the room; `"strict": true` turns missing data into checkData faults and a DATA_INVALID render.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkData, renderPdf, validateTemplate } from '../../engine/index.ts';
import { alphaPngDataUri } from '../helpers/images.ts';
import { readPdf } from '../helpers/pdf.ts';
import { NOW, renderError } from '../helpers/render.ts';
import { bounds, flatItems, inside, layout } from './helpers/layout.ts';

const warningsOf = async (definition: unknown, data: unknown = {}) => (await renderPdf(definition, data, { now: NOW })).warnings;

test('DATA_MISSING: the placeholder template path, the data path in the message', async () => {
  const w = await warningsOf({ content: [{ text: 'Dear {{customer.name}},' }, { text: ['Total: ', { text: '{{total}}', fontWeight: 'bold' }] }] }, { customer: {} });
  assert.deepEqual(
    w.map((x) => [x.code, x.path]),
    [
      ['DATA_MISSING', 'content[0].text'],
      ['DATA_MISSING', 'content[1].text[1].text'],
    ],
  );
  assert.match(w[0].message, /no value at data\.customer\.name/);
  assert.match(w[1].message, /data\.total/);
});

test('DATA_MISSING: one warning per placeholder over a loop, counting the items; not for defaults, nulls, built-ins', async () => {
  const definition = {
    content: [
      { table: { rows: [{ each: 'items', row: ['{{item.name}}', '{{item.sku}}', '{{item.note | default:"-"}}'] }] } },
      { text: '{{nothing}} {{$page}} {{present}}' },
    ],
  };
  const w = await warningsOf(definition, { items: [{ name: 'a', sku: null }, { name: 'b' }, { name: 'c' }, { name: 'd' }], present: null });
  assert.deepEqual(
    w.map((x) => [x.code, x.path, x.message]),
    [
      ['DATA_MISSING', 'content[0].table.rows[0].row[1]', 'no value at data.items[1].sku: "{{item.sku}}" rendered empty (and 2 more items)'],
      ['DATA_MISSING', 'content[1].text', 'no value at data.nothing: "{{nothing}}" rendered empty'],
    ],
  );
});

test('DATA_MISSING: an each over a missing array; a header missing data is reported once, not per page', async () => {
  const definition = {
    page: { size: [200, 200], margin: 20 },
    header: [{ text: 'Client {{client}}' }],
    content: [{ each: 'lines', content: [{ text: '{{item}}' }] }, { text: 'x\n'.repeat(40) }],
  };
  const r = await renderPdf(definition, {}, { now: NOW });
  assert.ok(r.pages > 1);
  assert.deepEqual(
    r.warnings.map((x) => [x.code, x.path, x.message]),
    [
      ['DATA_MISSING', 'content[0]', 'no array at data.lines: the each over "lines" produced nothing'],
      ['DATA_MISSING', 'header[0].text', 'no value at data.client: "{{client}}" rendered empty'],
    ],
  );
  assert.deepEqual(await warningsOf(definition, { client: 'ACME', lines: [] }), []);
});

test('strict: checkData names every missing data path; the render fails with DATA_INVALID before any layout', async () => {
  const definition = {
    strict: true,
    metadata: { title: 'Invoice {{number}}' },
    content: [
      { text: 'Dear {{customer.name}}' },
      { table: { rows: [{ each: 'items', row: ['{{item.name}}', { text: '{{item.price | currency}}' }, '{{item.note | default:""}}'] }] } },
      { if: 'vip', then: [{ text: '{{discount}}' }] },
    ],
  };
  assert.ok(validateTemplate(definition).ok);
  const data = { number: 7, customer: {}, items: [{ name: 'a', price: 1 }, { price: 2 }] };
  const faults = checkData(definition, data);
  assert.deepEqual(
    faults.map((f) => f.path),
    ['data.customer.name', 'data.items[1].name'],
  );
  assert.match(faults[0].message, /content\[0\]\.text/);
  const e = await renderError(definition, data);
  assert.equal(e.code, 'DATA_INVALID');
  assert.equal(e.path, 'data.customer.name');
  assert.deepEqual(e.issues.map((i) => i.path), ['data.customer.name', 'data.items[1].name']);
  // Complete data renders; a missing array is a fault too; without strict the same data renders with warnings.
  assert.deepEqual(checkData(definition, { ...data, customer: { name: 'x' }, items: [{ name: 'a', price: 1 }] }), []);
  assert.deepEqual(checkData(definition, { number: 1, customer: { name: 'x' } }).map((f) => f.path), ['data.items']);
  const lax = await renderPdf({ ...definition, strict: false }, data, { now: NOW });
  assert.deepEqual(lax.warnings.map((w) => w.path), ['content[0].text', 'content[1].table.rows[0].row[0]']);
  const v = validateTemplate({ strict: 'yes', content: [] });
  assert.ok(!v.ok && v.errors[0].path === 'strict');
});

const PNG = alphaPngDataUri(40, 20);

test('IMAGE_CLAMPED: contain, cover and explicit sizes larger than the content box are drawn inside it', () => {
  const page = { size: 'A5', margin: 30 };
  const box = { x: 30, y: 30, w: 419.53 - 60, h: 595.28 - 60 };
  for (const image of [
    { image: PNG, width: 2000, height: 3000 },
    { image: PNG, width: 2000, height: 3000, fit: 'cover' },
    { image: PNG, height: 5000 },
    { image: PNG, width: 100, height: 5000, fit: 'fill' },
  ]) {
    const pages = layout({ page, content: [image] });
    assert.equal(pages.length, 1);
    const drawn = flatItems(pages[0].items).filter((i) => i.kind === 'image');
    assert.equal(drawn.length, 1);
    assert.ok(inside(bounds(drawn[0])!, box), `${JSON.stringify({ ...image, image: '…' })}: drawn at ${JSON.stringify(bounds(drawn[0]))}`);
  }
});

test('IMAGE_CLAMPED is reported with the node path; codes are clamped too, a QR code stays square', async () => {
  const definition = {
    page: { size: [300, 300], margin: 20 },
    content: [{ image: PNG, height: 900 }, { qrcode: 'hello', size: 1000 }, { barcode: '12345', width: 2000, height: 30 }],
  };
  const w = await warningsOf(definition);
  assert.deepEqual(
    w.map((x) => [x.code, x.path]),
    [
      ['IMAGE_CLAMPED', 'content[0]'],
      ['IMAGE_CLAMPED', 'content[1]'],
      ['IMAGE_CLAMPED', 'content[2]'],
    ],
  );
  assert.match(w[1].message, /QR code of 1000 x 1000 pt/);
  const pages = layout(definition);
  const pageBox = { x: 0, y: 0, w: 300, h: 300 };
  for (const p of pages) for (const item of flatItems(p.items)) if (bounds(item)) assert.ok(inside(bounds(item)!, pageBox), `${item.kind} at ${JSON.stringify(bounds(item))}`);
  const bars = pages.flatMap((p) => flatItems(p.items)).filter((i) => i.kind === 'bars');
  const qr = bars[0] as Extract<(typeof bars)[number], { kind: 'bars' }>;
  assert.ok(Math.abs(qr.sx - qr.sy) < 1e-9, 'the QR code is square');
  assert.ok(qr.sx * 21 <= 260 + 1e-6, 'and fits the 260 pt content box');
});

test('WIDTH_CLAMPED: fixed table columns wider than the room are scaled down together', async () => {
  const definition = { page: { size: [300, 300], margin: 20 }, content: [{ table: { columns: [200, 200], rows: [['a', 'b']] } }] };
  const w = await warningsOf(definition);
  assert.deepEqual(w.map((x) => [x.code, x.path]), [['WIDTH_CLAMPED', 'content[0]']]);
  const [page] = layout(definition);
  for (const item of flatItems(page.items)) assert.ok(inside(bounds(item)!, { x: 0, y: 0, w: 300, h: 300 }));
});

test('a header and footer that leave no room for the content fail with TEMPLATE_INVALID at header', async () => {
  const e = await renderError({ page: { size: [200, 200], margin: 20 }, header: [{ text: 'H\n'.repeat(20) }], content: [{ text: 'x' }] });
  assert.equal(e.code, 'TEMPLATE_INVALID');
  assert.equal(e.path, 'header');
  assert.match(e.message, /leave .* pt .* for the content/);
});

test('CONTENT_OVERFLOW: a character wider than its column is reported once for all the cells it happens in, with the first cell', async () => {
  // 120 columns of 515 pt: each narrower than its own padding, so every "x" runs past its cell.
  const definition = { content: [{ table: { columns: Array(120).fill('*'), rows: [Array(120).fill('x')] } }] };
  const r = await renderPdf(definition, {}, { now: NOW });
  assert.deepEqual(r.warnings.map((x) => [x.code, x.path]), [['CONTENT_OVERFLOW', 'content[0].table.rows[0][0]']]);
  assert.match(r.warnings[0].message, /a character is wider than the 0 pt its text has .*\(and 119 more places\)$/);
  // What the warning says is what the PDF shows: the row's letters reach past the right margin.
  const { pages } = await readPdf(r.pdf);
  const right = Math.max(...pages[0].runs.filter((run) => run.str.includes('x')).map((run) => run.x + run.width));
  assert.ok(right > 595.28 - 40, `the x's end at ${right}`);
});

test('CONTENT_OVERFLOW: a line taller than a page, and a letter wider than its box in a header, once (not per page)', async () => {
  const tall = await warningsOf({ page: { size: [300, 420], margin: 20 }, content: [{ text: 'Hi', fontSize: 400 }] });
  assert.deepEqual(tall.map((x) => [x.code, x.path]), [['CONTENT_OVERFLOW', 'content[0]'], ['CONTENT_OVERFLOW', 'content[0]']]);
  assert.match(tall[0].message, /^a character is wider than the 260 pt its text has/);
  assert.match(tall[1].message, /^a line of text is 500 pt tall, more than the 380 pt a page has for it/);
  const definition = { header: [{ text: 'W', fontSize: 30, width: 10 }], content: [{ each: 'items', content: [{ text: '{{item}}', pageBreak: 'after' }] }] };
  const r = await renderPdf(definition, { items: [1, 2, 3, 4] }, { now: NOW });
  assert.ok(r.pages >= 4);
  assert.deepEqual(r.warnings.map((x) => [x.code, x.path, /runs past the box's edge$/.test(x.message)]), [['CONTENT_OVERFLOW', 'header[0]', true]]);
});

test('CONTENT_OVERFLOW: shrink-to-fit text without a fixed height that is still taller than the page (it had no warning)', async () => {
  const w = await warningsOf({ page: { size: [400, 50], margin: 5 }, content: [{ text: 'a', fontSize: 400, fit: 'shrink' }] });
  assert.deepEqual(w.map((x) => [x.code, x.path]), [['CONTENT_OVERFLOW', 'content[0]']]);
  assert.match(w[0].message, /^a line of text is [\d.]+ pt tall, more than the 40 pt a page has for it/);
});

test('CONTENT_OVERFLOW is not reported where text fits: broken long words, fixed heights (CONTENT_CLIPPED), shrink', async () => {
  const w = await warningsOf({
    content: [
      { text: 'A'.repeat(3000) },
      { table: { columns: [60, '*'], rows: [['Supercalifragilistic', 'word '.repeat(2000)]] } },
      { text: 'tall '.repeat(400), height: 40 },
      { text: 'EXPRESS', fontSize: 40, fit: 'shrink', width: 50 },
    ],
  });
  assert.deepEqual(w.map((x) => x.code), ['CONTENT_CLIPPED']);
});

test('DATA_UNFORMATTED: text given to number or currency, no date given to date (printed as it is), an object where text goes (printed as nothing)', async () => {
  const definition = {
    metadata: { title: 'Due {{due | date}}' },
    header: [{ text: 'Page total {{pageTotal | number}}' }],
    content: [
      { text: 'Dear {{customer}},' },
      { each: 'items', as: 'it', content: [{ text: '{{it.name}}: {{it.price | currency:"EUR"}}' }] },
      { text: 'Fine: {{ok | number:2}} {{okText | number}} {{when | date:"yyyy"}} {{epoch | date:"yyyy"}} {{nothing | number | default:"-"}} {{empty | currency}} {{nil | date}}' },
      { text: 'x\n'.repeat(120) },
    ],
  };
  const data = {
    due: 'soon',
    pageTotal: 'n/a',
    customer: { name: 'Ada' },
    items: [{ name: 'a', price: 'free' }, { name: 'b', price: 2 }, { name: 'c', price: 'TBD' }],
    ok: 3,
    okText: ' 12.5 ',
    when: '2026-01-02',
    epoch: 0,
    empty: '',
    nil: null,
  };
  const r = await renderPdf(definition, data, { now: NOW });
  assert.ok(r.pages > 1);
  assert.deepEqual(
    r.warnings.filter((w) => w.code !== 'DATA_MISSING').map((w) => [w.code, w.path, w.message]),
    [
      ['DATA_UNFORMATTED', 'metadata.title', 'data.due is the string "soon", not a date (ISO 8601 text or epoch milliseconds): "{{due | date}}" printed it as it is'],
      ['DATA_UNFORMATTED', 'content[0].text', 'data.customer is an object, which has no text: "{{customer}}" printed nothing'],
      ['DATA_UNFORMATTED', 'content[1].content[0].text', 'data.items[0].price is the string "free", not a number: "{{it.price | currency}}" printed it as it is (and 1 more items)'],
      ['DATA_UNFORMATTED', 'header[0].text', 'data.pageTotal is the string "n/a", not a number: "{{pageTotal | number}}" printed it as it is'],
    ],
  );
  const text = (await readPdf(r.pdf)).pages.map((p) => p.text).join('\n');
  assert.match(text, /a: free/);
  assert.match(text, /b: €2\.00/);
  assert.match(text, /Fine: 3\.00 12\.5 2026 1970 -/);
});
