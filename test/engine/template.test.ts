import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RenderError } from '../../engine/errors.ts';
import {
  applyFilter,
  bindMetadata,
  bindNodes,
  bindString,
  bindValue,
  checkString,
  createScope,
  enterLoop,
  evaluateCondition,
  formatCurrency,
  formatDate,
  formatNumber,
  parseColor,
  parsePath,
  parseString,
  parseTemplate,
  resolvePath,
  templateFields,
  validateTemplate,
  type BoundNode,
  type Condition,
  type Node,
  type Template,
  type TemplateIssue,
} from '../../engine/template/index.ts';

const NOW = new Date('2024-03-05T14:30:00Z');

/** Parses a definition that must be valid. */
function valid(def: unknown): Template {
  const r = parseTemplate(def);
  if (!r.ok) assert.fail(`expected a valid template, got ${JSON.stringify(r.errors, null, 2)}`);
  return r.template;
}

/** Parses a definition that must be invalid; returns its issues. */
function invalid(def: unknown): TemplateIssue[] {
  const r = parseTemplate(def);
  if (r.ok) assert.fail('expected validation errors');
  return r.errors;
}

function paths(issues: TemplateIssue[]): string[] {
  return issues.map((i) => i.path);
}

function messageAt(issues: TemplateIssue[], path: string): string {
  const hit = issues.find((i) => i.path === path);
  if (!hit) assert.fail(`no issue at ${path}; got ${JSON.stringify(issues, null, 2)}`);
  return hit.message;
}

/** Binds `content` of a (validated) definition; without the template paths kept on the nodes (TEMPLATE_PATH). */
function bind(content: unknown[], data: unknown, opts: Partial<Parameters<typeof bindNodes>[2]> = {}): BoundNode[] {
  const t = valid({ content });
  return withoutPaths(bindNodes(t.content, data, { now: NOW, ...opts }));
}

/** A copy of bound nodes without the symbol-keyed template paths, to compare them with plain objects. */
function withoutPaths<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutPaths) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutPaths(v)])) as T;
  return value;
}

/** Binds one text string at the root. */
function text(s: string, data: unknown = {}, language?: string): string {
  const out = bind([{ text: s }], data, { language });
  return (out[0] as { text: string }).text;
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const key of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[key]);
    Object.freeze(v);
  }
  return v;
}

function throwsRender(fn: () => unknown, code: string, path?: string, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof RenderError, `expected a RenderError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (path !== undefined) assert.equal(e.path, path);
    if (message) assert.match(e.message, message);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Schema

test('a complete template validates and page size names are canonical', () => {
  const t = valid({
    page: { size: 'a4', orientation: 'landscape', margin: [40, 30] },
    font: { family: 'Noto Sans', size: 10, color: '#111', lineHeight: 1.25 },
    styles: { h1: { fontSize: 20, fontWeight: 'bold', color: 'navy' }, muted: { color: '#888888' } },
    metadata: { title: 'Invoice {{number}}', author: 'ACME', language: 'de-CH' },
    header: [{ text: 'ACME', style: ['h1', 'muted'] }],
    footer: [{ text: 'Page {{$page}} of {{$pages}}', textAlign: 'right' }],
    background: [],
    content: [
      { text: ['plain ', { text: 'bold', fontWeight: 'bold' }, { text: 'site', link: 'https://example.com/{{id}}' }] },
      { image: '{{logo}}', width: 120, height: 40, fit: 'contain' },
      {
        table: {
          columns: [120, 'auto', '*', '2*'],
          header: [['A', 'B', 'C', { text: 'D', colSpan: 1 }]],
          rows: [
            ['1', '2', '3', '4'],
            { each: 'items', as: 'it', row: ['{{it.a}}', '{{it.b}}', { text: '{{it.c}}', colSpan: 2 }] },
            { if: { gt: ['items.length', 3] }, then: [['many', '', '', '']], else: [] },
          ],
          footer: [['x', 'y', 'z', 'w']],
          borders: 'horizontal',
          stripe: '#f5f5f5',
          cellPadding: [2, 4, 2, 4],
          headerStyle: { fontWeight: 'bold', backgroundColor: '{{brand}}' },
        },
      },
      { columns: [{ width: '*', content: [{ text: 'left' }] }, { width: 150, content: [] }], gap: 12 },
      { stack: [{ text: 'in a box' }], padding: 8, border: { width: 1, color: 'gray' }, keepTogether: true },
      { list: ['a', { text: 'b' }], marker: 'upper-roman', start: 3 },
      { qrcode: '{{url}}', size: 80 },
      { barcode: '{{sku}}', format: 'code128', height: 40 },
      { line: { thickness: 1, color: '#cccccc', dash: [2, 2] } },
      { spacer: 12 },
      { pageBreak: true },
      { each: 'items', content: [{ text: '{{item.a}}' }] },
      { if: { and: ['customer.vip', { not: { eq: ['customer.country', 'CH'] } }] }, then: [{ text: 'VIP' }] },
      { text: 'x', border: { top: { width: 1, color: 'red' }, bottom: { width: 2 } }, fontWeight: 700 },
    ],
  });
  assert.equal(t.page?.size, 'A4');
  assert.equal(t.content.length, 14);
  assert.deepEqual(validateTemplate({ content: [] }), { ok: true });
  assert.equal(valid({ content: [], page: { size: [300, 400] } }).page?.size?.toString(), '300,400');
});

test('every fault is reported with its exact path', () => {
  const issues = invalid({
    page: { size: 'A7', margin: [1, 2, 3] },
    content: [
      { text: 'Hello', color: 'blu' },
      { txt: 'typo' },
      { text: 'a', image: 'b' },
      {
        table: {
          rows: [
            ['a', 'b'],
            ['c', 'd'],
            ['e', 5],
          ],
        },
      },
      { text: 'x', style: 'title' },
      { stack: [{ text: 'y', fontSize: 0 }, { spacer: -1 }] },
      { text: 'z', colr: 'red' },
    ],
  });
  assert.deepEqual(paths(issues), [
    'page.size',
    'page.margin',
    'content[0].color',
    'content[1]',
    'content[2]',
    'content[3].table.rows[2][1]',
    'content[4].style',
    'content[5].stack[0].fontSize',
    'content[5].stack[1].spacer',
    'content[6].colr',
  ]);
  assert.match(messageAt(issues, 'page.size'), /unknown page size "A7"/);
  assert.match(messageAt(issues, 'page.margin'), /\[vertical, horizontal\] or \[top, right, bottom, left\]/);
  assert.match(messageAt(issues, 'content[0].color'), /"blu" is not a colour.*did you mean "blue"/);
  assert.equal(
    messageAt(issues, 'content[1]'),
    'a node needs exactly one of text, image, table, columns, stack, list, qrcode, barcode, line, spacer, pageBreak, toc, each, if; found none (unknown key "txt": did you mean "text"?)',
  );
  assert.match(messageAt(issues, 'content[2]'), /; found both text and image$/);
  assert.equal(messageAt(issues, 'content[3].table.rows[2][1]'), 'a table cell is a string, a node or {} (a placeholder under a span); got the number 5');
  assert.match(messageAt(issues, 'content[4].style'), /unknown style "title"; the template defines no styles/);
  assert.match(messageAt(issues, 'content[5].stack[0].fontSize'), /must be at least 1/);
  assert.match(messageAt(issues, 'content[5].stack[1].spacer'), /must be at least 0/);
  assert.equal(messageAt(issues, 'content[6].colr'), 'unknown key "colr" (did you mean "color"?)');
});

test('nested shapes report precise paths: spans, columns, row templates, conditions, styles', () => {
  const issues = invalid({
    styles: { h1: { fontSize: 12, style: 'h2' }, h2: { color: '{{brand}}' } },
    content: [
      { text: ['a', { text: 'b', color: 'nope' }, 7] },
      { columns: [{ width: '*', content: [{ text: 'ok' }] }, { width: 'wide', content: [{ list: [1] }] }] },
      {
        table: {
          columns: [100, 100],
          rows: [{ each: 'items', row: [{ text: 'c', colSpan: 0 }] }, { each: 'x', if: 'y', row: [] }, { if: 'y', then: [[{ bogus: 1 }]] }],
        },
      },
      { if: { eq: ['total'] }, then: [] },
      { if: { xor: ['a', 'b'] } },
      { text: 'q', style: ['h1', 'h3'], fontWeight: 450 },
      { pageBreak: false },
      { each: 'items', as: '$it', content: [] },
    ],
  });
  assert.deepEqual(paths(issues), [
    'styles.h1.style',
    'styles.h2.color',
    'content[0].text[1].color',
    'content[0].text[2]',
    'content[1].columns[1].width',
    'content[1].columns[1].content[0].list[0]',
    'content[2].table.rows[0].row[0].colSpan',
    'content[2].table.rows[1]',
    'content[2].table.rows[2].then[0][0]',
    'content[3].if.eq',
    'content[4].if',
    'content[5].style[1]',
    'content[5].fontWeight',
    'content[6].pageBreak',
    'content[7].as',
  ]);
  assert.match(messageAt(issues, 'styles.h1.style'), /cannot use other styles/);
  assert.match(messageAt(issues, 'styles.h2.color'), /placeholders are not allowed here/);
  assert.match(messageAt(issues, 'content[2].table.rows[1]'), /found both each and if/);
  assert.match(messageAt(issues, 'content[3].if.eq'), /expected \[path, value\]/);
  assert.match(messageAt(issues, 'content[4].if'), /a condition is a data path or an object with one of not, and, or, eq/);
  assert.match(messageAt(issues, 'content[5].style[1]'), /unknown style "h3" \(did you mean "h1"\?\); styles: h1, h2/);
  assert.match(messageAt(issues, 'content[5].fontWeight'), /multiple of 100/);
  assert.match(messageAt(issues, 'content[6].pageBreak'), /expected true, got false/);
});

test('placeholder syntax errors are validation errors at the path of the string', () => {
  const issues = invalid({
    metadata: { title: 'Invoice {{number', language: 'not a tag!' },
    content: [
      { text: 'Hi {{ name | uper }}' },
      { text: ['x', { text: 'y', link: '<<url | currency:EUR>>' }] },
      { image: '{{ $logo }}' },
      { text: '{{ d | date:"YYYY-MM-DD" }}' },
      { text: '{{ n | number:"2" }}' },
      { text: '{{}}' },
      { table: { rows: [['ok', '{{ a | default }}']] } },
    ],
  });
  assert.deepEqual(paths(issues), [
    'metadata.title',
    'metadata.language',
    'content[0].text',
    'content[1].text[1].link',
    'content[2].image',
    'content[3].text',
    'content[4].text',
    'content[5].text',
    'content[6].table.rows[0][1]',
  ]);
  assert.equal(messageAt(issues, 'metadata.title'), 'unclosed "{{" at character 9 (no matching "}}")');
  assert.match(messageAt(issues, 'content[0].text'), /unknown filter "uper" \(did you mean "upper"\?\)/);
  assert.match(messageAt(issues, 'content[1].text[1].link'), /quoted strings or numbers/);
  assert.match(messageAt(issues, 'content[2].image'), /unknown built-in "\$logo"/);
  assert.match(messageAt(issues, 'content[3].text'), /unknown letter "Y" in date pattern/);
  assert.match(messageAt(issues, 'content[4].text'), /count of decimals/);
  assert.match(messageAt(issues, 'content[5].text'), /empty placeholder/);
  assert.match(messageAt(issues, 'content[6].table.rows[0][1]'), /"default" takes one argument/);
  // The escaped form is literal text, not an error.
  assert.equal(checkString('literal \\{{braces}} and \\<<angles>>'), null);
});

test('prototype keys are refused in definitions, placeholders, each and if', () => {
  const def = JSON.parse(`{
    "__proto__": {"polluted": true},
    "styles": {"constructor": {"fontSize": 3}},
    "content": [
      {"text": "a", "prototype": 1},
      {"text": "{{ user.__proto__.x }}"},
      {"each": "items.constructor", "content": []},
      {"if": {"eq": ["a.prototype", 1]}, "then": []},
      {"text": "<<constructor>>"},
      {"each": "items", "as": "__proto__", "content": []}
    ]
  }`);
  const issues = invalid(def);
  assert.deepEqual(paths(issues), [
    '__proto__',
    'styles.constructor',
    'content[0].prototype',
    'content[1].text',
    'content[2].each',
    'content[3].if.eq[0]',
    'content[4].text',
    'content[5].as',
  ]);
  assert.equal(messageAt(issues, '__proto__'), 'the key "__proto__" is not allowed');
  assert.match(messageAt(issues, 'content[1].text'), /"__proto__" is not allowed in a data path/);
  assert.match(messageAt(issues, 'content[2].each'), /"constructor" is not allowed in a data path/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('nesting deeper than maxDepth is refused before zod runs, without recursion', () => {
  let node: unknown = { text: 'deep' };
  for (let i = 0; i < 30; i++) node = { stack: [node] };
  const issues = invalid({ content: [node] });
  assert.equal(issues.length, 1);
  assert.match(issues[0].message, /nested deeper than 48 levels/);
  assert.match(issues[0].path, /^content\[0\]\.stack\[0\]\.stack\[0\]/);
  // A custom limit, and a hostile 200,000-level array that would overflow a recursive walker.
  assert.equal(parseTemplate({ content: [{ stack: [{ stack: [] }] }] }, 4).ok, false);
  assert.equal(parseTemplate({ content: [{ stack: [{ stack: [] }] }] }, 6).ok, true);
  let hostile: unknown[] = [];
  const root = hostile;
  for (let i = 0; i < 200_000; i++) {
    const next: unknown[] = [];
    hostile.push(next);
    hostile = next;
  }
  const r = parseTemplate({ content: root });
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.errors.length, 1);
});

test('non-JSON values and a non-object root are refused', () => {
  assert.deepEqual(invalid(null), [{ path: '', message: 'expected an object, got null' }]);
  const issues = invalid({ content: [{ text: 'a', fontSize: Infinity }, { spacer: () => 1 }] });
  assert.deepEqual(paths(issues), ['content[0].fontSize', 'content[1].spacer']);
  assert.match(messageAt(issues, 'content[1].spacer'), /not a JSON value/);
  assert.deepEqual(paths(invalid({})), ['content']);
  assert.equal(messageAt(invalid({}), 'content'), 'is required (an array)');
});

test('colours: #rgb, #rrggbb and CSS names', () => {
  assert.deepEqual(parseColor('#fff'), [255, 255, 255]);
  assert.deepEqual(parseColor('#1A2b3C'), [26, 43, 60]);
  assert.deepEqual(parseColor('RebeccaPurple'), [102, 51, 153]);
  assert.deepEqual(parseColor('lightgoldenrodyellow'), [250, 250, 210]);
  assert.equal(parseColor('#12345'), null);
  assert.equal(parseColor('#ggg'), null);
  assert.equal(parseColor('toString'), null);
  assert.equal(parseColor('__proto__'), null);
});

// ---------------------------------------------------------------------------------------------
// Placeholders and paths

test('placeholders: both syntaxes, filters with arguments, escapes, caching', () => {
  const p = parseString('Dear {{ customer.name | upper }}, total <<total|currency:"EUR">>!');
  assert.equal(p.parts.length, 5);
  assert.equal(p.parts[0], 'Dear ');
  const first = p.parts[1];
  const second = p.parts[3];
  assert.ok(typeof first !== 'string' && typeof second !== 'string');
  assert.deepEqual(first.path.segments, ['customer', 'name']);
  assert.deepEqual(first.filters, [{ name: 'upper', args: [] }]);
  assert.deepEqual(second.filters, [{ name: 'currency', args: ['EUR'] }]);
  assert.equal(second.source, '<<total|currency:"EUR">>');
  assert.equal(p.single, null);
  assert.equal(parseString('Dear {{ customer.name | upper }}, total <<total|currency:"EUR">>!'), p, 'cached');

  const single = parseString("{{ d | date:'yyyy-MM-dd' | default:\"-\" }}");
  assert.ok(single.single);
  assert.deepEqual(single.single.filters, [
    { name: 'date', args: ['yyyy-MM-dd'] },
    { name: 'default', args: ['-'] },
  ]);
  assert.deepEqual(parseString('{{ x | default: 0 }}').single?.filters[0].args, [0]);
  assert.deepEqual(parseString('{{ items[0].name }}').single?.path.segments, ['items', 0, 'name']);
  assert.deepEqual(parseString(`{{ row["unit price"] }}`).single?.path.segments, ['row', 'unit price']);
  assert.equal(parseString('{{ $index }}').single?.path.builtin, '$index');
  assert.deepEqual(parseString('no placeholders').parts, ['no placeholders']);
  assert.equal(parseString('a \\{{b}} c').literal, 'a {{b}} c');
  assert.equal(text('a \\{{b}} \\<<c>>'), 'a {{b}} <<c>>');
  throwsRender(() => parseString('x {{ y'), 'TEMPLATE_INVALID', undefined, /unclosed "\{\{"/);
  throwsRender(() => parseString('{{ $now.x }}'), 'TEMPLATE_INVALID', undefined, /has no properties/);
  throwsRender(() => parseString('{{ a | number:1:2 }}'), 'TEMPLATE_INVALID');
  assert.deepEqual(parsePath('{{ orders[2].lines }}').segments, ['orders', 2, 'lines']);
  throwsRender(() => parsePath('a | upper'), 'TEMPLATE_INVALID', undefined, /filters are not allowed/);
});

test('paths resolve own properties only, aliases first, and refuse prototype segments', () => {
  const data = JSON.parse('{"a": {"b": [10, {"c": "deep"}]}, "__proto__": {"polluted": "yes"}, "item": "root item"}');
  const scope = createScope(data, { now: NOW });
  assert.equal(resolvePath('a.b[1].c', scope), 'deep');
  assert.equal(resolvePath('a.b.length', scope), 2);
  assert.equal(resolvePath('a.toString', scope), undefined);
  assert.equal(resolvePath('a.b.map', scope), undefined);
  assert.equal(resolvePath('polluted', scope), undefined);
  assert.equal(resolvePath('item', scope), 'root item');
  const inner = enterLoop(enterLoop(scope, 'item', { x: 1 }, 4), 'line', 'L', 7);
  assert.deepEqual(resolvePath('item', inner), { x: 1 });
  assert.equal(resolvePath('item.x', inner), 1);
  assert.equal(resolvePath('$index', inner), 7);
  assert.equal(resolvePath('$now', inner), NOW);
  assert.equal(resolvePath('$page', inner), undefined);
  throwsRender(() => resolvePath('a.constructor', scope), 'TEMPLATE_INVALID');
  throwsRender(() => bindString('{{ __proto__.polluted }}', scope), 'TEMPLATE_INVALID');
  assert.equal(bindString('[{{polluted}}]', scope), '[]');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
});

// ---------------------------------------------------------------------------------------------
// Filters

test('upper, lower and default', () => {
  assert.equal(text('{{ name | upper }}/{{ name | lower }}', { name: 'Ünïcode Name' }), 'ÜNÏCODE NAME/ünïcode name');
  assert.equal(text('{{ city | upper }}', { city: 'istanbul' }, 'tr'), 'İSTANBUL');
  assert.equal(text('[{{ a | default:"-" }}][{{ b | default:"-" }}][{{ c | default:"-" }}][{{ d | default:"-" }}]', { b: null, c: '', d: 0 }), '[-][-][-][0]');
  assert.equal(text("{{ a | default:'n/a' | upper }}"), 'N/A');
  assert.equal(text('{{ a | default: 42 }}'), '42');
  assert.equal(text('[{{ missing | upper }}][{{ missing | number }}][{{ missing | date }}]'), '[][][]');
});

// Expected numbers and dates come from this Node's own Intl data (ICU): separators and default date
// styles differ between ICU versions.
const num = (value: number, locale: string, options: Intl.NumberFormatOptions = { maximumFractionDigits: 3 }) => new Intl.NumberFormat(locale, options).format(value);
const fixed = (value: number, locale: string, decimals: number) => num(value, locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const money = (value: number, locale: string, currency: string) => new Intl.NumberFormat(locale, { style: 'currency', currency }).format(value);
const mediumDate = (iso: string, locale: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));

test('number and currency follow Intl in the template language', () => {
  assert.equal(formatNumber(1234.5, 'en'), num(1234.5, 'en'));
  assert.equal(formatNumber(1234.5678, 'de'), num(1234.5678, 'de'));
  assert.match(String(formatNumber(1234.5678, 'de')), /^1\.234,568$/, 'German grouping and decimal separators');
  assert.equal(formatNumber('1234.5', 'de', 2), fixed(1234.5, 'de', 2));
  assert.equal(formatNumber(1234567.891, 'fr', 2), fixed(1234567.891, 'fr', 2));
  assert.equal(formatNumber('abc', 'en', 2), 'abc');
  assert.equal(formatCurrency(1234.5, 'en'), money(1234.5, 'en', 'USD'));
  assert.equal(formatCurrency(1234.5, 'de', 'EUR'), money(1234.5, 'de', 'EUR'));
  assert.match(String(formatCurrency(1234.5, 'de', 'EUR')), /^1\.234,50\s€$/);
  assert.equal(formatCurrency(1234.5, 'fr', 'eur'), money(1234.5, 'fr', 'EUR'));
  assert.equal(text('{{ total | currency:"EUR" }}', { total: 1234.5 }, 'de'), money(1234.5, 'de', 'EUR'));
  assert.equal(text('{{ total | currency }}', { total: 1234.5 }), money(1234.5, 'en', 'USD'));
  assert.equal(text('{{ qty | number:2 }}', { qty: 3 }, 'de'), fixed(3, 'de', 2));
  assert.equal(text('{{ qty | number }}', { qty: 1000000 }), num(1000000, 'en'));
  assert.equal(text('{{ qty | number:0 }}', { qty: 2.5 }), '3');
  // Not a number: unchanged.
  assert.equal(text('{{ qty | currency:"EUR" }}', { qty: 'n/a' }), 'n/a');
});

test('date patterns, names from Intl, literals and invalid dates', () => {
  assert.equal(formatDate('2024-03-05', 'en', 'yyyy-MM-dd'), '2024-03-05');
  assert.equal(formatDate('2024-03-05', 'en', 'd MMMM yyyy'), '5 March 2024');
  assert.equal(formatDate('2024-03-05', 'en', 'MMM d, yy'), 'Mar 5, 24');
  assert.equal(formatDate('2024-03-05', 'en', 'EEEE, M/d'), 'Tuesday, 3/5');
  assert.equal(formatDate('2024-03-05', 'en', 'EEE dd.MM.'), 'Tue 05.03.');
  assert.equal(formatDate('2024-03-05', 'de', 'EEEE, d. MMMM yyyy'), 'Dienstag, 5. März 2024');
  assert.equal(formatDate('2024-03-05', 'ru', 'd MMMM yyyy'), '5 марта 2024');
  assert.equal(formatDate('2024-03-05', 'ru', 'MMMM yyyy'), 'март 2024');
  assert.equal(formatDate('2024-03-05T15:07:09Z', 'en', 'HH:mm:ss H'), '15:07:09 15');
  assert.equal(formatDate('2024-03-05T15:07:09Z', 'en', 'hh:mm a / h a'), '03:07 PM / 3 PM');
  assert.equal(formatDate('2024-03-05T00:30:00Z', 'en', 'h:mm a'), '12:30 AM');
  assert.equal(formatDate('2024-03-05T14:30:00Z', 'en', "d MMM yyyy 'at' HH:mm"), '5 Mar 2024 at 14:30');
  assert.equal(formatDate('2024-03-05', 'en', "dd 'o''clock' ''yy"), "05 o'clock '24");
  // The wall clock of an ISO string with an offset is kept; epoch milliseconds are UTC.
  assert.equal(formatDate('2024-03-05T10:00:00+02:00', 'en', 'HH:mm'), '10:00');
  assert.equal(formatDate(0, 'en', 'yyyy-MM-dd HH:mm'), '1970-01-01 00:00');
  assert.equal(formatDate(Date.UTC(2023, 11, 31, 23, 59), 'en', 'dd/MM/yyyy HH:mm'), '31/12/2023 23:59');
  // Without a pattern: Intl dateStyle "medium".
  assert.equal(formatDate('2024-03-05', 'en'), mediumDate('2024-03-05', 'en'));
  assert.equal(formatDate('2024-03-05', 'de'), mediumDate('2024-03-05', 'de'));
  // Invalid dates are returned unchanged, never thrown.
  assert.equal(formatDate('2024-02-30', 'en', 'yyyy'), '2024-02-30');
  assert.equal(formatDate('next tuesday', 'en'), 'next tuesday');
  assert.equal(formatDate(Number.MAX_VALUE, 'en'), Number.MAX_VALUE);
  assert.equal(text('{{ when | date:"dd.MM.yyyy" }}', { when: 'soon' }), 'soon');
  assert.equal(text('{{ when | date:"d. MMMM" }}', { when: '2024-12-24' }, 'de'), '24. Dezember');
  assert.equal(text('{{ $now }}'), '2024-03-05T14:30:00.000Z');
  assert.equal(text('{{ $now | date:"yyyy-MM-dd HH:mm" }}'), '2024-03-05 14:30');
  assert.equal(applyFilter({ name: 'date', args: [] }, '2024-03-05', 'fr'), mediumDate('2024-03-05', 'fr'));
});

// ---------------------------------------------------------------------------------------------
// Binding

test('substitution: missing values, numbers, booleans, structures, built-ins', () => {
  const data = { name: 'Ann', n: 1.5, zero: 0, yes: true, no: false, list: [1, 2], obj: { a: 1 }, nul: null };
  assert.equal(text('Hi {{name}} <<name>>!', data), 'Hi Ann Ann!');
  assert.equal(text('[{{missing}}][{{missing.deep.path}}][{{nul}}]', data), '[][][]');
  assert.equal(text('{{n}} {{zero}} {{yes}} {{no}}', data), '1.5 0 true false');
  assert.equal(text('[{{list}}][{{obj}}]', data), '[][]');
  assert.equal(text('{{ list[1] }} {{ list.length }} {{ obj.a }}', data), '2 2 1');
  assert.equal(text('{{n}}', data), '1.5', 'a single placeholder still binds to a string in text');
  assert.equal(text('p{{$page}}/{{$pages}}'), 'p/', 'no page context outside header/footer');
  const footer = bindNodes([{ text: 'Page {{$page}} of {{$pages}}' }], {}, { now: NOW, page: { page: 2, pages: 5 }, path: 'footer' });
  assert.deepEqual(withoutPaths(footer), [{ text: 'Page 2 of 5' }]);
  const scope = createScope(data);
  assert.equal(bindValue('{{n}}', scope), 1.5);
  assert.deepEqual(bindValue('{{list}}', scope), [1, 2]);
  assert.equal(bindValue('{{missing}}', scope), undefined);
  assert.equal(bindValue('n={{n}}', scope), 'n=1.5');
});

test('nodes bind to new objects with style properties copied and the template untouched', () => {
  const t = valid({
    content: [
      {
        text: ['Dear ', { text: '{{name}}', fontWeight: 'bold', link: 'mailto:{{email}}' }, { text: 'no link', link: '{{none}}' }],
        margin: [4, 8],
        style: 'x',
        color: '{{brand}}',
        backgroundColor: '{{missingColour}}',
      },
      { image: '{{logo}}', width: 50, fit: 'cover' },
      { qrcode: 'https://x.test/{{id}}', size: 60 },
      { barcode: '{{sku}}', format: 'ean13' },
      { line: { thickness: 2, color: '{{brand}}' } },
      { columns: [{ width: 100, content: [{ text: '{{id}}' }] }], gap: 4 },
      { list: ['{{name}}', { text: 'b' }], marker: 'decimal' },
      { stack: [{ spacer: 5 }, { pageBreak: true }], border: { top: { width: 1, color: '{{brand}}' } } },
    ],
    styles: { x: { fontSize: 9 } },
  });
  deepFreeze(t);
  const data = { name: 'Ann', email: 'ann@x.test', brand: '#336699', logo: 'data:image/png;base64,AAAA', id: 7, sku: '4006381333931' };
  const out = bindNodes(t.content, data, { now: NOW });
  assert.deepEqual(withoutPaths(out), [
    {
      text: ['Dear ', { text: 'Ann', fontWeight: 'bold', link: 'mailto:ann@x.test' }, { text: 'no link' }],
      margin: [4, 8],
      style: 'x',
      color: '#336699',
    },
    { image: 'data:image/png;base64,AAAA', width: 50, fit: 'cover' },
    { qrcode: 'https://x.test/7', size: 60 },
    { barcode: '4006381333931', format: 'ean13' },
    { line: { thickness: 2, color: '#336699' } },
    { columns: [{ width: 100, content: [{ text: '7' }] }], gap: 4 },
    { list: [{ text: 'Ann' }, { text: 'b' }], marker: 'decimal' },
    { stack: [{ spacer: 5 }, { pageBreak: true }], border: { top: { width: 1, color: '#336699' } } },
  ]);
  for (let i = 0; i < out.length; i++) assert.notEqual(out[i], t.content[i] as unknown);
  throwsRender(
    () => bindNodes(t.content, { ...data, brand: 'not-a-colour' }, { now: NOW }),
    'DATA_INVALID',
    'data.brand',
    /"not-a-colour" from the data \(at content\[0\]\.color\) is not #rgb/,
  );
});

test('each expands with the alias and $index, nests, and skips missing arrays', () => {
  const content = [
    {
      each: 'orders',
      as: 'order',
      content: [
        { text: 'Order {{$index}}: {{order.id}}' },
        { each: 'order.lines', as: 'line', content: [{ text: '{{order.id}}/{{$index}} {{line.sku}} x{{line.qty}}' }] },
      ],
    },
    { each: 'nothing', content: [{ text: 'never' }] },
    { each: 'tags', content: [{ text: '#{{item}}' }] },
  ];
  const data = {
    orders: [
      { id: 'A', lines: [{ sku: 'S1', qty: 2 }, { sku: 'S2', qty: 1 }] },
      { id: 'B', lines: [] },
    ],
    tags: ['x', 'y'],
  };
  assert.deepEqual(bind(content, data), [
    { text: 'Order 0: A' },
    { text: 'A/0 S1 x2' },
    { text: 'A/1 S2 x1' },
    { text: 'Order 1: B' },
    { text: '#x' },
    { text: '#y' },
  ]);
  throwsRender(() => bind([{ text: 'a' }, { each: 'orders', content: [] }], { orders: { a: 1 } }), 'DATA_INVALID', 'data.orders', /"each" at content\[1\] needs an array at "orders", got an object/);
  throwsRender(() => bind([{ each: 'n', content: [] }], { n: 5 }), 'DATA_INVALID', 'data.n', /got the number 5/);
  // Inside a loop, the path is the item's place in the data.
  throwsRender(
    () => bind([{ each: 'orders', as: 'o', content: [{ each: 'o.lines', content: [] }] }], { orders: [{ lines: [] }, { lines: 'none' }] }),
    'DATA_INVALID',
    'data.orders[1].lines',
    /"each" at content\[0\]\.content\[0\] needs an array at "o\.lines", got the string "none"/,
  );
  // each/if with style properties wrap their output in one stack.
  assert.deepEqual(bind([{ each: 'tags', content: [{ text: '{{item}}' }], margin: 4, keepTogether: true }], data), [
    { stack: [{ text: 'x' }, { text: 'y' }], margin: 4, keepTogether: true },
  ]);
});

test('tables: row each, row if, string cells, header/footer cells and cell each/if', () => {
  const out = bind(
    [
      {
        table: {
          columns: ['*', 60],
          header: [['Item', { text: 'Qty', textAlign: 'right' }]],
          rows: [
            ['first', '-'],
            { each: 'items', as: 'it', row: ['{{$index}}. {{it.name}}', { text: '{{it.qty | number:1}}', textAlign: 'right' }] },
            { if: { gt: ['items.length', 1] }, then: [['many', '{{items.length}}']], else: [['few', '']] },
            { if: 'missing', then: [['no', 'no']] },
            [{ if: 'vip', then: [{ text: 'VIP' }], else: [{ text: 'regular' }] }, { each: 'items', content: [{ text: '{{item.name}}' }] }],
          ],
          footer: [['Total', '{{total}}']],
          stripe: '{{stripe}}',
        },
      },
    ],
    { items: [{ name: 'Pen', qty: 2 }, { name: 'Ink', qty: 0.5 }], total: 3, vip: false, stripe: 'whitesmoke' },
  );
  assert.deepEqual(out, [
    {
      table: {
        columns: ['*', 60],
        header: [[{ text: 'Item' }, { text: 'Qty', textAlign: 'right' }]],
        rows: [
          [{ text: 'first' }, { text: '-' }],
          [{ text: '0. Pen' }, { text: '2.0', textAlign: 'right' }],
          [{ text: '1. Ink' }, { text: '0.5', textAlign: 'right' }],
          [{ text: 'many' }, { text: '2' }],
          [{ text: 'regular' }, { stack: [{ text: 'Pen' }, { text: 'Ink' }] }],
        ],
        footer: [[{ text: 'Total' }, { text: '3' }]],
        stripe: 'whitesmoke',
      },
    },
  ]);
  // A cell each over nothing still fills its cell.
  const empty = bind([{ table: { rows: [[{ each: 'none', content: [{ text: 'x' }], colSpan: 2 }]] } }], {});
  assert.deepEqual((empty[0] as { table: { rows: unknown } }).table.rows, [[{ text: '', colSpan: 2 }]]);
  throwsRender(() => bind([{ table: { rows: [{ each: 'items', row: ['x'] }] } }], { items: 'abc' }), 'DATA_INVALID', 'data.items', /"each" at content\[0\]\.table\.rows\[0\]/);
});

test('if: every condition form', () => {
  const data = {
    yes: true,
    zero: 0,
    empty: '',
    none: [],
    some: [1],
    name: 'Ann',
    total: 150,
    totalText: '150',
    limit: 100,
    country: 'CH',
    nul: null,
  };
  const scope = createScope(data);
  const check = (c: Condition): boolean => evaluateCondition(c, scope);
  assert.equal(check('yes'), true);
  assert.equal(check('name'), true);
  assert.equal(check('some'), true);
  for (const falsy of ['zero', 'empty', 'none', 'missing', 'nul', 'missing.deep']) assert.equal(check(falsy), false, falsy);
  assert.equal(check({ not: 'zero' }), true);
  assert.equal(check({ and: ['yes', 'name'] }), true);
  assert.equal(check({ and: ['yes', 'empty'] }), false);
  assert.equal(check({ or: ['empty', 'none', 'some'] }), true);
  assert.equal(check({ or: ['empty', 'none'] }), false);
  assert.equal(check({ eq: ['country', 'CH'] }), true);
  assert.equal(check({ eq: ['total', 150] }), true);
  assert.equal(check({ eq: ['totalText', 150] }), true, 'a numeric string equals its number');
  assert.equal(check({ eq: ['yes', true] }), true);
  assert.equal(check({ eq: ['missing', null] }), true);
  assert.equal(check({ ne: ['country', 'DE'] }), true);
  assert.equal(check({ ne: ['total', 150] }), false);
  assert.equal(check({ gt: ['total', 100] }), true);
  assert.equal(check({ gt: ['totalText', 1000] }), false, 'numbers compare numerically, not as text');
  assert.equal(check({ gte: ['total', 150] }), true);
  assert.equal(check({ lt: ['total', 150] }), false);
  assert.equal(check({ lte: ['total', 150] }), true);
  assert.equal(check({ lt: ['name', 'Bob'] }), true, 'strings compare lexically');
  assert.equal(check({ gt: ['name', 'Bob'] }), false);
  assert.equal(check({ gt: ['missing', 1] }), false, 'missing values are never ordered');
  assert.equal(check({ gt: ['total', '{{limit}}'] }), true, 'a literal may be a placeholder');
  assert.equal(check({ gt: ['total', 'abc'] }), false);

  const content = [
    { if: 'yes', then: [{ text: 'then' }], else: [{ text: 'else' }] },
    { if: { not: 'yes' }, then: [{ text: 'then' }], else: [{ text: 'else' }] },
    { if: 'zero', then: [{ text: 'x' }] },
    { if: { and: [{ gte: ['total', 150] }, { or: [{ eq: ['country', 'DE'] }, { eq: ['country', 'CH'] }] }] }, then: [{ text: 'DACH' }] },
  ];
  assert.deepEqual(bind(content, data), [{ text: 'then' }, { text: 'else' }, { text: 'DACH' }]);
});

test('the node limit stops binding with LIMIT_EXCEEDED', () => {
  const content = [{ each: 'rows', content: [{ text: '{{item}}' }] }];
  const data = { rows: Array.from({ length: 50 }, (_, i) => i) };
  assert.equal(bind(content, data, { maxNodes: 50 }).length, 50);
  throwsRender(() => bind(content, data, { maxNodes: 10 }), 'LIMIT_EXCEEDED', 'content[0].content[0]', /the bound document has more than 10 nodes/);
  const table = [{ table: { rows: [{ each: 'rows', row: ['{{item}}', 'b'] }] } }];
  throwsRender(() => bind(table, data, { maxNodes: 99 }), 'LIMIT_EXCEEDED', undefined, /more than 99 nodes/);
});

test('metadata binds with the template language', () => {
  const meta = { title: 'Invoice {{number}} of {{date | date:"d. MMMM yyyy"}}', author: '{{missing}}', language: '{{lang}}', keywords: 'a, b' };
  const t = valid({ metadata: meta, content: [] });
  assert.deepEqual(bindMetadata(t.metadata, { number: 'F-1', date: '2024-03-05', lang: 'de' }, { now: NOW }), {
    language: 'de',
    title: 'Invoice F-1 of 5. März 2024',
    keywords: 'a, b',
  });
  assert.deepEqual(bindMetadata(undefined, {}, { now: NOW }), {});
});

test('binding a 1,000-row table of 6 columns formats every cell (its speed is in bench/)', () => {
  const t = valid({
    content: [
      {
        table: {
          header: [['#', 'Name', 'Qty', 'Price', 'Date', 'Total']],
          rows: [
            {
              each: 'rows',
              as: 'r',
              row: ['{{$index}}', '{{r.name}}', '{{r.qty | number}}', { text: '{{r.price | currency:"EUR"}}', textAlign: 'right' }, '{{r.date | date:"dd.MM.yyyy"}}', '{{r.total}}'],
            },
          ],
        },
      },
    ],
  });
  const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `Item ${i}`, qty: i, price: i * 1.5, date: '2024-03-05', total: i * 3 }));
  const out: BoundNode[] = bindNodes(t.content, { rows }, { now: NOW, language: 'de' });
  const bound = (out[0] as { table: { rows: { text: string }[][] } }).table.rows;
  assert.equal(bound.length, 1000);
  assert.deepEqual(
    bound[999].map((c) => c.text),
    ['999', 'Item 999', '999', money(1498.5, 'de', 'EUR'), '05.03.2024', '2997'],
  );
});

// ---------------------------------------------------------------------------------------------
// Fields

test('templateFields lists every data path as the caller must send it', () => {
  const t = valid({
    metadata: { title: 'Invoice {{number}}' },
    header: [{ image: '{{company.logo}}' }],
    footer: [{ text: 'Page {{$page}} of {{$pages}} - {{company.name}}' }],
    content: [
      { text: 'Dear {{customer.name}}, {{ $now | date }}' },
      { if: 'customer.vip', then: [{ text: 'VIP since {{customer.since | date:"yyyy"}}' }] },
      {
        each: 'orders',
        as: 'order',
        content: [
          { text: '{{order.id}} #{{$index}}' },
          {
            table: {
              rows: [
                { each: 'order.lines', as: 'line', row: ['{{line.sku}}', '{{line.qty | number}}', '{{ line.price | currency:"EUR" }}'] },
                { if: { gt: ['order.total', 1000] }, then: [['big', '{{order.total}}', '']] },
              ],
            },
          },
        ],
      },
      { each: 'tags', content: [{ text: '{{item}}', color: '{{theme.accent}}' }] },
      { text: '{{customer.name}} again' },
      { if: { eq: ['status', 'paid'] }, then: [] },
    ],
  });
  assert.deepEqual(templateFields(t), [
    { name: 'number', type: 'string' },
    { name: 'company.logo', type: 'image' },
    { name: 'company.name', type: 'string' },
    { name: 'customer.name', type: 'string' },
    { name: 'customer.vip', type: 'boolean' },
    { name: 'customer.since', type: 'date' },
    { name: 'orders', type: 'array' },
    { name: 'orders[].id', type: 'string' },
    { name: 'orders[].lines', type: 'array' },
    { name: 'orders[].lines[].sku', type: 'string' },
    { name: 'orders[].lines[].qty', type: 'number' },
    { name: 'orders[].lines[].price', type: 'number' },
    { name: 'orders[].total', type: 'number' },
    { name: 'tags', type: 'array' },
    { name: 'tags[]', type: 'string' },
    { name: 'theme.accent', type: 'string' },
    { name: 'status', type: 'string' },
  ]);
});

test('templateFields: objects read through, and nodes of an unbound node type list', () => {
  const t = valid({
    content: [
      { if: 'customer', then: [{ text: '{{customer.name}}' }] },
      { list: ['{{a}}', { each: 'xs', as: 'x', content: [{ text: '{{x.v | number}}' }] }] },
    ],
  });
  const nodes: Node[] = t.content;
  assert.equal(nodes.length, 2);
  assert.deepEqual(templateFields(t), [
    { name: 'customer', type: 'object' },
    { name: 'customer.name', type: 'string' },
    { name: 'a', type: 'string' },
    { name: 'xs', type: 'array' },
    { name: 'xs[].v', type: 'number' },
  ]);
});

test('each and if accept a path wrapped in {{ }}; hostile data keys stay inert', () => {
  const data = JSON.parse('{"vip": 1, "items": [{"__proto__": {"x": "leak"}, "y": "ok"}], "constructor": "c"}');
  assert.deepEqual(
    bind([{ each: '{{ items }}', as: 'it', content: [{ text: '[{{it.x}}][{{it.y}}]' }] }, { if: '{{vip}}', then: [{ text: 'vip' }] }], data),
    [{ text: '[][ok]' }, { text: 'vip' }],
  );
  throwsRender(() => bindString('{{ constructor }}', createScope(data)), 'TEMPLATE_INVALID', undefined, /"constructor" is not allowed/);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('templateFields quotes keys that are not bare names', () => {
  const t = valid({ content: [{ each: 'rows', as: 'r', content: [{ text: '{{ r["unit price"] | currency }} {{ totals["net sum"] }}' }] }] });
  assert.deepEqual(templateFields(t), [
    { name: 'rows', type: 'array' },
    { name: 'rows[]["unit price"]', type: 'number' },
    { name: 'totals["net sum"]', type: 'string' },
  ]);
});

test('valid definitions are cached by content; undefined inside arrays is not JSON', () => {
  const json = JSON.stringify({ content: [{ text: 'cached {{x}}' }] });
  const a = parseTemplate(JSON.parse(json));
  const b = parseTemplate(JSON.parse(json));
  assert.ok(a.ok && b.ok);
  assert.equal(a.template, b.template);
  const c = parseTemplate({ content: [{ text: 'other {{x}}' }] });
  assert.ok(c.ok && c.template !== a.template);
  assert.deepEqual(invalid({ content: [{ text: 'a' }, undefined] }), [{ path: 'content[1]', message: 'undefined is not a JSON value' }]);
});

test('a template that parseTemplate returned is recognised when validated again: the same object back, at the same depth limit', () => {
  const definition = { page: { size: 'a4' }, content: [{ text: 'Hello {{name}}' }, { table: { rows: [[{ text: 'a' }, { text: 'b' }]] } }] };
  const first = parseTemplate(definition);
  assert.ok(first.ok);
  // zod rebuilds the containers ("a4" -> "A4"), so the template is another object than the definition.
  assert.notEqual(first.template, definition as unknown);
  const again = parseTemplate(first.template);
  assert.ok(again.ok);
  assert.equal(again.template, first.template, 'no second parse: the same template object');
  // Another depth limit is another question: it is answered by parsing (and still valid).
  const deeper = parseTemplate(first.template, 10);
  assert.ok(deeper.ok);
  assert.equal(deeper.template.page?.size, 'A4');
});
