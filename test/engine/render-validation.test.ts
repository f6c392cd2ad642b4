/**
 * Bad definitions are refused with the JSON path of each fault, by validateTemplate and by
 * renderPdf (RenderError TEMPLATE_INVALID); data can never reach Object.prototype.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateTemplate, templateFields, RenderError } from '../../engine/index.ts';
import { linesOf } from '../helpers/pdf.ts';
import { render, renderError } from '../helpers/render.ts';

/** A definition with one fault and the exact path it must be reported at. */
const FAULTS: { name: string; definition: unknown; path: string }[] = [
  {
    name: 'table cell that is a node without a kind',
    definition: { content: [{ text: 'ok' }, { table: { rows: [[{ txt: 'typo' }, 'b']] } }] },
    path: 'content[1].table.rows[0][0]',
  },
  {
    name: 'unknown key on a table cell',
    definition: { content: [{ text: 'ok' }, { table: { rows: [['a', { text: 'x', colr: 'red' }]] } }] },
    path: 'content[1].table.rows[0][1].colr',
  },
  {
    name: 'number where text is expected, deep in a stack',
    definition: { content: [{ stack: [{ text: 'a' }, { stack: [{ text: 5 }] }] }] },
    path: 'content[0].stack[1].stack[0].text',
  },
  {
    name: 'bad image fit in columns',
    definition: { content: [{ columns: [{ content: [] }, { width: 100, content: [{ image: 'x', fit: 'squash' }] }] }] },
    path: 'content[0].columns[1].content[0].fit',
  },
  {
    name: 'two kind keys on one node',
    definition: { content: [{ text: 'a' }, { text: 'b' }, { text: 'c', image: 'd' }] },
    path: 'content[2]',
  },
  { name: 'bad page margin', definition: { page: { margin: 'wide' }, content: [] }, path: 'page.margin' },
  { name: 'margins wider than the page', definition: { page: { size: 'A4', margin: [40, 400, 40, 400] }, content: [{ text: 'x' }] }, path: 'page.margin' },
  { name: 'margins taller than the page (landscape)', definition: { page: { size: 'A5', orientation: 'landscape', margin: [210, 40] }, content: [{ text: 'x' }] }, path: 'page.margin' },
  { name: 'the default margin on a page too small for it', definition: { page: { size: [60, 400] }, content: [{ text: 'x' }] }, path: 'page.margin' },
  { name: 'negative font size', definition: { content: [{ text: 'a', fontSize: -3 }] }, path: 'content[0].fontSize' },
  { name: 'unknown style name', definition: { styles: { h1: { fontSize: 20 } }, content: [{ text: 'a', style: 'h2' }] }, path: 'content[0].style' },
  { name: 'not a colour', definition: { content: [{ list: ['a', { text: 'b', color: 'notacolour' }] }] }, path: 'content[0].list[1].color' },
  { name: 'unknown filter', definition: { footer: [{ text: '{{x | nofilter}}' }], content: [] }, path: 'footer[0].text' },
  {
    name: 'bad row template in table rows',
    definition: { content: [{ table: { rows: [['a'], { each: 'items', row: [{ text: 'x', rowSpan: 'two' }] }] } }] },
    path: 'content[0].table.rows[1].row[0].rowSpan',
  },
  { name: 'content missing', definition: { page: { size: 'A4' } }, path: 'content' },
];

for (const f of FAULTS) {
  test(`validateTemplate and renderPdf report the path: ${f.name} -> ${f.path}`, async () => {
    const v = validateTemplate(f.definition);
    assert.equal(v.ok, false);
    assert.ok(!v.ok);
    const paths = v.errors.map((e) => e.path);
    assert.ok(paths.includes(f.path), `paths ${JSON.stringify(paths)} do not include ${f.path}`);
    for (const e of v.errors) assert.ok(e.message.length > 0);

    const e = await renderError(f.definition, {});
    assert.equal(e.code, 'TEMPLATE_INVALID');
    assert.ok(e.issues.some((i) => i.path === f.path), `issues ${JSON.stringify(e.issues)}`);
    assert.ok(e.message.includes(f.path), `message "${e.message}" does not name ${f.path}`);
  });
}

test('several faults are all reported, each with its path', () => {
  const v = validateTemplate({
    page: { size: 'A7' },
    content: [{ text: 'a', fontSize: 'big' }, { spacer: 'x' }, { table: { rows: [[{ text: 'ok', colSpan: 0 }]] } }],
  });
  assert.ok(!v.ok);
  const paths = v.errors.map((e) => e.path);
  for (const p of ['page.size', 'content[0].fontSize', 'content[1].spacer', 'content[2].table.rows[0][0].colSpan']) {
    assert.ok(paths.includes(p), `${p} missing from ${JSON.stringify(paths)}`);
  }
});

test('an unknown fontFamily is refused with its path, naming the available families', async () => {
  const definition = { content: [{ text: 'a' }, { stack: [{ text: 'b', fontFamily: 'Comic Sans' }] }] };
  const v = validateTemplate(definition);
  assert.ok(!v.ok);
  const issue = v.errors.find((e) => e.path === 'content[1].stack[0].fontFamily');
  assert.ok(issue, JSON.stringify(v.errors));
  assert.match(issue.message, /Noto Sans/);
  const e = await renderError(definition);
  assert.equal(e.code, 'TEMPLATE_INVALID');
  assert.ok(e.issues.some((i) => i.path === 'content[1].stack[0].fontFamily'));
});

test('an unknown font.family and an unknown family in a named style are refused with their paths', () => {
  const v = validateTemplate({ font: { family: 'Papyrus' }, styles: { fancy: { fontFamily: 'Wingdings' } }, content: [] });
  assert.ok(!v.ok);
  const paths = v.errors.map((e) => e.path);
  assert.ok(paths.includes('font.family'), JSON.stringify(paths));
  assert.ok(paths.includes('styles.fancy.fontFamily'), JSON.stringify(paths));
});

test('font family names and aliases are case-insensitive', async () => {
  for (const family of ['noto serif', 'SERIF', 'monospace', 'Sans-Serif']) {
    assert.equal(validateTemplate({ content: [{ text: 'a', fontFamily: family }] }).ok, true, family);
  }
});

test('templateFields throws TEMPLATE_INVALID for a bad definition', () => {
  assert.throws(
    () => templateFields({ content: [{ text: 'a', colr: 'x' }] }),
    (e: unknown) => e instanceof RenderError && e.code === 'TEMPLATE_INVALID' && e.issues.some((i) => i.path === 'content[0].colr'),
  );
});

test('a valid definition validates', () => {
  const v = validateTemplate({ content: [{ text: 'Hello {{name}}' }, { table: { columns: [100, '*'], rows: [['a', 'b']] } }] });
  assert.equal(v.ok, true);
});

// --- Security -----------------------------------------------------------------------------------

test('"__proto__" keys in the data never pollute Object.prototype and are not readable', async () => {
  const data = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": {"__proto__": {"x": "leak"}, "own": "fine"}, "arr": [{"__proto__": {"y": "Y"}}]}');
  const r = await render(
    {
      content: [
        { text: '[{{polluted}}][{{a.x}}][{{a.own}}]' },
        { each: 'arr', as: 'it', content: [{ text: 'item[{{it.y}}]' }] },
        { if: 'polluted', then: [{ text: 'LEAKED' }], else: [{ text: 'not polluted' }] },
      ],
    },
    data,
  );
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['[][][fine]', 'item[]', 'not polluted']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).x, undefined);
  assert.equal(({} as Record<string, unknown>).y, undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
});

test('inherited properties are not data: {{toString}} and {{a.hasOwnProperty}} render empty', async () => {
  const r = await render({ content: [{ text: '[{{toString}}][{{a.hasOwnProperty}}][{{a.valueOf}}]' }] }, { a: { b: 1 } });
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['[][][]']);
});

for (const [where, definition, path] of [
  ['a placeholder "constructor.name"', { content: [{ text: 'x' }, { text: 'Name: {{constructor.name}}' }] }, 'content[1].text'],
  ['a placeholder a.__proto__', { content: [{ text: '{{a.__proto__.x}}' }] }, 'content[0].text'],
  ['a quoted key ["prototype"]', { content: [{ text: '{{a["prototype"]}}' }] }, 'content[0].text'],
  ['an each path', { content: [{ each: 'constructor.name', content: [] }] }, 'content[0].each'],
  ['a condition', { content: [{ if: { eq: ['a.constructor', 'Object'] }, then: [] }] }, 'content[0].if'],
  ['a link', { content: [{ text: 'x', link: '{{__proto__}}' }] }, 'content[0].link'],
] as const) {
  test(`a template reading through prototype keys is refused: ${where}`, async () => {
    const v = validateTemplate(definition);
    assert.ok(!v.ok, 'validates');
    assert.ok(
      v.errors.some((e) => e.path === path || e.path.startsWith(`${path}.`) || e.path.startsWith(`${path}[`)),
      `paths ${JSON.stringify(v.errors.map((e) => e.path))}, expected ${path}`,
    );
    const e = await renderError(definition, { a: {} });
    assert.equal(e.code, 'TEMPLATE_INVALID');
    assert.equal(({} as Record<string, unknown>).name, undefined);
  });
}

test('a definition with a "__proto__" key is refused and does not pollute', () => {
  const definition = JSON.parse('{"content": [{"text": "a", "__proto__": {"polluted": 1}}]}');
  const v = validateTemplate(definition);
  assert.ok(!v.ok);
  assert.ok(v.errors.some((e) => e.path.startsWith('content[0]')), JSON.stringify(v.errors));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('a definition with more faults than the validator can gather is refused, not thrown', () => {
  // 12,000 nodes with 12 faults each made zod run out of stack gathering 144,000 faults under
  // `content`: validateTemplate and renderPdf threw a RangeError.
  const node = { text: 'x', fontSize: 'a', color: 5, bold: 'y', italic: 'n', lineHeight: 'q', align: 3, underline: 'u', strike: 'r', letterSpacing: 'l', margin: 'm', padding: 'p', opacity: 'o' };
  const content = Array.from({ length: 12_000 }, () => ({ ...node }));
  const verdict = validateTemplate({ content });
  assert.equal(verdict.ok, false);
  if (verdict.ok) return;
  assert.equal(verdict.errors.length, 1);
  assert.equal(verdict.errors[0].path, '');
  assert.match(verdict.errors[0].message, /too many faults/);
  // A smaller faulty definition still lists every fault with its path.
  const few = validateTemplate({ content: content.slice(0, 3) });
  assert.equal(few.ok, false);
  if (!few.ok) {
    assert.equal(few.errors.length, 36);
    assert.equal(few.errors[0].path, 'content[0].fontSize');
  }
});
