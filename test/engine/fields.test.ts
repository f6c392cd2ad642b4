/**
 * Field types inferred from use (GET /v1/templates/{id}/fields): the examples' fields, and small
 * definitions for each rule: strong uses (number, date, boolean, image, array, object), weak ones
 * (printed text, bare conditions), and what happens when uses disagree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { templateFields } from '../../engine/index.ts';

/** The fields of a definition (validated on the way, like the service does) as {name: type}. */
function types(definition: unknown): Record<string, string> {
  return Object.fromEntries(templateFields(definition).map((f) => [f.name, f.type]));
}

const example = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/${name}/template.json`, import.meta.url), 'utf8')) as unknown;
const text = (t: string) => ({ text: t });

test('invoice example: amounts and quantities are numbers, dates dates, the logo an image, optional lines strings', () => {
  const t = types(example('invoice'));
  assert.equal(t['items[].qty'], 'number', 'every use of qty formats it as a number');
  for (const n of ['items[].unitPrice', 'items[].amount', 'subtotal', 'vat', 'total']) assert.equal(t[n], 'number', n);
  assert.equal(t.issued, 'date');
  assert.equal(t.due, 'date');
  assert.equal(t.logo, 'image');
  assert.equal(t.items, 'array');
  assert.equal(t.paid, 'boolean', 'a condition and nothing else');
  assert.equal(t['items[].detail'], 'string', 'tested, then printed');
  assert.equal(t['buyer.vatId'], 'string');
  assert.equal(t.vatRate, 'string', 'printed bare: nothing says more');
  assert.equal(t['items[].description'], 'string');
  assert.ok(!Object.values(t).includes('unknown'), JSON.stringify(t));
});

test('the other examples: every field typed by its uses', () => {
  const report = types(example('report'));
  assert.equal(report.rows, 'array');
  for (const n of ['summary.orders', 'summary.units', 'summary.revenue', 'rows[].units', 'rows[].revenue']) assert.equal(report[n], 'number', n);
  for (const n of ['period.from', 'period.to', 'rows[].date']) assert.equal(report[n], 'date', n);
  assert.equal(report['rows[].region'], 'string');
  const letter = types(example('letter'));
  assert.equal(letter['contract.monthlyFee'], 'number');
  assert.equal(letter['contract.endsOn'], 'date');
  const multilingual = types(example('multilingual'));
  assert.deepEqual([multilingual.items, multilingual['items[].qty'], multilingual['items[].price'], multilingual['items[].name']], ['array', 'number', 'number', 'string']);
});

test('numbers: number and currency filters, comparisons with a number literal (eq, ne, gt, gte, lt, lte)', () => {
  const t = types({
    content: [
      text('{{a | number:2}} {{b | currency:"EUR"}} {{c | default:0 | number}}'),
      { if: { gt: ['d', 1000] }, then: [text('{{d}}')] },
      { if: { lte: ['e', 0] }, then: [] },
      { if: { eq: ['f', 3] }, then: [] },
      { if: { not: { ne: ['g', 1.5] } }, then: [] },
      { if: { and: [{ gte: ['h', 1] }, { lt: ['h', 10] }] }, then: [] },
    ],
  });
  assert.deepEqual(t, { a: 'number', b: 'number', c: 'number', d: 'number', e: 'number', f: 'number', g: 'number', h: 'number' });
});

test('conditions: alone "boolean"; with any other use, that use decides', () => {
  const t = types({
    content: [
      { if: 'flag', then: [] },
      { if: 'note', then: [text('{{note}}')] },
      { if: 'lines', then: [{ each: 'lines', content: [text('{{item}}')] }] },
      { if: 'photo', then: [{ image: '{{photo}}' }] },
      { if: 'buyer', then: [text('{{buyer.name}}')] },
      { if: 'amount', then: [text('{{amount | currency}}')] },
      { if: { eq: ['paid', true] }, then: [text('paid: {{paid}}')] },
    ],
  });
  assert.deepEqual(t, {
    flag: 'boolean',
    note: 'string',
    lines: 'array',
    'lines[]': 'string',
    photo: 'image',
    buyer: 'object',
    'buyer.name': 'string',
    amount: 'number',
    paid: 'boolean',
  });
});

test('text and string comparisons say "string" only when nothing stronger does; null and placeholders say nothing', () => {
  const t = types({
    content: [
      text('{{name}} {{code | upper}}'),
      { if: { eq: ['status', 'paid'] }, then: [] },
      { if: { gt: ['due', '2025-01-01'] }, then: [text('{{due | date:"d MMM yyyy"}}')] },
      { if: { eq: ['missing', null] }, then: [] },
      { if: { gt: ['total', '{{limit}}'] }, then: [] },
      { if: { lt: ['spent', '{{budget | number}}'] }, then: [] },
      { link: 'https://example.com/{{slug}}', text: 'x', color: '{{accent}}' },
    ],
  });
  assert.deepEqual(t, {
    name: 'string',
    code: 'string',
    status: 'string',
    due: 'date',
    missing: 'unknown',
    total: 'unknown',
    limit: 'unknown',
    spent: 'unknown',
    budget: 'number',
    slug: 'string',
    accent: 'string',
  });
});

test('uses that disagree make "unknown"; uses that agree keep their type', () => {
  const t = types({
    content: [
      text('{{when | number}} {{when | date}}'),
      { image: '{{pic}}' },
      text('{{pic | number}}'),
      text('{{qty | number}} {{qty}} {{qty | default:"-"}}'),
      text('{{customer | number}} {{customer.name}}'),
      { each: 'rows', content: [text('{{item.x}}')] },
      text('{{rows.count}}'),
      { if: { eq: ['yes', true] }, then: [text('{{yes | number}}')] },
    ],
  });
  assert.deepEqual(t, {
    when: 'unknown',
    pic: 'unknown',
    qty: 'number',
    customer: 'unknown',
    'customer.name': 'string',
    rows: 'unknown',
    'rows[].x': 'string',
    'rows.count': 'string',
    yes: 'unknown',
  });
});

test('structure: a listed path read through a key is an object, through an index or a loop an array; paths only passed through are not listed', () => {
  const t = types({
    content: [
      text('{{a.b.c}} {{list[0]}} {{map["two words"]}} {{list}} {{map}}'),
      { if: 'a.b', then: [] },
      { each: 'orders', as: 'o', content: [{ each: 'o.lines', as: 'l', content: [text('{{l.sku}}')] }] },
    ],
  });
  assert.deepEqual(t, {
    'a.b.c': 'string',
    'list[0]': 'string',
    'map["two words"]': 'string',
    list: 'array',
    map: 'object',
    'a.b': 'object',
    orders: 'array',
    'orders[].lines': 'array',
    'orders[].lines[].sku': 'string',
  });
});

test('property: a printed path that other paths go through is an object (a.b, a["k"]), an array (a[0]), or unknown when both', () => {
  const step = fc.tuple(fc.constantFrom('.', '[0]', '["k"]'), fc.constantFrom('a', 'b', 'ab', 'x'));
  const path = fc.array(step, { maxLength: 4 }).map((steps) => 'a' + steps.map(([sep, key]) => (sep === '.' ? `.${key}` : sep)).join(''));
  fc.assert(
    fc.property(fc.array(path, { minLength: 1, maxLength: 12 }), (paths) => {
      const fields = templateFields({ content: paths.map((p) => text(`{{${p}}}`)) });
      const names = fields.map((f) => f.name);
      assert.equal(new Set(names).size, names.length, 'no duplicates');
      for (const f of fields) {
        // Every pair compared: the rule as the docs state it.
        const after = names.filter((o) => o.length > f.name.length && o.startsWith(f.name)).map((o) => o.slice(f.name.length, f.name.length + 2));
        const object = after.some((n) => n[0] === '.' || n === '["');
        const array = after.some((n) => n[0] === '[' && n !== '["');
        assert.equal(f.type, object && array ? 'unknown' : object ? 'object' : array ? 'array' : 'string', `${f.name} among ${JSON.stringify(names)}`);
      }
    }),
    { numRuns: 2000 },
  );
});

// The timeout is a guard against the quadratic comparison coming back (44 s in a test run), 50 times what it takes.
test('many fields, long paths and paths inside each other are found in time linear in the template (a 19,000-field template took 2 s)', { timeout: 15_000 }, () => {
  const many = templateFields({ content: [text('{{a}}'), ...Array.from({ length: 19_000 }, (_, i) => text(`{{a.b${i}}}`))] });
  assert.equal(many.length, 19_001);
  assert.deepEqual(many[0], { name: 'a', type: 'object' });
  const chain = templateFields({ content: Array.from({ length: 3000 }, (_, i) => text(`{{a${'.a'.repeat(i)}}}`)) });
  assert.deepEqual(chain.map((f) => f.type), [...Array(2999).fill('object'), 'string']);
});
