/**
 * checkData(): data of the wrong shape for a template, found before any layout, with paths in the
 * data (`data.items`, `data` for nesting too deep); renderPdf fails with the same faults.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkData, DEFAULT_LIMITS, RenderError, renderPdf } from '../../engine/index.ts';
import { bindNodes } from '../../engine/template/bind.ts';
import { parseTemplate } from '../../engine/template/schema.ts';
import { alphaPngDataUri } from '../helpers/images.ts';
import { readPdf } from '../helpers/pdf.ts';
import { NOW, renderError } from '../helpers/render.ts';

function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

test('an each over a string or an object is a fault at data.<path>, with the template node in the message', () => {
  const definition = { content: [{ text: 'x' }, { each: 'items', content: [{ text: '{{item}}' }] }] };
  for (const [items, got] of [['abc', /got the string "abc"/], [{ a: 1 }, /got an object/], [5, /got the number 5/], [true, /got true/]] as const) {
    const faults = checkData(definition, { items });
    assert.equal(faults.length, 1, JSON.stringify(faults));
    assert.equal(faults[0].path, 'data.items');
    assert.match(faults[0].message, /"each" at content\[1\] needs an array at "items"/);
    assert.match(faults[0].message, got);
  }
  // Missing, null and arrays are fine.
  for (const items of [undefined, null, [], [1, 2]]) assert.deepEqual(checkData(definition, { items }), []);
  assert.deepEqual(checkData(definition, {}), []);
});

test('faults inside loops name the item: data.orders[1].lines; every faulty item is reported', () => {
  const definition = { content: [{ each: 'orders', as: 'o', content: [{ text: '{{o.id}}' }, { each: 'o.lines', as: 'l', content: [{ text: '{{l}}' }] }] }] };
  const faults = checkData(definition, { orders: [{ id: 1, lines: [] }, { id: 2, lines: 'none' }, { id: 3, lines: { a: 1 } }] });
  assert.deepEqual(
    faults.map((f) => f.path),
    ['data.orders[1].lines', 'data.orders[2].lines'],
  );
  assert.match(faults[0].message, /"each" at content\[0\]\.content\[1\] needs an array at "o\.lines"/);
});

test('table rows, table cells, list items, columns, header and footer are walked', () => {
  const each = (path: string) => ({ each: path, content: [{ text: 'x' }] });
  const definition = {
    header: [each('h')],
    footer: [each('f')],
    content: [
      { table: { rows: [{ each: 'rows', row: ['a'] }, [each('cell')]] } },
      { list: [each('li')] },
      { columns: [{ content: [each('col')] }] },
      { stack: [{ if: 'flag', then: [each('then')], else: [each('else')] }] },
    ],
  };
  const data = { h: 'x', f: 'x', rows: 'x', cell: 'x', li: 'x', col: 'x', then: 'x', else: 'x', flag: true };
  assert.deepEqual(
    checkData(definition, data).map((f) => f.path),
    ['data.rows', 'data.cell', 'data.li', 'data.col', 'data.then', 'data.h', 'data.f'],
  );
  // The branch not taken is not looked at.
  assert.deepEqual(
    checkData(definition, { ...data, flag: false }).map((f) => f.path),
    ['data.rows', 'data.cell', 'data.li', 'data.col', 'data.else', 'data.h', 'data.f'],
  );
});

test('a colour placeholder that binds to something else than a colour is a fault at its data path', () => {
  const definition = {
    content: [
      { text: 'a', color: '{{brand}}' },
      { each: 'items', as: 'it', content: [{ text: [{ text: 'b', backgroundColor: '{{it.bg}}' }] }] },
      { table: { rows: [['x']], stripe: '{{stripe}}' } },
    ],
  };
  const faults = checkData(definition, { brand: 'not-a-colour', items: [{ bg: '#fff' }, { bg: 'nope' }], stripe: '' });
  assert.deepEqual(
    faults.map((f) => f.path),
    ['data.brand', 'data.items[1].bg'],
  );
  assert.match(faults[0].message, /the colour "not-a-colour" from the data \(at content\[0\]\.color\) is not #rgb/);
  assert.deepEqual(checkData(definition, { brand: 'red', items: [], stripe: '#eee' }), []);
});

test('an image source placeholder whose value is not text is a fault at its data path naming the image, and the render fails with it', async () => {
  const definition = {
    content: [
      { text: 'Photos' },
      { image: '{{logo}}', width: 40 },
      { each: 'people', as: 'p', content: [{ image: '{{p.photo}}', width: 20 }] },
      { table: { rows: [[{ image: 'https://cdn.example.com/{{parts}}.png' }]] } },
    ],
  };
  const png = alphaPngDataUri(4, 4);
  const fine = { logo: png, people: [{ photo: png }, { photo: null }, {}], parts: 'a' };
  assert.deepEqual(checkData(definition, fine), []);
  for (const [logo, got] of [[{ src: png }, /got an object$/], [[png], /got an array of 1 item$/], [7, /got the number 7$/], [true, /got true$/]] as const) {
    const faults = checkData(definition, { ...fine, logo });
    assert.deepEqual(faults.map((f) => f.path), ['data.logo'], JSON.stringify(faults));
    assert.match(faults[0].message, /^the image source at content\[1\]\.image \("\{\{logo\}\}"\) needs text/);
    assert.match(faults[0].message, got);
    const e = await renderError(definition, { ...fine, logo });
    assert.equal(e.code, 'DATA_INVALID');
    assert.equal(e.path, 'data.logo');
    assert.match(e.message, /content\[1\]\.image/);
  }
  // Inside a loop: the item's place in the data, the template path as written.
  const faults = checkData(definition, { ...fine, people: [{ photo: png }, { photo: { url: 'x' } }] });
  assert.deepEqual(faults.map((f) => f.path), ['data.people[1].photo']);
  assert.match(faults[0].message, /at content\[2\]\.content\[0\]\.image \("\{\{p\.photo\}\}"\)/);
  // Part of a longer source: an object or array is refused, a number is text.
  assert.deepEqual(checkData(definition, { ...fine, parts: { a: 1 } }).map((f) => f.path), ['data.parts']);
  assert.deepEqual(checkData(definition, { ...fine, parts: 12 }), []);
  // The fine data renders, without warnings (the missing photo is DATA_MISSING only).
  const r = await renderPdf({ content: definition.content.slice(0, 3) }, fine, { now: NOW });
  assert.deepEqual(r.warnings.map((w) => [w.code, w.path]), [['DATA_MISSING', 'content[2].content[0].image']]);
  assert.ok((await readPdf(r.pdf)).pages[0].text.includes('Photos'));
});

test('data nested deeper than maxDataDepth is one fault at "data"; exactly the limit is fine', () => {
  const definition = { content: [{ text: '{{a.a}}' }] };
  assert.deepEqual(checkData(definition, nest(DEFAULT_LIMITS.maxDataDepth)), []);
  const faults = checkData(definition, nest(DEFAULT_LIMITS.maxDataDepth + 1));
  assert.equal(faults.length, 1);
  assert.equal(faults[0].path, 'data');
  assert.match(faults[0].message, /nested deeper than 32 levels/);
  assert.equal(checkData(definition, nest(5), { maxDataDepth: 4 })[0]?.path, 'data');
  // 100,000 levels: no stack overflow.
  assert.equal(checkData(definition, nest(100_000))[0]?.path, 'data');
  // Arrays count as levels too.
  let arrays: unknown = [];
  for (let i = 0; i < 40; i++) arrays = [arrays];
  assert.equal(checkData(definition, { x: arrays })[0]?.path, 'data');
});

test('a cyclic object (a library caller) is refused as too deep, not looped over', () => {
  const data: Record<string, unknown> = { name: 'x' };
  data.self = data;
  assert.equal(checkData({ content: [{ text: '{{name}}' }] }, data)[0]?.path, 'data');
});

test('checkData of an invalid definition throws TEMPLATE_INVALID', () => {
  assert.throws(
    () => checkData({ content: [{ txt: 'x' }] }, {}),
    (e: unknown) => e instanceof RenderError && e.code === 'TEMPLATE_INVALID',
  );
});

test('checkData stops after maxNodes nodes on a huge nested loop and reports what it found', () => {
  const big = Array.from({ length: 2000 }, (_, i) => i);
  const definition = { content: [{ each: 'a', content: [{ each: 'a', content: [{ text: '{{item}}' }] }] }] };
  assert.deepEqual(checkData(definition, { a: big }), []);
  // Faults over 100 are not all listed.
  const many = { content: [{ each: 'rows', as: 'r', content: [{ each: 'r.cells', content: [] }] }] };
  const faults = checkData(many, { rows: Array.from({ length: 500 }, () => ({ cells: 'x' })) });
  assert.equal(faults.length, 100);
});

test('renderPdf fails with DATA_INVALID at data.<path> for the same faults, all of them in issues', async () => {
  const definition = { content: [{ each: 'items', content: [{ text: '{{item}}' }] }, { text: 'x', color: '{{c}}' }] };
  const e = await renderError(definition, { items: 'abc', c: 'nope' });
  assert.equal(e.code, 'DATA_INVALID');
  assert.equal(e.path, 'data.items');
  assert.match(e.message, /^data\.items: "each" at content\[0\] needs an array at "items", got the string "abc" \(and 1 more\)$/);
  assert.deepEqual(
    e.issues.map((i) => i.path),
    ['data.items', 'data.c'],
  );
  const deep = await renderError({ content: [{ text: 'x' }] }, nest(40));
  assert.equal(deep.code, 'DATA_INVALID');
  assert.equal(deep.path, 'data');
  const r = await renderPdf(definition, { items: [1], c: 'red' }, { now: NOW });
  assert.equal(r.pages, 1);
});

test('a fault only a header with $page meets is found by rendering, still at its data path', async () => {
  const definition = { header: [{ if: { eq: ['$page', 1] }, then: [{ each: 'h', content: [] }] }], content: [{ text: 'x' }] };
  assert.deepEqual(checkData(definition, { h: 'x' }), []);
  const e = await renderError(definition, { h: 'x' });
  assert.equal(e.code, 'DATA_INVALID');
  assert.equal(e.path, 'data.h');
});

test('property: checkData finds a fault exactly when binding throws DATA_INVALID, at the same path first', () => {
  const definition = {
    content: [
      { if: 'show', then: [{ text: 'shown', color: '{{tone}}' }] },
      { each: 'items', as: 'it', content: [{ text: '{{it.name}}' }, { each: 'it.tags', as: 't', content: [{ text: '{{t}}', backgroundColor: '{{t.bg}}' }] }] },
      { table: { rows: [{ each: 'rows', row: ['{{item}}'] }] } },
    ],
  };
  const template = parseTemplate(definition);
  assert.ok(template.ok);
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.constantFrom('x', '', 'red', '#abc', 'nope'));
  const tag = fc.oneof(leaf, fc.record({ bg: leaf }, { requiredKeys: [] }));
  const item = fc.oneof(leaf, fc.record({ name: leaf, tags: fc.oneof(leaf, fc.array(tag, { maxLength: 3 }), fc.record({ bg: leaf })) }, { requiredKeys: [] }));
  const data = fc.record(
    {
      show: leaf,
      tone: leaf,
      items: fc.oneof(leaf, fc.array(item, { maxLength: 4 }), fc.record({ a: leaf })),
      rows: fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(data, (d) => {
      const faults = checkData(definition, d, { now: NOW });
      let bindError: RenderError | null = null;
      try {
        bindNodes(template.template.content, d, { now: NOW });
      } catch (e) {
        assert.ok(e instanceof RenderError, String(e));
        bindError = e;
      }
      if (bindError === null) assert.deepEqual(faults, []);
      else {
        assert.equal(bindError.code, 'DATA_INVALID');
        assert.ok(faults.length > 0, `bind threw ${bindError.message} but checkData found nothing`);
        assert.equal(faults[0].path, bindError.path);
      }
    }),
    { numRuns: 500 },
  );
});
