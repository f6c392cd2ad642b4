/**
 * Data binding (DESIGN §5): a validated template's nodes plus the caller's data become bound
 * nodes, the only input of layout.
 *
 * Rules:
 * - Placeholders are substituted in text strings and inline spans, `link`, `image`, `qrcode`,
 *   `barcode`, and in colours: `color`, `backgroundColor`, border colours, `line.color`, table
 *   `stripe`/`borderColor` and the colours of `headerStyle`/`footerStyle`. A colour that binds to
 *   "" is dropped (inherits); one that binds to a non-colour is RenderError('DATA_INVALID').
 * - A missing value renders as ""; a number as String(n) unless a filter formats it; a boolean as
 *   "true"/"false"; `$now` as its ISO string unless `date` formats it; arrays and objects as "".
 *   Bound text is always a string. An empty `link` is dropped. An `image` source placeholder
 *   whose value is an object or array (or, as the whole source, a number or boolean) is
 *   RenderError('DATA_INVALID') at its data path (data-faults.ts).
 * - `each` expands its `content` once per array item with the alias (`as`, default "item") and
 *   `$index` (0-based); a missing or null array yields nothing; any other non-array is
 *   RenderError('DATA_INVALID') with the value's place in the data (`data.items`) as its path and
 *   the each node's template path in its message (data-faults.ts). `if` binds `then` or `else`.
 * - `each`/`if` nodes that carry style properties (margin, keepTogether, breakBefore, ...) wrap
 *   what they produce in one `{stack: [...]}` with those properties; without style properties
 *   their output is spliced into the surrounding list.
 * - Table rows: literal rows, `{each, as, row}` and `{if, then, else}` row templates expand to
 *   bound rows (each keeping its template path, and a row from `each` its item: ROW_ITEM); a
 *   string cell becomes `{text}`; a cell that is an `each`/`if` node becomes the one
 *   node it produces, else a stack of them (an empty `{text: ""}` when it produces nothing). List
 *   items that are strings become `{text}`.
 * - `$page`/`$pages` come from opts.page (header, footer, background); elsewhere they render "".
 * - Filters format numbers and dates in the template's language, or in the `lang` of the nearest
 *   node or span around the string that sets one.
 * - A placeholder or `each` that reads a path the data lacks is told to `opts.missing`, when given
 *   (missing.ts).
 * - Bound nodes are new objects; the template is never mutated. Style properties are copied
 *   through unchanged; nested values without placeholders (margin arrays, border objects without
 *   placeholder colours, table `columns`, `dash`) are shared with the template: treat them as
 *   read-only.
 * - Produced nodes are counted: past `maxNodes` (default DEFAULT_LIMITS.maxNodes) binding stops
 *   with RenderError('LIMIT_EXCEEDED'); so do the characters filters and comparisons go through,
 *   past `maxDataScan` (data-scan.ts).
 */
import { DEFAULT_LIMITS, RenderError } from '../errors.ts';
import type {
  BindOptions,
  BoundInline,
  BoundNode,
  Condition,
  Inline,
  Metadata,
  Node,
  TableCell,
  TableRow,
  TableRowTemplate,
} from './types.ts';
import { evaluateCondition } from './conditions.ts';
import { bindColorText, bindImageSource, eachItems } from './data-faults.ts';
import { DataScanBudget } from './data-scan.ts';
import type { MissingReporter, UnformattedReporter } from './missing.ts';
import { resolveLocale } from './filters.ts';
import { createScope, enterLoop, type Scope } from './path.ts';
import { hasPlaceholder, isDangerousKey, type PathSegment } from './placeholders.ts';
import { bindTextIn, bindValueIn } from './value.ts';

/** Options of {@link bindNodes}. */
export interface BindNodesOptions extends BindOptions {
  /** Most nodes the bound output may hold. Default DEFAULT_LIMITS.maxNodes. */
  maxNodes?: number;
  /** Deepest node nesting. Default DEFAULT_LIMITS.maxDepth. */
  maxDepth?: number;
  /** Characters filters and comparisons may go through (data-scan.ts). Default DEFAULT_LIMITS.maxDataScan. */
  maxDataScan?: number;
  /** JSON path of `nodes` in the template, for error paths. Default "content". */
  path?: string;
  /** Told of every placeholder and `each` that reads data the data does not have (missing.ts). */
  missing?: MissingReporter;
  /** Told of every placeholder value that could not be made into the text asked for (missing.ts). */
  unformatted?: UnformattedReporter;
}

interface Ctx {
  /** Locale of the filters: the template's language, else the `lang` of the nearest node that sets one. */
  locale: string;
  readonly missing: MissingReporter | null;
  readonly maxNodes: number;
  readonly maxDepth: number;
  count: number;
}

type Obj = Record<string, unknown>;

const hasOwn = Object.hasOwn;

/**
 * The template path of a bound node (`content[1].content[0]`), kept on the node under this key:
 * `each` and `if` move nodes in the bound list, and layout's errors and warnings name the node's
 * place in the template, not its place in the expanded document. A symbol, so no pass that walks
 * a node's keys sees it.
 */
export const TEMPLATE_PATH: unique symbol = Symbol('templatePath');

/**
 * Where a bound table row made by `each` came from in the data: the array (null when it is not in
 * the data) and the item's index. Kept on the row under this symbol, beside the row's template
 * path (TEMPLATE_PATH: `content[0].table.rows[1].row`), so that layout's faults of a row name the
 * row as written and the item it was made from.
 */
export const ROW_ITEM: unique symbol = Symbol('rowItem');

/**
 * Where a bound node made by `each` came from in the data (as {@link ROW_ITEM} for rows): kept on
 * each node the each's content made at its level, so that a fault found while preparing it (a
 * barcode that cannot be encoded, an image that cannot be decoded) names the item too.
 */
export const EACH_ITEM: unique symbol = Symbol('eachItem');

/** See {@link ROW_ITEM}. */
export interface RowItem {
  readonly array: readonly PathSegment[] | null;
  readonly index: number;
}

/** A bound table row with what binding keeps on it (see {@link ROW_ITEM}). */
export type KeptRow = readonly BoundNode[] & { readonly [TEMPLATE_PATH]?: string; readonly [ROW_ITEM]?: RowItem };

/** `row` as a new array made from `from`, keeping its template path and data item (expandToc). */
export function keepRowSource(from: readonly BoundNode[], row: BoundNode[]): BoundNode[] {
  const f = from as KeptRow;
  const out = row as BoundNode[] & { [TEMPLATE_PATH]?: string; [ROW_ITEM]?: RowItem };
  if (f[TEMPLATE_PATH] !== undefined) out[TEMPLATE_PATH] = f[TEMPLATE_PATH];
  if (f[ROW_ITEM] !== undefined) out[ROW_ITEM] = f[ROW_ITEM];
  return out;
}

function countNode(ctx: Ctx, path: string): void {
  if (++ctx.count > ctx.maxNodes) {
    throw new RenderError('LIMIT_EXCEEDED', `the bound document has more than ${ctx.maxNodes} nodes`, path);
  }
}

function checkDepth(ctx: Ctx, depth: number, path: string): void {
  if (depth > ctx.maxDepth) {
    throw new RenderError('LIMIT_EXCEEDED', `nodes are nested deeper than ${ctx.maxDepth} levels`, path);
  }
}

function refuseKey(key: string, path: string): never {
  throw new RenderError('TEMPLATE_INVALID', `the key "${key}" is not allowed`, path);
}

// ---------------------------------------------------------------------------------------------
// Colours and style objects

function bindColor(out: Obj, key: string, value: unknown, scope: Scope, ctx: Ctx, path: string): void {
  if (typeof value !== 'string' || !hasPlaceholder(value)) {
    out[key] = value;
    return;
  }
  const s = bindColorText(value, scope, ctx.locale, path + '.' + key, ctx.missing);
  if (s !== '') out[key] = s;
}

function bindBorderSide(side: unknown, scope: Scope, ctx: Ctx, path: string): unknown {
  if (side === null || typeof side !== 'object') return side;
  const s = side as Obj;
  if (typeof s.color !== 'string' || !hasPlaceholder(s.color)) return side;
  const out: Obj = {};
  for (const key of Object.keys(s)) {
    if (key === 'color') bindColor(out, key, s[key], scope, ctx, path);
    else out[key] = s[key];
  }
  return out;
}

function bindBorder(border: unknown, scope: Scope, ctx: Ctx, path: string): unknown {
  if (border === null || typeof border !== 'object') return border;
  const b = border as Obj;
  if (hasOwn(b, 'width') || hasOwn(b, 'color')) return bindBorderSide(b, scope, ctx, path);
  let out: Obj | null = null;
  for (const key of Object.keys(b)) {
    const side = bindBorderSide(b[key], scope, ctx, path + '.' + key);
    if (side !== b[key] && out === null) {
      out = {};
      for (const k of Object.keys(b)) out[k] = b[k];
    }
    if (out !== null) out[key] = side;
  }
  return out ?? border;
}

/** Copies one style property into `out`, binding colours. */
function copyStyleProp(out: Obj, key: string, value: unknown, scope: Scope, ctx: Ctx, path: string): void {
  switch (key) {
    case 'color':
    case 'backgroundColor':
      bindColor(out, key, value, scope, ctx, path);
      return;
    case 'border':
      out.border = bindBorder(value, scope, ctx, path + '.border');
      return;
    case '__proto__':
    case 'constructor':
    case 'prototype':
      return refuseKey(key, path);
    default:
      out[key] = value;
  }
}

function bindStyleObject(style: unknown, scope: Scope, ctx: Ctx, path: string): unknown {
  if (style === null || typeof style !== 'object') return style;
  const s = style as Obj;
  const out: Obj = {};
  for (const key of Object.keys(s)) copyStyleProp(out, key, s[key], scope, ctx, path);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inline text

function bindInlines(list: readonly Inline[], scope: Scope, ctx: Ctx, path: string): BoundInline[] {
  const out: BoundInline[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const p = path + '[' + i + ']';
    if (typeof item === 'string') {
      out[i] = bindTextIn(item, scope, ctx.locale, ctx.missing, p);
      continue;
    }
    const span = item as unknown as Obj;
    out[i] = typeof span.lang === 'string' ? inLanguage(span, ctx, () => bindSpan(span, scope, ctx, p)) : bindSpan(span, scope, ctx, p);
  }
  return out;
}

function bindSpan(span: Obj, scope: Scope, ctx: Ctx, path: string): BoundInline {
  const o: Obj = {};
  for (const key of Object.keys(span)) {
    const v = span[key];
    if (key === 'text') o.text = bindTextValue(v, scope, ctx, path + '.text');
    else if (key === 'link') bindLink(o, v, scope, ctx, path + '.link');
    else copyStyleProp(o, key, v, scope, ctx, path);
  }
  return o as unknown as BoundInline;
}

function bindTextValue(v: unknown, scope: Scope, ctx: Ctx, path: string): string | BoundInline[] {
  if (typeof v === 'string') return bindTextIn(v, scope, ctx.locale, ctx.missing, path);
  if (Array.isArray(v)) return bindInlines(v as Inline[], scope, ctx, path);
  return '';
}

function bindLink(out: Obj, v: unknown, scope: Scope, ctx: Ctx, path: string): void {
  if (typeof v !== 'string') return;
  const bound = bindTextIn(v, scope, ctx.locale, ctx.missing, path);
  // Trimming text joined from several placeholders copies it: count it as filters' output.
  scope.scan?.spend(bound.length, path);
  const link = bound.trim();
  if (link !== '') out.link = link;
}

// ---------------------------------------------------------------------------------------------
// Nodes

const EACH_KEYS: ReadonlySet<string> = new Set(['each', 'as', 'content']);
const IF_KEYS: ReadonlySet<string> = new Set(['if', 'then', 'else']);

/** True when an each/if node carries style properties (then its output is wrapped in a stack). */
function hasStyleProps(n: Obj, own: ReadonlySet<string>): boolean {
  for (const key of Object.keys(n)) if (!own.has(key)) return true;
  return false;
}

function wrapper(n: Obj, own: ReadonlySet<string>, children: BoundNode[] | null, scope: Scope, ctx: Ctx, path: string): BoundNode {
  countNode(ctx, path);
  const out: Obj = { [TEMPLATE_PATH]: path };
  if (children === null) out.text = '';
  else out.stack = children;
  for (const key of Object.keys(n)) if (!own.has(key)) copyStyleProp(out, key, n[key], scope, ctx, path);
  return out as unknown as BoundNode;
}


function aliasOf(n: Obj): string {
  return typeof n.as === 'string' ? n.as : 'item';
}

/** Binds `each`'s content into `out`. */
function expandEach(n: Obj, scope: Scope, ctx: Ctx, path: string, depth: number, out: BoundNode[]): void {
  const each = eachItems(n.each as string, scope, path, ctx.missing);
  if (each === null) return;
  const { items, arrayPath } = each;
  const alias = aliasOf(n);
  const content = (n.content ?? []) as Node[];
  const contentPath = path + '.content';
  for (let i = 0; i < items.length; i++) {
    const first = out.length;
    bindList(content, enterLoop(scope, alias, items[i], i, arrayPath), ctx, contentPath, depth + 1, out);
    // A pass that made nothing still counts: else an each with no content loops unbounded (nested, n^2).
    if (out.length === first) countNode(ctx, contentPath);
    // A node an inner each made keeps its own (nearer) item.
    const item: RowItem = { array: arrayPath, index: i };
    for (let k = first; k < out.length; k++) {
      const node = out[k] as { [EACH_ITEM]?: RowItem };
      if (node[EACH_ITEM] === undefined) node[EACH_ITEM] = item;
    }
  }
}

/** Binds `if`'s then/else into `out`. */
function expandIf(n: Obj, scope: Scope, ctx: Ctx, path: string, depth: number, out: BoundNode[]): void {
  const yes = evaluateCondition(n.if as Condition, scope, ctx.locale, path + '.if');
  const branch = (yes ? n.then : n.else) as Node[] | undefined;
  if (branch !== undefined) bindList(branch, scope, ctx, path + (yes ? '.then' : '.else'), depth + 1, out);
}

/**
 * Runs `fn` with the filters' locale of a node's `lang` (when it has one): numbers, currencies and
 * dates inside a node in another language are written its way.
 */
function inLanguage<T>(n: Obj, ctx: Ctx, fn: () => T): T {
  const previous = ctx.locale;
  ctx.locale = resolveLocale(n.lang as string);
  try {
    return fn();
  } finally {
    ctx.locale = previous;
  }
}

/** Binds one template node into `out` (each/if may add zero or many nodes). */
function bindInto(node: Node, scope: Scope, ctx: Ctx, path: string, depth: number, out: BoundNode[]): void {
  checkDepth(ctx, depth, path);
  const n = node as unknown as Obj;
  if (typeof n.lang === 'string' && ctx.locale !== resolveLocale(n.lang)) return inLanguage(n, ctx, () => bindLocal(n, scope, ctx, path, depth, out));
  bindLocal(n, scope, ctx, path, depth, out);
}

function bindLocal(n: Obj, scope: Scope, ctx: Ctx, path: string, depth: number, out: BoundNode[]): void {
  if (hasOwn(n, 'each')) {
    if (!hasStyleProps(n, EACH_KEYS)) return expandEach(n, scope, ctx, path, depth, out);
    const children: BoundNode[] = [];
    expandEach(n, scope, ctx, path, depth, children);
    if (children.length > 0) out.push(wrapper(n, EACH_KEYS, children, scope, ctx, path));
    return;
  }
  if (hasOwn(n, 'if')) {
    if (!hasStyleProps(n, IF_KEYS)) return expandIf(n, scope, ctx, path, depth, out);
    const children: BoundNode[] = [];
    expandIf(n, scope, ctx, path, depth, children);
    if (children.length > 0) out.push(wrapper(n, IF_KEYS, children, scope, ctx, path));
    return;
  }
  out.push(bindNode(n, scope, ctx, path, depth));
}

function bindList(nodes: readonly Node[], scope: Scope, ctx: Ctx, path: string, depth: number, out: BoundNode[]): void {
  for (let i = 0; i < nodes.length; i++) bindInto(nodes[i], scope, ctx, path + '[' + i + ']', depth, out);
}

function bindChildren(nodes: unknown, scope: Scope, ctx: Ctx, path: string, depth: number): BoundNode[] {
  const out: BoundNode[] = [];
  if (Array.isArray(nodes)) bindList(nodes as Node[], scope, ctx, path, depth, out);
  return out;
}

/** Binds a node that is not each/if. */
function bindNode(n: Obj, scope: Scope, ctx: Ctx, path: string, depth: number): BoundNode {
  countNode(ctx, path);
  const out: Obj = { [TEMPLATE_PATH]: path };
  for (const key of Object.keys(n)) {
    const v = n[key];
    switch (key) {
      case 'text':
        out.text = bindTextValue(v, scope, ctx, path + '.text');
        break;
      case 'link':
        bindLink(out, v, scope, ctx, path + '.link');
        break;
      case 'image':
        out.image = typeof v === 'string' ? bindImageSource(v, scope, ctx.locale, path + '.image', ctx.missing) : v;
        break;
      case 'qrcode':
      case 'barcode':
      case 'alt':
        out[key] = typeof v === 'string' ? bindTextIn(v, scope, ctx.locale, ctx.missing, path + '.' + key) : v;
        break;
      case 'table':
        out.table = bindTable(v as Obj, scope, ctx, path + '.table', depth + 1);
        break;
      case 'columns':
        out.columns = bindColumns(v, scope, ctx, path + '.columns', depth + 1);
        break;
      case 'stack':
        out.stack = bindChildren(v, scope, ctx, path + '.stack', depth + 1);
        break;
      case 'list':
        out.list = bindListItems(v, scope, ctx, path + '.list', depth + 1);
        break;
      case 'line':
        out.line = bindStyleObject(v, scope, ctx, path + '.line');
        break;
      default:
        copyStyleProp(out, key, v, scope, ctx, path);
    }
  }
  return out as unknown as BoundNode;
}

function bindColumns(v: unknown, scope: Scope, ctx: Ctx, path: string, depth: number): unknown {
  if (!Array.isArray(v)) return [];
  const out = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const col = v[i] as Obj;
    const o: Obj = {};
    if (col.width !== undefined) o.width = col.width;
    o.content = bindChildren(col.content, scope, ctx, path + '[' + i + '].content', depth);
    out[i] = o;
  }
  return out;
}

function bindListItems(v: unknown, scope: Scope, ctx: Ctx, path: string, depth: number): BoundNode[] {
  const out: BoundNode[] = [];
  if (!Array.isArray(v)) return out;
  for (let i = 0; i < v.length; i++) {
    const item = v[i];
    const p = path + '[' + i + ']';
    if (typeof item === 'string') {
      countNode(ctx, p);
      out.push({ text: bindTextIn(item, scope, ctx.locale, ctx.missing, p), [TEMPLATE_PATH]: p } as BoundNode);
    } else {
      bindInto(item as Node, scope, ctx, p, depth, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tables

/**
 * The bound form of a literal `""` cell, shared: it may be a placeholder under a span
 * (template/table-grid.ts), which layout tells by identity. A `{}` cell binds to a new `{}`.
 */
export const EMPTY_STRING_CELL: BoundNode = Object.freeze({ text: '' });

function bindCell(cell: TableCell, scope: Scope, ctx: Ctx, path: string, depth: number): BoundNode {
  if (typeof cell === 'string') {
    countNode(ctx, path);
    return cell === '' ? EMPTY_STRING_CELL : ({ text: bindTextIn(cell, scope, ctx.locale, ctx.missing, path), [TEMPLATE_PATH]: path } as BoundNode);
  }
  const n = cell as unknown as Obj;
  if (typeof n.lang === 'string' && ctx.locale !== resolveLocale(n.lang)) return inLanguage(n, ctx, () => bindCellLocal(n, scope, ctx, path, depth));
  return bindCellLocal(n, scope, ctx, path, depth);
}

function bindCellLocal(n: Obj, scope: Scope, ctx: Ctx, path: string, depth: number): BoundNode {
  const isEach = hasOwn(n, 'each');
  if (!isEach && !hasOwn(n, 'if')) {
    checkDepth(ctx, depth, path);
    return bindNode(n, scope, ctx, path, depth);
  }
  const own = isEach ? EACH_KEYS : IF_KEYS;
  const produced: BoundNode[] = [];
  if (isEach) expandEach(n, scope, ctx, path, depth, produced);
  else expandIf(n, scope, ctx, path, depth, produced);
  const styled = hasStyleProps(n, own);
  if (produced.length === 1 && !styled) return produced[0];
  return wrapper(n, own, produced.length === 0 ? null : produced, scope, ctx, path);
}

/** Binds a row's cells; the bound row keeps its template path (TEMPLATE_PATH), and `item` when given. */
function bindRow(row: TableRow, scope: Scope, ctx: Ctx, path: string, depth: number, item?: RowItem): BoundNode[] {
  // An empty row counts as a node: nothing else bounds how many of them an each makes.
  if (row.length === 0) countNode(ctx, path);
  const out = new Array(row.length) as BoundNode[] & { [TEMPLATE_PATH]?: string; [ROW_ITEM]?: RowItem };
  for (let j = 0; j < row.length; j++) out[j] = bindCell(row[j], scope, ctx, path + '[' + j + ']', depth);
  out[TEMPLATE_PATH] = path;
  if (item !== undefined) out[ROW_ITEM] = item;
  return out;
}

function bindFixedRows(rows: unknown, scope: Scope, ctx: Ctx, path: string, depth: number): BoundNode[][] {
  const out: BoundNode[][] = [];
  if (!Array.isArray(rows)) return out;
  for (let i = 0; i < rows.length; i++) out.push(bindRow(rows[i] as TableRow, scope, ctx, path + '[' + i + ']', depth));
  return out;
}

function bindRowTemplates(
  templates: readonly TableRowTemplate[],
  scope: Scope,
  ctx: Ctx,
  path: string,
  depth: number,
  out: BoundNode[][],
): void {
  checkDepth(ctx, depth, path);
  for (let i = 0; i < templates.length; i++) {
    const t = templates[i];
    const p = path + '[' + i + ']';
    if (Array.isArray(t)) {
      out.push(bindRow(t, scope, ctx, p, depth));
      continue;
    }
    const n = t as unknown as Obj;
    if (hasOwn(n, 'each')) {
      const each = eachItems(n.each as string, scope, p, ctx.missing);
      if (each === null) continue;
      const { items, arrayPath } = each;
      const alias = aliasOf(n);
      const row = n.row as TableRow;
      const rowPath = p + '.row';
      for (let k = 0; k < items.length; k++) out.push(bindRow(row, enterLoop(scope, alias, items[k], k, arrayPath), ctx, rowPath, depth, { array: arrayPath, index: k }));
    } else if (hasOwn(n, 'if')) {
      const yes = evaluateCondition(n.if as Condition, scope, ctx.locale, p + '.if');
      const branch = (yes ? n.then : n.else) as TableRowTemplate[] | undefined;
      if (branch !== undefined) bindRowTemplates(branch, scope, ctx, p + (yes ? '.then' : '.else'), depth + 1, out);
    } else {
      throw new RenderError('TEMPLATE_INVALID', 'a table row is an array of cells, {each, as, row} or {if, then, else}', p);
    }
  }
}

function bindTable(spec: Obj, scope: Scope, ctx: Ctx, path: string, depth: number): Obj {
  const out: Obj = {};
  for (const key of Object.keys(spec)) {
    const v = spec[key];
    switch (key) {
      case 'header':
      case 'footer':
        out[key] = bindFixedRows(v, scope, ctx, path + '.' + key, depth);
        break;
      case 'rows': {
        const rows: BoundNode[][] = [];
        if (Array.isArray(v)) bindRowTemplates(v as TableRowTemplate[], scope, ctx, path + '.rows', depth, rows);
        out.rows = rows;
        break;
      }
      case 'stripe':
      case 'borderColor':
        bindColor(out, key, v, scope, ctx, path);
        break;
      case 'headerStyle':
      case 'footerStyle':
        out[key] = bindStyleObject(v, scope, ctx, path + '.' + key);
        break;
      default:
        if (isDangerousKey(key)) refuseKey(key, path);
        out[key] = v;
    }
  }
  if (out.rows === undefined) out.rows = [];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Binds template nodes to data (rules in the module comment; DESIGN §5). `nodes` must have passed
 * `parseTemplate`. Returns new bound nodes, each/if expanded, every string final.
 * Throws RenderError: 'DATA_INVALID' (each over a non-array, a colour placeholder that binds to a
 * non-colour, an image source placeholder that is not text), 'LIMIT_EXCEEDED' (more than `maxNodes` nodes), 'TEMPLATE_INVALID' (malformed
 * placeholders or paths, only possible for unvalidated input). DATA_INVALID's path is the
 * value's place in the data (`data.items`); the other errors' paths are template paths rooted at
 * `opts.path` (default "content").
 */
export function bindNodes(nodes: readonly Node[], data: unknown, opts: BindNodesOptions): BoundNode[] {
  const ctx: Ctx = {
    locale: resolveLocale(opts.language),
    missing: opts.missing ?? null,
    maxNodes: opts.maxNodes ?? DEFAULT_LIMITS.maxNodes,
    maxDepth: opts.maxDepth ?? DEFAULT_LIMITS.maxDepth,
    count: 0,
  };
  const out: BoundNode[] = [];
  const scan = new DataScanBudget(opts.maxDataScan ?? DEFAULT_LIMITS.maxDataScan);
  bindList(nodes, createScope(data, { now: opts.now, page: opts.page, scan, unformatted: opts.unformatted }), ctx, opts.path ?? 'content', 1, out);
  return out;
}

/**
 * Binds one string to text in a scope (see {@link createScope}, {@link enterLoop}) with the
 * filters' locale from `opts.language` (default "en"). Missing values render as "".
 * Throws RenderError('TEMPLATE_INVALID') on placeholder syntax errors. DESIGN §5.
 */
export function bindString(s: string, scope: Scope, opts: Pick<BindOptions, 'language'> = {}): string {
  return bindTextIn(s, scope, resolveLocale(opts.language));
}

/**
 * Binds one string keeping the value's type when it is exactly one placeholder (`"{{qty}}"` ->
 * 3, missing -> undefined); other strings bind to text like {@link bindString}. DESIGN §5.
 */
export function bindValue(s: string, scope: Scope, opts: Pick<BindOptions, 'language'> = {}): unknown {
  return bindValueIn(s, scope, resolveLocale(opts.language));
}

/**
 * Binds the document metadata: every field's placeholders substituted (DESIGN §5 root
 * `metadata`). `language` is bound first and, when not empty, is the locale of the other fields'
 * filters (else `opts.language`, else "en"); an empty bound field is dropped; placeholders the data
 * lacks are told to `opts.missing`. Returns a new object.
 */
export function bindMetadata(meta: Metadata | undefined, data: unknown, opts: BindOptions & { missing?: MissingReporter; unformatted?: UnformattedReporter; maxDataScan?: number }): Metadata {
  const out: Metadata = {};
  if (meta === undefined) return out;
  const scope = createScope(data, { now: opts.now, page: opts.page, scan: new DataScanBudget(opts.maxDataScan ?? DEFAULT_LIMITS.maxDataScan), unformatted: opts.unformatted });
  const missing = opts.missing ?? null;
  let locale = resolveLocale(opts.language);
  if (typeof meta.language === 'string') {
    const language = bindTextIn(meta.language, scope, locale, missing, 'metadata.language').trim();
    if (language !== '') {
      out.language = language;
      locale = resolveLocale(language);
    }
  }
  for (const key of ['title', 'author', 'subject', 'keywords'] as const) {
    const v = meta[key];
    if (typeof v !== 'string') continue;
    const s = bindTextIn(v, scope, locale, missing, `metadata.${key}`);
    if (s !== '') out[key] = s;
  }
  return out;
}

/** Re-exported for callers that bind strings themselves. */
export { createScope, enterLoop } from './path.ts';
export type { Scope, LoopFrame } from './path.ts';
