/**
 * The template DSL schema (DESIGN §5) in zod, and `parseTemplate()`, which reports every fault of
 * a definition with its JSON path (`content[2].table.rows[0][1]`, `page.margin`; "" for the root).
 *
 * How it stays precise:
 * - Nodes, cells, row templates, inline pieces, conditions and the other "one of several shapes"
 *   values are dispatched by hand (the kind key present decides the schema) instead of zod
 *   unions, so an error names the fault in the intended shape, not every alternative.
 * - Objects are strict: an unknown key is refused with its own path (`content[0].colr`) and a
 *   suggestion when it looks like a typo.
 * - Before zod runs, the raw definition is walked iteratively: nesting deeper than
 *   `maxDepth` (DEFAULT_LIMITS.maxDepth) stops validation at once, so a hostile definition cannot
 *   overflow the stack; `__proto__`, `constructor` and `prototype` keys and non-JSON values are
 *   refused there.
 * - Strings that are bound to data (texts, links, image/qrcode/barcode values, colours of nodes,
 *   metadata) have their placeholder syntax checked; a colour holding a placeholder is checked
 *   when bound. Colours in `styles` and `font` are never bound, so they must be literal.
 * - `style` names must exist in `styles` (checked by parseTemplate; a bare `templateSchema.parse`
 *   cannot know the styles and skips that check). A named style cannot use `style` itself.
 *
 * Zod runs `jitless`: no code generation (no eval/Function) anywhere in the template layer.
 */
import { z } from 'zod';
import { DEFAULT_LIMITS } from '../errors.ts';
import type {
  BorderInput,
  BorderSide,
  ColumnWidth,
  Condition,
  Inline,
  Node,
  PageSize,
  SidesInput,
  TableCell,
  TableRowTemplate,
  Template,
  TemplateIssue,
  TextNode,
  ImageNode,
  TableNode,
  ColumnsNode,
  StackNode,
  ListNode,
  QrCodeNode,
  BarcodeNode,
  LineNode,
  SpacerNode,
  PageBreakNode,
  EachNode,
  IfNode,
  InlineSpan,
  TableSpec,
  StyleProps,
  PageSpec,
  FontSpec,
  Metadata,
} from './types.ts';
import { BOUNDS } from './bounds.ts';
import { CSS_COLORS, parseColor } from './colors.ts';
import { CONDITION_KEYS } from './conditions.ts';
import { isLanguageTag } from './filters.ts';
import { checkPath, checkString, closest, hasPlaceholder, isDangerousKey } from './placeholders.ts';
import { tableGridIssues } from './table-grid.ts';
import { linkIssues } from './links.ts';
import { nodeIssues } from './node-checks.ts';
import { pageMarginFault } from './page.ts';

/** The kind keys of nodes, in documentation order. */
export const NODE_KINDS = [
  'text',
  'image',
  'table',
  'columns',
  'stack',
  'list',
  'qrcode',
  'barcode',
  'line',
  'spacer',
  'pageBreak',
  'toc',
  'each',
  'if',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** Page size names (matched case-insensitively; canonical spelling in the parsed template). */
export const PAGE_SIZE_NAMES = ['A3', 'A4', 'A5', 'A6', 'B5', 'Letter', 'Legal', 'Tabloid'] as const;

// ---------------------------------------------------------------------------------------------
// Messages

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A short description of a value for messages: `the string "abc"`, `the number 3`, `an array`. DESIGN §5. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') {
    const s = v.length > 40 ? v.slice(0, 37) + '...' : v;
    return `the string ${JSON.stringify(s)}`;
  }
  if (typeof v === 'number') return `the number ${String(v)}`;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? 'an empty array' : `an array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
  tuple: 'an array',
  record: 'an object',
};

function list(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/** zod error map: plain sentences instead of zod's defaults. */
function errorMap(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type': {
      const expected = EXPECTED[iss.expected] ?? iss.expected;
      if (iss.input === undefined) return `is required (${expected})`;
      return `expected ${expected}, got ${describeValue(iss.input)}`;
    }
    case 'too_small': {
      const min = Number(iss.minimum);
      if (iss.origin === 'number' || iss.origin === 'int') {
        return iss.inclusive ? `must be at least ${min}, got ${describeValue(iss.input)}` : `must be greater than ${min}, got ${describeValue(iss.input)}`;
      }
      if (iss.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters long`;
      if (iss.origin === 'array') return min <= 1 ? 'must not be empty' : `needs at least ${min} items`;
      return `is too small (minimum ${min})`;
    }
    case 'too_big': {
      const max = Number(iss.maximum);
      if (iss.origin === 'number' || iss.origin === 'int') return `must be at most ${max}, got ${describeValue(iss.input)}`;
      if (iss.origin === 'array') return `has more than ${max} items`;
      return `is too big (maximum ${max})`;
    }
    case 'invalid_value':
      if (iss.values.length === 1) return `expected ${list(iss.values)}, got ${describeValue(iss.input)}`;
      return `expected one of ${list(iss.values)}; got ${describeValue(iss.input)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(iss.divisor)}, got ${describeValue(iss.input)}`;
    case 'unrecognized_keys':
      return `unknown key${iss.keys.length === 1 ? '' : 's'} ${list(iss.keys)}`;
    default:
      return undefined;
  }
}

const PARSE_PARAMS = { error: errorMap, jitless: true } as const;

/** Every key the DSL knows, for "did you mean" hints. */
const KNOWN_KEYS = new Set<string>();

function unknownKeyMessage(key: string): string {
  const hint = closest(key, KNOWN_KEYS);
  return `unknown key ${JSON.stringify(key)}${hint !== null && hint !== key ? ` (did you mean "${hint}"?)` : ''}`;
}

/** A zod issue split per unknown key, dangerous keys left to the preflight walk. */
function* expandIssue(iss: z.core.$ZodIssue): Generator<{ path: PropertyKey[]; message: string }> {
  if (iss.code === 'unrecognized_keys') {
    for (const key of iss.keys) {
      if (isDangerousKey(key)) continue;
      yield { path: [...iss.path, key], message: unknownKeyMessage(key) };
    }
    return;
  }
  yield { path: [...iss.path], message: iss.message };
}

// ---------------------------------------------------------------------------------------------
// Validation context: the style names of the template being parsed (set by parseTemplate around
// one synchronous safeParse call).

let styleNames: ReadonlySet<string> | null = null;
/** The template's `styles` object (for the spans a cell takes from its named styles), when it is one. */
let styleObjects: Obj | undefined;

// ---------------------------------------------------------------------------------------------
// Building blocks

/**
 * A schema that picks the schema for a value by hand (the kind key present, the value's type) and
 * reports the chosen schema's issues as its own; `pick` returns a sentence when nothing fits.
 */
function dispatch<T>(pick: (v: Obj | unknown) => z.ZodType | string): z.ZodType<T> {
  return z.custom<T>().superRefine((v, ctx) => {
    const chosen = v === undefined ? 'is required' : pick(v);
    if (typeof chosen === 'string') {
      ctx.addIssue({ code: 'custom', message: chosen });
      return;
    }
    const r = chosen.safeParse(v, PARSE_PARAMS);
    if (r.success) return;
    for (const iss of r.error.issues) {
      for (const e of expandIssue(iss)) ctx.addIssue({ code: 'custom', message: e.message, path: e.path });
    }
  });
}

function custom(ctx: z.core.$RefinementCtx, message: string): void {
  ctx.addIssue({ code: 'custom', message });
}

/** A length in points greater than 0 (widths, heights, sizes): at most BOUNDS.length. */
const positive = z.number().positive().max(BOUNDS.length);
/** A length in points from 0 (margins, padding, spacer, gap): at most BOUNDS.length. */
const nonNegative = z.number().min(0).max(BOUNDS.length);
const spanCount = z.int().min(1).max(BOUNDS.span);
const fontSize = z.number().min(BOUNDS.fontSize.min).max(BOUNDS.fontSize.max);
const lineHeight = z.number().min(BOUNDS.lineHeight.min).max(BOUNDS.lineHeight.max);
const pageSide = z.number().min(BOUNDS.pageSide.min).max(BOUNDS.pageSide.max);

/** A string bound to data: placeholder syntax checked. */
const boundString = z.string().superRefine((s, ctx) => {
  const problem = checkString(s);
  if (problem !== null) custom(ctx, problem);
});
/** A bound string that must not be empty (image, qrcode, barcode values). */
const requiredBoundString = z.string().min(1).superRefine((s, ctx) => {
  const problem = checkString(s);
  if (problem !== null) custom(ctx, problem);
});

function colorMessage(s: string): string {
  const hint = s.startsWith('#') ? null : closest(s.trim(), CSS_COLORS.keys());
  return `${JSON.stringify(s)} is not a colour: use #rgb, #rrggbb or a CSS colour name${hint ? ` (did you mean "${hint}"?)` : ''}`;
}

/** A colour of a node: literal, or a placeholder checked at bind time. */
const boundColor = z.string().superRefine((s, ctx) => {
  if (hasPlaceholder(s)) {
    const problem = checkString(s);
    if (problem !== null) custom(ctx, problem);
    return;
  }
  if (parseColor(s) === null) custom(ctx, colorMessage(s));
});
/** A colour that is never bound (styles, font). */
const literalColor = z.string().superRefine((s, ctx) => {
  if (hasPlaceholder(s)) {
    custom(ctx, 'placeholders are not allowed here (styles and font are not bound to data); use a node colour instead');
    return;
  }
  if (parseColor(s) === null) custom(ctx, colorMessage(s));
});

/** A bare data path (each, conditions). */
const dataPath = z.string().superRefine((s, ctx) => {
  const problem = checkPath(s);
  if (problem !== null) custom(ctx, problem);
});

const ALIAS = /^[\p{L}_][\p{L}\p{N}_-]*$/u;
/** A loop alias (`as`). */
const alias = z.string().superRefine((s, ctx) => {
  if (isDangerousKey(s)) custom(ctx, `"${s}" is not allowed as an alias`);
  else if (!ALIAS.test(s)) custom(ctx, `an alias is a simple name such as "item" (letters, digits, _ and -, not starting with $ or a digit); got ${JSON.stringify(s)}`);
});

const sides = dispatch<SidesInput>((v) => {
  if (typeof v === 'number') return nonNegative;
  if (Array.isArray(v) && (v.length === 2 || v.length === 4)) return z.array(nonNegative);
  return `expected a number, [vertical, horizontal] or [top, right, bottom, left]; got ${describeValue(v)}`;
});

const SHARE = /^(\d+(\.\d+)?)?\*$/;
const columnWidth = dispatch<ColumnWidth>((v) => {
  if (typeof v === 'number') return positive;
  if (typeof v === 'string' && (v === 'auto' || v === '*' || (SHARE.test(v) && parseFloat(v) > 0 && parseFloat(v) <= BOUNDS.share))) return z.string();
  if (typeof v === 'string' && SHARE.test(v) && parseFloat(v) > BOUNDS.share) return `a share "N*" is at most ${BOUNDS.share}*; got ${describeValue(v)}`;
  return `expected a width in points, "auto", "*" or "N*" such as "2*"; got ${describeValue(v)}`;
});

const styleName = z.string().superRefine((s, ctx) => {
  if (styleNames === null || styleNames.has(s)) return;
  const hint = closest(s, styleNames);
  const known = styleNames.size === 0 ? 'the template defines no styles' : `styles: ${[...styleNames].join(', ')}`;
  custom(ctx, `unknown style ${JSON.stringify(s)}${hint ? ` (did you mean "${hint}"?)` : ''}; ${known}`);
});
const styleRef = dispatch<string | string[]>((v) => {
  if (typeof v === 'string') return styleName;
  if (Array.isArray(v)) return z.array(styleName);
  return `expected a style name or a list of style names; got ${describeValue(v)}`;
});

const fontWeight = dispatch<'normal' | 'bold' | number>((v) => {
  if (typeof v === 'string') return z.enum(['normal', 'bold']);
  if (typeof v === 'number') return z.int().min(100).max(900).multipleOf(100);
  return `expected "normal", "bold" or 100, 200, ... 900; got ${describeValue(v)}`;
});

function borderSide(color: z.ZodType<string>) {
  return z.strictObject({ width: nonNegative.optional(), color: color.optional() });
}
const SIDE_KEYS = ['top', 'right', 'bottom', 'left'];
function borderInput(color: z.ZodType<string>) {
  const side = borderSide(color);
  const perSide = z.strictObject({
    top: side.optional(),
    right: side.optional(),
    bottom: side.optional(),
    left: side.optional(),
  });
  return dispatch<BorderInput>((v) => {
    if (!isObj(v)) return `expected a border {"width": 1, "color": "#000"} or per side {"top": {...}, ...}; got ${describeValue(v)}`;
    const keys = Object.keys(v);
    const sideKeys = keys.some((k) => SIDE_KEYS.includes(k));
    const ownKeys = keys.some((k) => k === 'width' || k === 'color');
    if (sideKeys && ownKeys) return 'a border is {width, color} for all sides or {top, right, bottom, left}, not both';
    return sideKeys ? perSide : side;
  });
}

/** A BCP 47 language tag written out (no placeholders): a node's `lang`. */
const literalLanguageTag = z.string().superRefine((s, ctx) => {
  if (!isLanguageTag(s)) custom(ctx, `${JSON.stringify(s)} is not a BCP 47 language tag such as "en" or "de-CH"`);
});

/** An offset of an absolutely positioned box from an edge, points (negative: past the edge, clamped to the page). */
const offset = z.number().min(-BOUNDS.length).max(BOUNDS.length);
/** Box properties of the layout (fixed size, position, transform): not inherited, not on spans. */
const BOX_SHAPE = {
  width: positive.optional(),
  height: positive.optional(),
  position: z.enum(['static', 'absolute']).optional(),
  relativeTo: z.enum(['page', 'parent']).optional(),
  top: offset.optional(),
  right: offset.optional(),
  bottom: offset.optional(),
  left: offset.optional(),
  rotate: z.number().min(-360).max(360).optional(),
  opacity: z.number().min(0).max(1).optional(),
  borderRadius: nonNegative.optional(),
};
/** Keys of BOX_SHAPE (left out of inline spans). */
export const BOX_KEYS = Object.keys(BOX_SHAPE);

/** Style properties; `color` decides whether colours may hold placeholders. */
function styleShape(color: z.ZodType<string>) {
  return {
    style: styleRef.optional(),
    fontFamily: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(16)]).optional(),
    fontSize: fontSize.optional(),
    fontWeight: fontWeight.optional(),
    fontStyle: z.enum(['normal', 'italic']).optional(),
    color: color.optional(),
    backgroundColor: color.optional(),
    textAlign: z.enum(['start', 'end', 'left', 'right', 'center', 'justify']).optional(),
    lineHeight: lineHeight.optional(),
    textDecoration: z.enum(['none', 'underline', 'line-through']).optional(),
    direction: z.enum(['ltr', 'rtl', 'auto']).optional(),
    letterSpacing: z.number().min(BOUNDS.letterSpacing.min).max(BOUNDS.letterSpacing.max).optional(),
    fontFeatures: z.array(z.string().regex(/^[a-z0-9]{4}$/, 'an OpenType feature tag of four lowercase letters or digits, such as "tnum" or "smcp"')).max(32).optional(),
    hyphenate: z.boolean().optional(),
    lang: literalLanguageTag.optional(),
    role: z.enum(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'figure', 'caption', 'note', 'artifact']).optional(),
    margin: sides.optional(),
    padding: sides.optional(),
    border: borderInput(color).optional(),
    keepTogether: z.boolean().optional(),
    keepWithNext: z.boolean().optional(),
    widows: z.number().int().min(1).max(10).optional(),
    orphans: z.number().int().min(1).max(10).optional(),
    breakBefore: z.enum(['page', 'auto']).optional(),
    pageBreak: z.enum(['before', 'after', 'avoid']).optional(),
    id: z.string().regex(/^[A-Za-z][\w.:-]{0,99}$/, 'an id is a letter followed by up to 99 letters, digits, "_", "-", "." or ":"').optional(),
    ...BOX_SHAPE,
    colSpan: spanCount.optional(),
    rowSpan: spanCount.optional(),
    verticalAlign: z.enum(['top', 'middle', 'bottom', 'baseline']).optional(),
  };
}

const nodeStyle = styleShape(boundColor);
/** A style object inside a node (table headerStyle/footerStyle): colours bound. */
const nodeStyleObject = z.strictObject(nodeStyle);
/** A named style in `styles`: literal colours, no `style` of its own, no `lang` (a node's text has it). */
const { lang: _lang, role: _role, id: _id, ...namedStyleShape } = styleShape(literalColor);
const namedStyle = z.strictObject({
  ...namedStyleShape,
  style: z
    .custom<never>()
    .superRefine((_v, ctx) => custom(ctx, 'a named style cannot use other styles; list several names at the use site instead'))
    .optional(),
});

// ---------------------------------------------------------------------------------------------
// Nodes

function foundList(keys: readonly string[]): string {
  if (keys.length === 2) return `both ${keys[0]} and ${keys[1]}`;
  return keys.slice(0, -1).join(', ') + ' and ' + keys[keys.length - 1];
}

/** A template node: exactly one kind key decides its schema. */
export const nodeSchema: z.ZodType<Node> = dispatch<Node>((v) => {
  const expected = `a node needs exactly one of ${NODE_KINDS.join(', ')}`;
  if (!isObj(v)) return `${expected}; got ${describeValue(v)}`;
  // `pageBreak: true` is a page break node; "before", "after" and "avoid" are a style property.
  const kinds = NODE_KINDS.filter((k) => Object.hasOwn(v, k) && (k !== 'pageBreak' || typeof v.pageBreak !== 'string'));
  if (kinds.length === 1) return KIND_SCHEMAS[kinds[0]];
  if (kinds.length > 1) return `${expected}; found ${foundList(kinds)}`;
  let hint = '';
  for (const key of Object.keys(v)) {
    const guess = closest(key, NODE_KINDS);
    if (guess !== null && !KNOWN_KEYS.has(key)) {
      hint = ` (unknown key ${JSON.stringify(key)}: did you mean "${guess}"?)`;
      break;
    }
  }
  return `${expected}; found none${hint}`;
});
const nodeList = z.array(nodeSchema);

const spanSchema: z.ZodType<InlineSpan> = dispatch<InlineSpan>(() => spanObject);
const inlineSchema = dispatch<Inline>((v) => {
  if (typeof v === 'string') return boundString;
  if (isObj(v)) return spanSchema;
  return `an inline piece is a string or a span such as {"text": "bold", "fontWeight": "bold"}; got ${describeValue(v)}`;
});
const textContent = dispatch<string | Inline[]>((v) => {
  if (typeof v === 'string') return boundString;
  if (Array.isArray(v)) return z.array(inlineSchema);
  return `expected a string or a list of strings and spans; got ${describeValue(v)}`;
});
const { role: _spanRole, id: _spanId, width: _w, height: _h, position: _p, relativeTo: _r, top: _t, right: _ri, bottom: _b, left: _l, rotate: _ro, opacity: _o, borderRadius: _br, ...spanStyle } = nodeStyle;
const spanObject = z.strictObject({ ...spanStyle, text: textContent, link: boundString.optional() });

const textNode = z.strictObject({
  ...nodeStyle,
  text: textContent,
  link: boundString.optional(),
  fit: z.enum(['shrink']).optional(),
  minFontSize: fontSize.optional(),
});

const imageNode = z.strictObject({
  ...nodeStyle,
  image: requiredBoundString,
  width: positive.optional(),
  height: positive.optional(),
  fit: z.enum(['contain', 'cover', 'fill']).optional(),
  align: z.enum(['left', 'center', 'right']).optional(),
  alt: boundString.optional(),
});

const emptyCell = z.strictObject({});
const tableCell = dispatch<TableCell>((v) => {
  if (typeof v === 'string') return boundString;
  if (isObj(v)) return Object.keys(v).length === 0 ? emptyCell : nodeSchema;
  return `a table cell is a string, a node or {} (a placeholder under a span); got ${describeValue(v)}`;
});
const tableRow = z.array(tableCell);
const rowTemplate: z.ZodType<TableRowTemplate> = dispatch<TableRowTemplate>((v) => {
  const expected = 'a table row is an array of cells, {"each", "as", "row"} or {"if", "then", "else"}';
  if (Array.isArray(v)) return tableRow;
  if (!isObj(v)) return `${expected}; got ${describeValue(v)}`;
  const each = Object.hasOwn(v, 'each');
  const cond = Object.hasOwn(v, 'if');
  if (each && cond) return `${expected}; found both each and if`;
  if (each) return eachRow;
  if (cond) return ifRow;
  return `${expected}; found an object without each or if`;
});
const eachRow = z.strictObject({ each: dataPath, as: alias.optional(), row: tableRow });
const ifRow = z.strictObject({
  get if() {
    return conditionSchema;
  },
  then: z.array(rowTemplate).optional(),
  else: z.array(rowTemplate).optional(),
});

const tableSpec = z.strictObject({
  columns: z.array(columnWidth).min(1).optional(),
  header: z.array(tableRow).optional(),
  rows: z.array(rowTemplate),
  footer: z.array(tableRow).optional(),
  borders: z.enum(['all', 'horizontal', 'outer', 'none']).optional(),
  borderColor: boundColor.optional(),
  borderWidth: nonNegative.optional(),
  stripe: boundColor.optional(),
  cellPadding: sides.optional(),
  headerStyle: nodeStyleObject.optional(),
  footerStyle: nodeStyleObject.optional(),
}).superRefine((spec, ctx) => {
  for (const issue of tableGridIssues(spec as unknown as Obj, styleObjects)) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
});
const tableNode = z.strictObject({ ...nodeStyle, table: tableSpec });

const columnsNode = z.strictObject({
  ...nodeStyle,
  columns: z.array(z.strictObject({ width: columnWidth.optional(), content: nodeList })).min(1),
  gap: nonNegative.optional(),
});

const stackNode = z.strictObject({ ...nodeStyle, stack: nodeList });

const listItem = dispatch<string | Node>((v) => {
  if (typeof v === 'string') return boundString;
  if (isObj(v)) return nodeSchema;
  return `a list item is a string or a node; got ${describeValue(v)}`;
});
const listNode = z.strictObject({
  ...nodeStyle,
  list: z.array(listItem),
  marker: z
    .enum(['disc', 'circle', 'square', 'decimal', 'lower-alpha', 'upper-alpha', 'lower-roman', 'upper-roman', 'none'])
    .optional(),
  start: z.int().min(0).max(BOUNDS.listStart).optional(),
});

const qrcodeNode = z.strictObject({
  ...nodeStyle,
  qrcode: requiredBoundString,
  size: positive.optional(),
  errorCorrection: z.enum(['L', 'M', 'Q', 'H']).optional(),
  alt: boundString.optional(),
});

const barcodeNode = z.strictObject({
  ...nodeStyle,
  barcode: requiredBoundString,
  format: z.string().min(1).optional(),
  height: positive.optional(),
  width: positive.optional(),
  showText: z.boolean().optional(),
  alt: boundString.optional(),
});

const lineNode = z.strictObject({
  ...nodeStyle,
  line: z.strictObject({
    thickness: positive.optional(),
    color: boundColor.optional(),
    length: positive.optional(),
    dash: z.array(positive).max(BOUNDS.dashEntries).optional(),
  }),
});

const spacerNode = z.strictObject({ ...nodeStyle, spacer: nonNegative });
const pageBreakNode = z.strictObject({ ...nodeStyle, pageBreak: z.literal(true) });
const tocNode = z.strictObject({ ...nodeStyle, toc: z.strictObject({ levels: z.int().min(1).max(6).optional() }) });
const eachNode = z.strictObject({ ...nodeStyle, each: dataPath, as: alias.optional(), content: nodeList });
const ifNode = z.strictObject({
  ...nodeStyle,
  get if() {
    return conditionSchema;
  },
  then: nodeList.optional(),
  else: nodeList.optional(),
});

/** The schema of each node kind (what {@link nodeSchema} dispatches to); the JSON Schema generator reads them. */
export const KIND_SCHEMAS: Record<NodeKind, z.ZodType> = {
  text: textNode,
  image: imageNode,
  table: tableNode,
  columns: columnsNode,
  stack: stackNode,
  list: listNode,
  qrcode: qrcodeNode,
  barcode: barcodeNode,
  line: lineNode,
  spacer: spacerNode,
  pageBreak: pageBreakNode,
  toc: tocNode,
  each: eachNode,
  if: ifNode,
};

// ---------------------------------------------------------------------------------------------
// Conditions

const conditionLiteral = dispatch<unknown>((v) => {
  if (typeof v === 'string') return boundString;
  if (typeof v === 'number') return z.number();
  if (typeof v === 'boolean') return z.boolean();
  if (v === null) return z.null();
  return `expected a string, number, boolean or null to compare with; got ${describeValue(v)}`;
});
const comparison = dispatch<[string, unknown]>((v) => {
  if (Array.isArray(v) && v.length === 2) return z.tuple([dataPath, conditionLiteral]);
  return `expected [path, value] such as ["total", 100]; got ${describeValue(v)}`;
});

/** A condition of `if`: a data path or one of not/and/or/eq/ne/gt/gte/lt/lte. */
export const conditionSchema: z.ZodType<Condition> = dispatch<Condition>((v) => {
  const expected = `a condition is a data path or an object with one of ${CONDITION_KEYS.join(', ')}`;
  if (typeof v === 'string') return dataPath;
  if (!isObj(v)) return `${expected}; got ${describeValue(v)}`;
  const found = CONDITION_KEYS.filter((k) => Object.hasOwn(v, k));
  if (found.length === 1) return CONDITION_SCHEMAS[found[0]];
  if (found.length > 1) return `${expected}; found ${foundList(found)}`;
  const keys = Object.keys(v);
  return `${expected}; found ${keys.length === 0 ? 'none' : `only ${list(keys)}`}`;
});

const CONDITION_SCHEMAS: Record<(typeof CONDITION_KEYS)[number], z.ZodType> = {
  not: z.strictObject({ not: conditionSchema }),
  and: z.strictObject({ and: z.array(conditionSchema).min(1) }),
  or: z.strictObject({ or: z.array(conditionSchema).min(1) }),
  eq: z.strictObject({ eq: comparison }),
  ne: z.strictObject({ ne: comparison }),
  gt: z.strictObject({ gt: comparison }),
  gte: z.strictObject({ gte: comparison }),
  lt: z.strictObject({ lt: comparison }),
  lte: z.strictObject({ lte: comparison }),
};

// ---------------------------------------------------------------------------------------------
// Root

/** Points per unit of a page size written with units ("4x6in", "100x150mm"). */
const UNIT_POINTS: Record<string, number> = { pt: 1, in: 72, mm: 72 / 25.4, cm: 72 / 2.54 };
/** `<width>x<height><unit>`: "4x6in", "100 x 150 mm", "8.5x11in", "595x842pt". */
export const PAGE_SIZE_UNITS = /^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*(pt|in|mm|cm)\s*$/i;

/** A page size with units in points [width, height], or null when `v` is not written that way. */
export function pageSizeInPoints(v: string): [number, number] | null {
  const m = PAGE_SIZE_UNITS.exec(v);
  if (!m) return null;
  const k = UNIT_POINTS[m[3].toLowerCase()];
  // Rounded to 1/100 pt: 4x6in is exactly [288, 432], 210x297mm [595.28, 841.89] like A4.
  return [Math.round(parseFloat(m[1]) * k * 100) / 100, Math.round(parseFloat(m[2]) * k * 100) / 100];
}

const pageSize = dispatch<PageSize>((v) => {
  if (typeof v === 'string') {
    if (PAGE_SIZE_NAMES.some((n) => n.toLowerCase() === v.toLowerCase())) return z.string();
    const pts = pageSizeInPoints(v);
    if (pts) {
      const bad = pts.find((side) => side < BOUNDS.pageSide.min || side > BOUNDS.pageSide.max);
      if (bad !== undefined) return `a page side is ${BOUNDS.pageSide.min} to ${BOUNDS.pageSide.max} pt; ${JSON.stringify(v)} has a side of ${bad} pt`;
      return z.string();
    }
    return `unknown page size ${JSON.stringify(v)}: use ${PAGE_SIZE_NAMES.join(', ')}, a size with units such as "4x6in", "100x150mm", "8.5x11in" or "595x842pt" (width x height; in, mm, cm or pt), or [width, height] in points`;
  }
  if (Array.isArray(v)) {
    if (v.length === 2) return z.tuple([pageSide, pageSide]);
    return `a page size is [width, height] in points; got ${describeValue(v)}`;
  }
  return `expected ${PAGE_SIZE_NAMES.join(', ')} or [width, height] in points; got ${describeValue(v)}`;
}).transform((v): PageSize => {
  if (typeof v !== 'string') return v;
  return PAGE_SIZE_NAMES.find((n) => n.toLowerCase() === (v as string).toLowerCase()) ?? pageSizeInPoints(v as string) ?? v;
});

const pageSchema = z
  .strictObject({
    size: pageSize.optional(),
    orientation: z.enum(['portrait', 'landscape']).optional(),
    margin: sides.optional(),
  })
  .superRefine((page, ctx) => {
    // Margins that leave no room for content (page.ts; a render refuses them the same way).
    const fault = pageMarginFault(page as PageSpec);
    if (fault !== null) ctx.addIssue({ code: 'custom', message: fault, path: ['margin'] });
  });

const fontSchema = z.strictObject({
  family: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(16)]).optional(),
  size: fontSize.optional(),
  color: literalColor.optional(),
  lineHeight: lineHeight.optional(),
});

const languageTag = z.string().superRefine((s, ctx) => {
  if (hasPlaceholder(s)) {
    const problem = checkString(s);
    if (problem !== null) custom(ctx, problem);
    return;
  }
  if (!isLanguageTag(s)) custom(ctx, `${JSON.stringify(s)} is not a BCP 47 language tag such as "en" or "de-CH"`);
});

const metadataSchema = z.strictObject({
  title: boundString.optional(),
  author: boundString.optional(),
  subject: boundString.optional(),
  keywords: boundString.optional(),
  language: languageTag.optional(),
});

/**
 * The zod schema of a template definition (DESIGN §5 root). Prefer {@link parseTemplate}: it adds
 * the depth and prototype-key preflight, style-name checks and clean paths.
 */
/** A string of the watermark: written out, never bound to data. */
const literalString = z.string().min(1).superRefine((s, ctx) => {
  if (hasPlaceholder(s)) custom(ctx, 'placeholders are not allowed in the watermark (it is not bound to data); write the text or image out');
});
const watermarkSchema = z
  .strictObject({
    text: literalString.max(100).optional(),
    image: literalString.optional(),
    color: literalColor.optional(),
    fontFamily: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(16)]).optional(),
    fontWeight: fontWeight.optional(),
    fontSize: fontSize.optional(),
    width: positive.optional(),
    opacity: z.number().min(0).max(1).optional(),
    rotate: z.number().min(-360).max(360).optional(),
    layer: z.enum(['behind', 'front']).optional(),
  })
  .superRefine((w, ctx) => {
    if ((w.text === undefined) === (w.image === undefined)) custom(ctx, 'a watermark has either "text" or "image"');
  });

export const templateSchema = z.strictObject({
  $schema: z.string().optional(),
  strict: z.boolean().optional(),
  tagged: z.boolean().optional(),
  pdfUa: z.boolean().optional(),
  page: pageSchema.optional(),
  font: fontSchema.optional(),
  styles: z.record(z.string(), namedStyle).optional(),
  metadata: metadataSchema.optional(),
  header: nodeList.optional(),
  footer: nodeList.optional(),
  background: nodeList.optional(),
  watermark: watermarkSchema.optional(),
  content: nodeList,
});

for (const shape of [
  nodeStyle,
  textNode.shape,
  imageNode.shape,
  tableNode.shape,
  tableSpec.shape,
  columnsNode.shape,
  listNode.shape,
  qrcodeNode.shape,
  barcodeNode.shape,
  lineNode.shape,
  lineNode.shape.line.shape,
  spacerNode.shape,
  pageBreakNode.shape,
  tocNode.shape,
  tocNode.shape.toc.shape,
  eachNode.shape,
  eachRow.shape,
  ifNode.shape,
  pageSchema.shape,
  fontSchema.shape,
  metadataSchema.shape,
  templateSchema.shape,
  { layer: 0 },
  { top: 0, right: 0, bottom: 0, left: 0, width: 0, content: 0, row: 0 },
]) {
  for (const key of Object.keys(shape)) KNOWN_KEYS.add(key);
}

// ---------------------------------------------------------------------------------------------
// Type checks: the schemas produce exactly the shapes of types.ts.

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type Out<S extends z.ZodType> = z.output<S>;
export type _SchemaMatchesTypes = [
  Assert<Exact<keyof Out<typeof textNode>, keyof TextNode>>,
  Assert<Out<typeof textNode> extends TextNode ? true : false>,
  Assert<Exact<keyof Out<typeof spanObject>, keyof InlineSpan>>,
  Assert<Exact<keyof Out<typeof imageNode>, keyof ImageNode>>,
  Assert<Out<typeof imageNode> extends ImageNode ? true : false>,
  Assert<Exact<keyof Out<typeof tableNode>, keyof TableNode>>,
  Assert<Exact<keyof Out<typeof tableSpec>, keyof TableSpec>>,
  Assert<Out<typeof tableSpec> extends TableSpec ? true : false>,
  Assert<Exact<keyof Out<typeof columnsNode>, keyof ColumnsNode>>,
  Assert<Out<typeof columnsNode> extends ColumnsNode ? true : false>,
  Assert<Exact<keyof Out<typeof stackNode>, keyof StackNode>>,
  Assert<Exact<keyof Out<typeof listNode>, keyof ListNode>>,
  Assert<Out<typeof listNode> extends ListNode ? true : false>,
  Assert<Exact<keyof Out<typeof qrcodeNode>, keyof QrCodeNode>>,
  Assert<Out<typeof qrcodeNode> extends QrCodeNode ? true : false>,
  Assert<Exact<keyof Out<typeof barcodeNode>, keyof BarcodeNode>>,
  Assert<Out<typeof barcodeNode> extends BarcodeNode ? true : false>,
  Assert<Exact<keyof Out<typeof lineNode>, keyof LineNode>>,
  Assert<Exact<keyof Out<typeof lineNode>['line'], keyof LineNode['line']>>,
  Assert<Out<typeof lineNode> extends LineNode ? true : false>,
  Assert<Exact<keyof Out<typeof spacerNode>, keyof SpacerNode>>,
  Assert<Exact<keyof Out<typeof pageBreakNode>, keyof PageBreakNode>>,
  Assert<Out<typeof pageBreakNode> extends PageBreakNode ? true : false>,
  Assert<Exact<keyof Out<typeof eachNode>, keyof EachNode>>,
  Assert<Out<typeof eachNode> extends EachNode ? true : false>,
  Assert<Exact<keyof Out<typeof ifNode>, keyof IfNode>>,
  Assert<Out<typeof ifNode> extends IfNode ? true : false>,
  Assert<Exact<keyof Out<typeof nodeStyleObject>, keyof StyleProps>>,
  Assert<Out<typeof nodeStyleObject> extends StyleProps ? true : false>,
  Assert<Out<typeof namedStyle> extends StyleProps ? true : false>,
  Assert<Exact<keyof Out<typeof pageSchema>, keyof PageSpec>>,
  Assert<Out<typeof pageSchema> extends PageSpec ? true : false>,
  Assert<Exact<keyof Out<typeof fontSchema>, keyof FontSpec>>,
  Assert<Exact<keyof Out<typeof metadataSchema>, keyof Metadata>>,
  Assert<Exact<keyof Out<typeof templateSchema>, keyof Template>>,
  Assert<Out<typeof templateSchema> extends Template ? true : false>,
  Assert<Out<ReturnType<typeof borderSide>> extends BorderSide ? true : false>,
];

// ---------------------------------------------------------------------------------------------
// Preflight: depth, prototype keys, non-JSON values — iterative, before zod.

/** Formats a path such as `content[2].table.rows[0][1]`; "" for the root. DESIGN §5. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      if (/^[A-Za-z_$][\w$-]*$/.test(key)) out += (out === '' ? '' : '.') + key;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

interface Preflight {
  issues: TemplateIssue[];
  /** Nesting too deep: zod must not run. */
  fatal: boolean;
}

function preflight(def: unknown, maxDepth: number): Preflight {
  const issues: TemplateIssue[] = [];
  // Entries of the walk: value, depth, parent entry, key in the parent (for paths on faults).
  const values: unknown[] = [def];
  const depths: number[] = [1];
  const parents: number[] = [-1];
  const keys: PropertyKey[] = [''];
  const stack: number[] = [0];
  const pathOf = (entry: number, extra?: PropertyKey): string => {
    const segs: PropertyKey[] = extra === undefined ? [] : [extra];
    for (let e = entry; e > 0; e = parents[e]) segs.push(keys[e]);
    return formatPath(segs.reverse());
  };
  const push = (value: unknown, depth: number, parent: number, key: PropertyKey): void => {
    values.push(value);
    depths.push(depth);
    parents.push(parent);
    keys.push(key);
  };
  while (stack.length > 0) {
    const entry = stack.pop() as number;
    const v = values[entry];
    const depth = depths[entry];
    if (v === undefined && typeof keys[entry] === 'number') {
      issues.push({ path: pathOf(entry), message: 'undefined is not a JSON value' });
      continue;
    }
    if (v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) issues.push({ path: pathOf(entry), message: `${String(v)} is not a JSON number` });
      continue;
    }
    if (typeof v !== 'object') {
      issues.push({ path: pathOf(entry), message: `a ${typeof v} is not a JSON value` });
      continue;
    }
    if (depth > maxDepth) {
      return { issues: [{ path: pathOf(entry), message: `the definition is nested deeper than ${maxDepth} levels` }], fatal: true };
    }
    const first = values.length;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) push(v[i], depth + 1, entry, i);
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        issues.push({ path: pathOf(entry), message: 'expected a plain JSON object' });
        continue;
      }
      for (const key of Object.keys(v)) {
        if (isDangerousKey(key)) {
          issues.push({ path: pathOf(entry, key), message: `the key "${key}" is not allowed` });
          continue;
        }
        push((v as Obj)[key], depth + 1, entry, key);
      }
    }
    // Depth first, children in document order.
    for (let e = values.length - 1; e >= first; e--) stack.push(e);
  }
  return { issues, fatal: false };
}

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Successful parses by the definition's JSON text: renders validate their definition every time,
 * and a large template costs milliseconds in zod. Only definitions that passed the preflight
 * (plain JSON, no undefined in arrays) are keyed, so equal text means an equal definition.
 */
const parsedCache = new Map<string, Template>();
const byIdentity = new WeakMap<object, { maxDepth: number; template: Template }>();
const PARSED_CACHE_ENTRIES = 64;
const PARSED_CACHE_CHARS = 16 * 1024 * 1024;
let parsedCacheChars = 0;

function rememberParsed(key: string, template: Template): void {
  if (key.length > PARSED_CACHE_CHARS / 4) return;
  while (parsedCache.size >= PARSED_CACHE_ENTRIES || parsedCacheChars + key.length > PARSED_CACHE_CHARS) {
    const oldest = parsedCache.keys().next();
    if (oldest.done) break;
    parsedCache.delete(oldest.value);
    parsedCacheChars -= oldest.value.length;
  }
  parsedCache.set(key, template);
  parsedCacheChars += key.length;
}

/** The one fault reported when a definition holds more faults than the validator can gather. */
const TOO_MANY_FAULTS = 'the definition holds too many faults to list (about 100,000 or more): it is far from a valid template; check it against the JSON Schema, or validate a part of it first';

/** Result of {@link parseTemplate}. */
export type ParseTemplateResult = { ok: true; template: Template } | { ok: false; errors: TemplateIssue[] };

/**
 * Validates a template definition (DESIGN §5) and returns it typed, or every fault found, each
 * with its JSON path (`content[2].table.rows[0][1]`, "" for the root) and a sentence. Never
 * throws on any input. Nesting deeper than `maxDepth` (default DEFAULT_LIMITS.maxDepth, counting
 * JSON objects and arrays) is reported alone, before anything else is looked at. The returned
 * template is a copy of the containers zod rebuilds (page sizes canonical: "a4" -> "A4"); nodes
 * are the definition's own objects. Valid results are cached by the definition's JSON text (64
 * entries), so an equal definition may get the same template object back: treat it as read-only.
 * The same definition object passed again is recognised by identity (no walk, no JSON text), and
 * so is a template this function returned: neither may be changed once validated.
 */
export function parseTemplate(def: unknown, maxDepth: number = DEFAULT_LIMITS.maxDepth): ParseTemplateResult {
  const known = def !== null && typeof def === 'object' ? byIdentity.get(def) : undefined;
  if (known && known.maxDepth === maxDepth) return { ok: true, template: known.template };
  const pre = preflight(def, maxDepth);
  if (pre.fatal) return { ok: false, errors: pre.issues };
  const cacheKey = pre.issues.length === 0 ? JSON.stringify(def) : null;
  if (cacheKey !== null) {
    const hit = parsedCache.get(cacheKey);
    if (hit !== undefined) return { ok: true, template: hit };
  }
  // Style names for the use-site checks; when `styles` itself is malformed, its own error suffices.
  let names: Set<string> | null = new Set<string>();
  if (isObj(def) && def.styles !== undefined) {
    if (isObj(def.styles)) {
      for (const key of Object.keys(def.styles)) if (!isDangerousKey(key)) names.add(key);
    } else {
      names = null;
    }
  }
  const previous = styleNames;
  const previousObjects = styleObjects;
  styleNames = names;
  styleObjects = isObj(def) && isObj(def.styles) ? def.styles : undefined;
  let result;
  try {
    result = templateSchema.safeParse(def, PARSE_PARAMS);
  } catch (err) {
    // zod gathers a container's faults with push(...faults), which runs out of stack past about
    // 100,000 faults under one object or array: say so rather than throw (this function never throws).
    if (!(err instanceof RangeError)) throw err;
    return { ok: false, errors: [...pre.issues, { path: '', message: TOO_MANY_FAULTS }] };
  } finally {
    styleNames = previous;
    styleObjects = previousObjects;
  }
  const errors: TemplateIssue[] = [...pre.issues];
  const seen = new Set<string>(errors.map((e) => e.path));
  const emitted = new Set<string>();
  if (!result.success) {
    for (const iss of result.error.issues) {
      for (const e of expandIssue(iss)) {
        const path = formatPath(e.path);
        if (seen.has(path)) continue; // the preflight already explained this value
        const key = path + '\u0000' + e.message;
        if (emitted.has(key)) continue;
        emitted.add(key);
        errors.push({ path, message: e.message });
      }
    }
  }
  if (errors.length === 0) errors.push(...nodeIssues(def as Obj), ...linkIssues(def as Obj));
  if (errors.length > 0) return { ok: false, errors };
  const template = result.data as Template;
  if (cacheKey !== null) rememberParsed(cacheKey, template);
  if (def !== null && typeof def === 'object') byIdentity.set(def, { maxDepth, template });
  // The template itself is valid: validating it again (renderPdf of what validateTemplate gave) is
  // a lookup, not a walk in zod (6 ms of a process's first invoice render) or its JSON text.
  byIdentity.set(template, { maxDepth, template });
  return { ok: true, template };
}

/**
 * Like {@link parseTemplate} without the template: `{ok: true}` or `{ok: false, errors}`. DESIGN §5.
 */
export function validateTemplate(def: unknown, maxDepth?: number): { ok: true } | { ok: false; errors: TemplateIssue[] } {
  const r = parseTemplate(def, maxDepth);
  return r.ok ? { ok: true } : { ok: false, errors: r.errors };
}
