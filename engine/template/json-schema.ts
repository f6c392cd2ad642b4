/**
 * The template DSL as JSON Schema (draft 2020-12), generated from the zod schema that validates
 * templates (schema.ts), for editors' autocompletion and hover help (`"$schema"`), the studio and
 * `GET /v1/schemas/template.json`.
 *
 * How it is made:
 * - Every object, enum, number range and list of the DSL is converted by zod's `toJSONSchema` from
 *   the very schemas `parseTemplate` runs (reached through `templateSchema` and `KIND_SCHEMAS`).
 * - The "one of several shapes" values that schema.ts dispatches by hand (a node, a cell, `sides`,
 *   a column width, a condition, ...) have no JSON Schema of their own there: each becomes a
 *   `$defs` entry whose alternatives are listed here ({@link DISPATCHED}), built from the same zod
 *   pieces where they can be reached. An unknown dispatch point makes generation throw, so a new
 *   one in schema.ts cannot be missed (test/studio/json-schema.test.ts).
 * - Descriptions, examples and defaults come from json-schema-docs.ts, by property path; generation
 *   throws when a property has none.
 *
 * The JSON Schema checks structure: kinds, keys, types, enums and ranges. Some checks only
 * `parseTemplate` makes: placeholder syntax, colour names, that style names exist, table grids,
 * font families, shares above the maximum; a definition the JSON Schema accepts may still be refused
 * by the server with a precise path, never the reverse.
 */
import { z } from 'zod';
import { BOUNDS } from './bounds.ts';
import { CONDITION_KEYS } from './conditions.ts';
import { DEF_DOCS, PROPERTY_DOCS, SCHEMA_DESCRIPTION, type PropertyDoc } from './json-schema-docs.ts';
import { BOX_KEYS, conditionSchema, KIND_SCHEMAS, NODE_KINDS, nodeSchema, PAGE_SIZE_NAMES, templateSchema } from './schema.ts';

/** A JSON Schema object (draft 2020-12). */
export type JsonSchema = { [key: string]: unknown };

type Shape = Record<string, z.ZodType>;

const shapeOf = (s: z.ZodType): Shape => (s as unknown as z.ZodObject).shape as Shape;
const inner = (s: z.ZodType): z.ZodType => (s instanceof z.ZodOptional ? (s.unwrap() as z.ZodType) : s);
const element = (s: z.ZodType): z.ZodType => (inner(s) as unknown as z.ZodArray<z.ZodType>).element;
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });

// The pieces of schema.ts, reached from its exports.
const root = shapeOf(templateSchema);
const text = shapeOf(KIND_SCHEMAS.text);
const tableSpec = shapeOf(inner(shapeOf(KIND_SCHEMAS.table).table));
const namedStyle = shapeOf((inner(root.styles) as unknown as z.ZodRecord<z.ZodString, z.ZodType>).valueType);
const pageSize = (inner(shapeOf(inner(root.page)).size) as unknown as z.ZodPipe<z.ZodType, z.ZodType>).in;
const eachShape = shapeOf(KIND_SCHEMAS.each);
/** Lengths in points: `> 0` and `>= 0`, with the DSL's upper bound. */
const positive = inner(shapeOf(KIND_SCHEMAS.image).width);
const nonNegative = shapeOf(KIND_SCHEMAS.spacer).spacer;
const dataPath = eachShape.each;

/** Names a dispatched zod schema gets in `$defs` (several schema objects may share one name). */
const DISPATCHED = new Map<z.ZodType, string>([
  [nodeSchema, 'node'],
  [conditionSchema, 'condition'],
  [text.text, 'textContent'],
  [inner(text.style), 'styleRef'],
  [inner(text.fontWeight), 'fontWeight'],
  [inner(text.margin), 'sides'],
  [inner(text.border), 'border'],
  [inner(namedStyle.border), 'border'],
  [inner(namedStyle.style), 'noStyle'],
  [element(tableSpec.columns), 'columnWidth'],
  [element(element(tableSpec.header)), 'tableCell'],
  [element(tableSpec.rows), 'tableRow'],
  [element(shapeOf(KIND_SCHEMAS.list).list), 'listItem'],
  [pageSize, 'pageSize'],
]);

/**
 * DISPATCHED with the schemas each one was cloned from (`.superRefine` clones; zod's generator
 * visits the original too).
 */
const dispatchedNames = new Map<unknown, string>();
for (const [schema, name] of DISPATCHED) {
  for (let s: z.ZodType | undefined = schema; s !== undefined; s = (s as unknown as { _zod: { parent?: z.ZodType } })._zod.parent) dispatchedNames.set(s, name);
}

/** zod -> JSON Schema, dispatched values as `$ref`s; throws on a zod schema it cannot express. */
function convert(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    reused: 'inline',
    unrepresentable: (ctx) => {
      const name = dispatchedNames.get(ctx.zodSchema);
      if (name === undefined) throw new Error(`json-schema: no JSON Schema for the zod schema at ${ctx.path.join('.') || '(root)'}; list it in DISPATCHED`);
      return ref(name);
    },
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

const number = (s: z.ZodType) => convert(s);
const string: JsonSchema = { type: 'string' };
const CASELESS_PAGE_SIZE = `^(${PAGE_SIZE_NAMES.map((n) => [...n].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('')).join('|')})$`;
/** A page size with units, as schema.ts's PAGE_SIZE_UNITS reads it (JSON Schema patterns have no flags). */
const UNIT_PAGE_SIZE = '^\\s*\\d+(\\.\\d+)?\\s*[xX×]\\s*\\d+(\\.\\d+)?\\s*([pP][tT]|[iI][nN]|[mM][mM]|[cC][mM])\\s*$';
/** "*", "2*", "0.5*": a positive share of the free width (the server also caps it at BOUNDS.share). */
const SHARE_PATTERN = '^(\\d*[1-9]\\d*(\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)?\\*$';

/** The `$defs` entries, before their documentation. */
function definitions(): Record<string, JsonSchema> {
  const defs: Record<string, JsonSchema> = {};
  defs.node = { anyOf: NODE_KINDS.map((k) => ref(`${k}Node`)) };
  for (const kind of NODE_KINDS) defs[`${kind}Node`] = convert(KIND_SCHEMAS[kind]);
  // A span is `{text, link?}` with style properties: the same shape as a text node.
  // (less what only nodes have: fit, minFontSize and the box properties)
  const spanOnly = Object.fromEntries(['fit', 'minFontSize', ...BOX_KEYS].map((k) => [k, true as const])) as Record<string, true> & Record<number, never>;
  defs.span = convert((KIND_SCHEMAS.text as unknown as z.ZodObject).omit(spanOnly));
  defs.inline = { anyOf: [string, ref('span')] };
  defs.textContent = { anyOf: [string, { type: 'array', items: ref('inline') }] };
  defs.styleRef = { anyOf: [string, { type: 'array', items: string }] };
  defs.fontWeight = { anyOf: [{ type: 'string', enum: ['normal', 'bold'] }, { type: 'integer', minimum: 100, maximum: 900, multipleOf: 100 }] };
  defs.sides = {
    anyOf: [
      number(nonNegative),
      { type: 'array', items: number(nonNegative), minItems: 2, maxItems: 2 },
      { type: 'array', items: number(nonNegative), minItems: 4, maxItems: 4 },
    ],
  };
  defs.borderSide = convert(z.strictObject({ width: nonNegative.optional(), color: z.string().optional() }));
  defs.border = {
    anyOf: [
      ref('borderSide'),
      { type: 'object', properties: { top: ref('borderSide'), right: ref('borderSide'), bottom: ref('borderSide'), left: ref('borderSide') }, additionalProperties: false },
    ],
  };
  defs.noStyle = { not: {} };
  defs.columnWidth = { anyOf: [number(positive), { type: 'string', enum: ['auto', '*'] }, { type: 'string', pattern: SHARE_PATTERN }] };
  defs.tableCell = { anyOf: [string, ref('node'), { type: 'object', maxProperties: 0 }] };
  const cell = [...DISPATCHED].find(([, name]) => name === 'tableCell')![0];
  const row = [...DISPATCHED].find(([, name]) => name === 'tableRow')![0];
  defs.tableRow = { anyOf: [{ type: 'array', items: ref('tableCell') }, ref('eachRow'), ref('ifRow')] };
  defs.eachRow = convert(z.strictObject({ each: dataPath, as: eachShape.as, row: z.array(cell) }));
  defs.ifRow = convert(z.strictObject({ if: conditionSchema, then: z.array(row).optional(), else: z.array(row).optional() }));
  defs.listItem = { anyOf: [string, ref('node')] };
  const literal = z.union([z.string(), z.number(), z.boolean(), z.null()]);
  const comparison = z.tuple([dataPath, literal]);
  const conditionShapes: Record<(typeof CONDITION_KEYS)[number], z.ZodType> = {
    not: conditionSchema,
    and: z.array(conditionSchema).min(1),
    or: z.array(conditionSchema).min(1),
    eq: comparison,
    ne: comparison,
    gt: comparison,
    gte: comparison,
    lt: comparison,
    lte: comparison,
  };
  defs.condition = { anyOf: [string, ...CONDITION_KEYS.map((k) => ref(`${k}Condition`))] };
  for (const key of CONDITION_KEYS) defs[`${key}Condition`] = convert(z.strictObject({ [key]: conditionShapes[key] }));
  const side = { type: 'number', minimum: BOUNDS.pageSide.min, maximum: BOUNDS.pageSide.max };
  defs.pageSize = {
    anyOf: [
      { type: 'string', enum: [...PAGE_SIZE_NAMES] },
      { type: 'string', pattern: CASELESS_PAGE_SIZE },
      { type: 'string', pattern: UNIT_PAGE_SIZE },
      { type: 'array', prefixItems: [side, side], items: false, minItems: 2, maxItems: 2 },
    ],
  };
  return defs;
}

/** Adds description, examples and default from the docs to every property under `schema`. */
function document(schema: unknown, path: string, missing: string[]): void {
  if (Array.isArray(schema)) {
    for (const s of schema) document(s, path, missing);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const s = schema as JsonSchema;
  if (s.properties && typeof s.properties === 'object') {
    const properties = s.properties as Record<string, JsonSchema>;
    for (const [key, sub] of Object.entries(properties)) {
      const doc = PROPERTY_DOCS[`${path}.${key}`] ?? PROPERTY_DOCS[`*.${key}`];
      if (doc === undefined) missing.push(`${path}.${key}`);
      else properties[key] = documented(sub, doc);
      document(properties[key], `${path}.${key}`, missing);
    }
  }
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) if (s[k]) document(s[k], path, missing);
  if (s.items && typeof s.items === 'object') document(s.items, `${path}[]`, missing);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') document(s.additionalProperties, `${path}{}`, missing);
}

/** `schema` with the doc's description, examples and default first (for people reading the file). */
function documented(schema: JsonSchema, doc: PropertyDoc): JsonSchema {
  return {
    description: doc.description,
    ...(doc.examples.length > 0 ? { examples: doc.examples } : {}),
    ...(doc.default !== undefined ? { default: doc.default } : {}),
    ...schema,
  };
}

let cached: string | null = null;

/**
 * The DSL's JSON Schema (draft 2020-12): root keys, `$defs` for nodes, spans, cells, rows,
 * conditions and the other shared shapes; every property with `description` and `examples`.
 * @throws Error when schema.ts gained a dispatch point or a property that has no entry here.
 */
export function templateJsonSchema(): JsonSchema {
  return JSON.parse(templateJsonSchemaText()) as JsonSchema;
}

/** {@link templateJsonSchema} as the JSON text served and checked in (2-space indent, trailing newline). */
export function templateJsonSchemaText(): string {
  if (cached !== null) return cached;
  const defs = definitions();
  const body = convert(templateSchema);
  const missing: string[] = [];
  document(body, 'root', missing);
  for (const [name, def] of Object.entries(defs)) {
    const doc = DEF_DOCS[name];
    if (doc === undefined) missing.push(`$defs.${name}`);
    else defs[name] = { description: doc, ...def };
    document(defs[name], name, missing);
  }
  if (missing.length > 0) throw new Error(`json-schema: no documentation for ${missing.join(', ')} (engine/template/json-schema-docs.ts)`);
  const schema: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Platen template',
    description: SCHEMA_DESCRIPTION,
    ...body,
    $defs: defs,
  };
  cached = JSON.stringify(schema, null, 2) + '\n';
  return cached;
}
