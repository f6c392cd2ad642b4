/**
 * The template DSL's JSON Schema: the checked-in file is the generated one, ajv compiles it (draft
 * 2020-12), every example validates, and schema and validator agree on corpora of valid and invalid
 * definitions. Checks only the server makes are listed too: the schema accepts them, the validator
 * refuses them (never the reverse).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { validateTemplate } from '../../engine/index.ts';
import { templateJsonSchema, templateJsonSchemaText, type JsonSchema } from '../../engine/template/json-schema.ts';

const root = new URL('../../', import.meta.url);
const schema = templateJsonSchema();
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
const validate = ajv.compile(schema);

const examples = readdirSync(new URL('examples/', root)).map((name) => ({
  name,
  definition: JSON.parse(readFileSync(new URL(`examples/${name}/template.json`, root), 'utf8')) as unknown,
}));

function agree(definition: unknown): { schema: boolean; validator: boolean } {
  return { schema: validate(definition) as boolean, validator: validateTemplate(definition).ok };
}

test('schemas/template.schema.json is the generated schema (regenerate with `npm run schema`)', () => {
  const checkedIn = readFileSync(new URL('schemas/template.schema.json', root), 'utf8');
  assert.equal(checkedIn, templateJsonSchemaText());
});

test('the schema is draft 2020-12 and compiles in strict mode', () => {
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(typeof validate, 'function');
});

test('every example template validates against the schema and the validator', () => {
  assert.ok(examples.length >= 4);
  for (const { name, definition } of examples) {
    assert.equal(validate(definition), true, `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
    assert.equal(validateTemplate(definition).ok, true, name);
  }
});

const VALID: unknown[] = [
  { content: [] },
  { $schema: 'https://platen.example.com/v1/schemas/template.json', content: [] },
  { page: { size: 'a4', orientation: 'landscape', margin: [10, 20] }, content: [] },
  { page: { size: [300, 400], margin: [10, 20, 30, 40] }, font: { family: ['Noto Serif', 'serif'], size: 11, color: 'navy', lineHeight: 1.4 }, content: [] },
  { metadata: { title: 'T {{n}}', author: 'A', subject: 'S', keywords: 'k', language: 'de-CH' }, content: [{ text: 'x' }] },
  { styles: { h1: { fontSize: 20, fontWeight: 700, keepWithNext: true }, muted: { color: '#666' } }, content: [{ text: 'x', style: ['h1', 'muted'] }] },
  { content: [{ text: ['a ', { text: 'b', fontWeight: 'bold', link: 'https://example.com' }, { text: ['c', { text: 'd' }] }] }] },
  { content: [{ text: 'x', margin: 4, padding: [1, 2], border: { width: 1, color: '#ccc' }, backgroundColor: 'white' }] },
  { content: [{ text: 'x', border: { top: { width: 2 }, left: { color: 'red' } }, textAlign: 'justify', hyphenate: false, direction: 'auto' }] },
  { content: [{ text: 'x', letterSpacing: -1, fontFeatures: ['tnum', 'smcp'], widows: 1, orphans: 3, breakBefore: 'page', textDecoration: 'underline' }] },
  {
    content: [
      {
        table: {
          columns: ['auto', '*', '2*', '0.5*', 60],
          header: [['A', { text: 'B', colSpan: 2 }, 'D', 'E']],
          rows: [
            ['a', 'b', 'c', 'd', 'e'],
            { each: 'items', as: 'it', row: ['{{it.a}}', '', '', '', { text: 'x', rowSpan: 1, verticalAlign: 'middle' }] },
            { if: { gt: ['total', 5] }, then: [['1', '2', '3', '4', '5']], else: [] },
          ],
          footer: [['f', 'f', 'f', 'f', 'f']],
          borders: 'horizontal',
          borderColor: '#b0b0b0',
          borderWidth: 0.5,
          stripe: '#f3f6f9',
          cellPadding: [4, 6],
          headerStyle: { fontWeight: 'bold', color: 'white', backgroundColor: '#1f4e79' },
          footerStyle: { fontStyle: 'italic' },
        },
      },
    ],
  },
  { content: [{ columns: [{ width: '*', content: [{ text: 'a' }] }, { width: 150, content: [] }, { content: [] }], gap: 20 }] },
  { content: [{ stack: [{ text: 'a' }, { spacer: 10 }, { pageBreak: true }], keepTogether: true }] },
  { content: [{ list: ['a', { text: 'b' }, { list: ['c'], marker: 'lower-alpha' }], marker: 'decimal', start: 0 }] },
  { content: [{ qrcode: '{{link}}', size: 96, errorCorrection: 'H' }, { barcode: '4006381333931', format: 'ean13', height: 40, width: 120, showText: false }] },
  { content: [{ line: { thickness: 0.5, color: '#c5ccd3', length: 160, dash: [3, 2] }, margin: [4, 0, 8, 0] }] },
  { content: [{ image: '{{logo}}', width: 150, height: 80, fit: 'cover', align: 'center' }] },
  { content: [{ each: 'orders', as: 'order', content: [{ text: '{{order.id}}' }] }, { each: 'x', content: [] }] },
  { content: [{ if: 'vip', then: [{ text: 'a' }], else: [{ text: 'b' }] }, { if: { not: 'a' } }] },
  { content: [{ if: { and: ['a', { or: [{ eq: ['b', null] }, { ne: ['c', true] }] }, { gte: ['d', 1] }, { lt: ['e', 'x'] }, { lte: ['f', '{{g}}'] }] }, then: [] }] },
  { header: [{ text: 'h' }], footer: [{ text: 'Page {{$page}} of {{$pages}}' }], background: [{ text: 'DRAFT', fontSize: 110 }], content: [] },
];

test('schema and validator both accept a corpus of valid definitions', () => {
  for (const [i, def] of VALID.entries()) {
    assert.deepEqual(agree(def), { schema: true, validator: true }, `valid #${i} ${JSON.stringify(def).slice(0, 120)}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
  }
});

const text = (extra: Record<string, unknown>) => ({ content: [{ text: 'a', ...extra }] });

const INVALID: unknown[] = [
  {},
  { content: {} },
  { content: [{}] },
  { content: [{ text: 'a', image: 'b' }] },
  text({ colr: 'red' }),
  { content: [{ text: 5 }] },
  text({ fontSize: -1 }),
  text({ fontSize: 5000 }),
  text({ fontWeight: 450 }),
  text({ fontWeight: 'heavy' }),
  text({ margin: [1, 2, 3] }),
  text({ margin: -3 }),
  text({ textAlign: 'middle' }),
  text({ colSpan: 0 }),
  text({ fontFeatures: ['TNUM'] }),
  text({ border: { width: 1, top: { width: 1 } } }),
  text({ border: { top: { width: -1 } } }),
  text({ lineHeight: 0 }),
  { page: { size: 'B4' }, content: [] },
  { page: { size: [100] }, content: [] },
  { page: { size: [1, 100] }, content: [] },
  { page: { orientation: 'sideways' }, content: [] },
  { font: { size: 0 }, content: [] },
  { header: {}, content: [] },
  { metadata: { titel: 'x' }, content: [] },
  { styles: { h1: { style: 'x' } }, content: [] },
  { styles: { h1: { text: 'a' } }, content: [] },
  { content: [{ table: { columns: ['0*'], rows: [] } }] },
  { content: [{ table: { columns: [], rows: [] } }] },
  { content: [{ table: { rows: [{ each: 'items' }] } }] },
  { content: [{ table: { rows: [{ each: 'a', if: 'b', row: [] }] } }] },
  { content: [{ table: { rows: [['a', 5]] } }] },
  { content: [{ table: { rows: [], borders: 'some' } }] },
  { content: [{ list: ['a'], marker: 'star' }] },
  { content: [{ list: [3] }] },
  { content: [{ qrcode: 'x', errorCorrection: 'X' }] },
  { content: [{ qrcode: '' }] },
  { content: [{ pageBreak: false }] },
  { content: [{ spacer: -5 }] },
  { content: [{ image: 'x', fit: 'stretch' }] },
  { content: [{ line: { thickness: 0 } }] },
  { content: [{ line: { dash: Array.from({ length: 17 }, () => 1) } }] },
  { content: [{ if: { eq: ['a'] }, then: [] }] },
  { content: [{ if: { and: [] } }] },
  { content: [{ if: { eq: ['a', 1], ne: ['b', 2] } }] },
  { content: [{ if: { eq: ['a', {}] } }] },
  { content: [{ if: 5 }] },
  { content: [{ columns: [] }] },
  { content: [{ each: 'items', as: 5, content: [] }] },
  { content: [{ text: ['a', 5] }] },
  { content: [{ text: [{ text: 'a', colr: 'x' }] }] },
  { content: [{ barcode: 'x', showText: 'yes' }] },
];

test('schema and validator both refuse a corpus of invalid definitions', () => {
  assert.ok(INVALID.length >= 20);
  for (const [i, def] of INVALID.entries()) {
    assert.deepEqual(agree(def), { schema: false, validator: false }, `invalid #${i} ${JSON.stringify(def).slice(0, 160)}`);
  }
});

test('checks only the server makes: the schema accepts these, the validator refuses them with a path', () => {
  const serverOnly = [
    text({ color: 'bluish' }),
    { content: [{ text: 'Hello {{name' }] },
    text({ style: 'missing' }),
    text({ fontFamily: 'Comic Sans' }),
    { content: [{ table: { columns: ['2000*'], rows: [] } }] },
    { content: [{ each: 'a..b', content: [] }] },
    { content: [{ each: 'items', as: '1x', content: [] }] },
    { metadata: { language: 'not a tag' }, content: [] },
  ];
  for (const def of serverOnly) {
    const v = validateTemplate(def);
    assert.equal(validate(def), true, JSON.stringify(def));
    assert.equal(v.ok, false, JSON.stringify(def));
    if (!v.ok) assert.ok(v.errors.every((e) => e.path.length > 0), JSON.stringify(v.errors));
  }
});

/** Every property schema under `s`: its path for messages and its JSON pointer. */
function* properties(s: unknown, path: string, pointer: string): Generator<[string, string, JsonSchema]> {
  if (s === null || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (const [i, x] of s.entries()) yield* properties(x, path, `${pointer}/${i}`);
    return;
  }
  const o = s as JsonSchema;
  if (o.properties) {
    for (const [k, sub] of Object.entries(o.properties as Record<string, JsonSchema>)) {
      yield [`${path}.${k}`, `${pointer}/properties/${k}`, sub];
      yield* properties(sub, `${path}.${k}`, `${pointer}/properties/${k}`);
    }
  }
  for (const k of ['anyOf', 'items', 'additionalProperties', 'prefixItems']) if (o[k] && typeof o[k] === 'object') yield* properties(o[k], path, `${pointer}/${k}`);
}

test('every property has a description and examples, and every example validates against its property', () => {
  const defs = Object.entries(schema.$defs as Record<string, JsonSchema>);
  const all = [...properties(schema, 'root', ''), ...defs.flatMap(([name, def]) => [...properties(def, name, `/$defs/${name}`)])];
  assert.ok(all.length > 300, `${all.length} properties`);
  ajv.addSchema(schema, 'template');
  for (const [path, pointer, prop] of all) {
    assert.equal(typeof prop.description, 'string', `${path} has no description`);
    if (path.endsWith('styles{}.style') || path === 'root.styles.style') continue; // never allowed: no example
    assert.ok(Array.isArray(prop.examples) && prop.examples.length > 0, `${path} has no examples`);
    const check = ajv.getSchema(`template#${pointer}`);
    assert.ok(check, pointer);
    for (const example of prop.examples as unknown[]) assert.equal(check(example), true, `${path}: example ${JSON.stringify(example)} does not validate: ${JSON.stringify(check.errors?.slice(0, 2))}`);
  }
});
