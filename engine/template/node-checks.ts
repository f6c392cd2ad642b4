/**
 * Checks of a template that need more than one node at a time, run when it is validated (after
 * the schema passed), so that nothing a template says is silently ignored:
 * - a literal `id` may name one node only: a second node with the same id is a fault at its path
 *   (nodes in the `then` and `else` of one `if` never render together and may share one);
 * - `top`, `right`, `bottom`, `left` and `relativeTo` place a node only with
 *   `"position": "absolute"` (its own or from its named styles): given without it they would do
 *   nothing, so they are a fault at their path;
 * - a QR code is square: `size`, or `width`/`height` (the smaller is its size), not both;
 * - `colSpan`, `rowSpan` and `verticalAlign` (written on the node) apply to table cells only, and
 *   `minFontSize` only with `"fit": "shrink"`;
 * - a table's `headerStyle` and `footerStyle` give their cells what cells inherit (text
 *   properties) and a background: a box property written there (padding, border, width, ...)
 *   would do nothing, so it is a fault at its path.
 */
import type { TemplateIssue } from './types.ts';

type Obj = Record<string, unknown>;

const KIND_KEYS = ['text', 'image', 'table', 'columns', 'stack', 'list', 'qrcode', 'barcode', 'line', 'spacer', 'pageBreak', 'toc', 'each', 'if'];
const OFFSET_KEYS = ['top', 'right', 'bottom', 'left', 'relativeTo'] as const;
const CELL_KEYS = ['colSpan', 'rowSpan', 'verticalAlign'];
/** What a table's headerStyle/footerStyle may set: the properties cells inherit, a background, named styles. */
const SECTION_STYLE_KEYS = new Set([
  'style', 'fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'color', 'backgroundColor', 'textAlign', 'lineHeight',
  'textDecoration', 'direction', 'letterSpacing', 'fontFeatures', 'hyphenate', 'lang', 'widows', 'orphans',
]);

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A node of the content tree (not a table spec, a border, a margin, ...). */
const isNode = (o: Obj): boolean => KIND_KEYS.some((k) => Object.hasOwn(o, k)) && !Object.hasOwn(o, 'rows');

/**
 * Faults of `def` (a definition that passed the schema: plain JSON, bounded depth): duplicate
 * literal ids (at the later node's `id`) and offsets without absolute position, in document order.
 */
export function nodeIssues(def: Obj): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const styles = isObj(def.styles) ? def.styles : {};
  const seen = new Map<string, string>();
  const cells = new Set<object>();
  for (const key of ['background', 'header', 'content', 'footer']) {
    if (def[key] !== undefined) merge(seen, walk(def[key], key, styles, issues, cells), issues);
  }
  return issues;
}

/** Adds the node cells of table spec `spec` (rows as arrays, `each` rows and `if` rows) to `cells`. */
function collectCells(spec: Obj, cells: Set<object>): void {
  const rows = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const r of list) {
      if (Array.isArray(r)) for (const c of r) if (isObj(c)) cells.add(c);
      if (!isObj(r)) continue;
      if (Array.isArray(r.row)) for (const c of r.row) if (isObj(c)) cells.add(c);
      rows(r.then);
      rows(r.else);
    }
  };
  rows(spec.header);
  rows(spec.rows);
  rows(spec.footer);
}

/** Adds the ids of `more` to `into`, a fault for each one `into` already has. */
function merge(into: Map<string, string>, more: Map<string, string>, issues: TemplateIssue[]): void {
  for (const [id, path] of more) {
    const first = into.get(id);
    if (first === undefined) into.set(id, path);
    else issues.push({ path, message: `the id ${JSON.stringify(id)} is already the id of ${first.replace(/\.id$/, '')}; ids must be unique in a template` });
  }
}

/** The ids under `value` (id -> path of the `id`), reporting duplicates inside it. */
function walk(value: unknown, path: string, styles: Obj, issues: TemplateIssue[], cells: Set<object>): Map<string, string> {
  const ids = new Map<string, string>();
  if (Array.isArray(value)) {
    value.forEach((v, i) => merge(ids, walk(v, `${path}[${i}]`, styles, issues, cells), issues));
    return ids;
  }
  if (!isObj(value)) return ids;
  if (Object.hasOwn(value, 'rows')) {
    collectCells(value, cells);
    sectionStyleIssues(value, path, issues);
  }
  if (isNode(value)) {
    if (typeof value.id === 'string') ids.set(value.id, `${path}.id`);
    if (!cells.has(value)) {
      const k = CELL_KEYS.find((key) => value[key] !== undefined);
      if (k) issues.push({ path: `${path}.${k}`, message: `"${k}" applies only to a cell of a table, which this node is not` });
    }
    if (value.minFontSize !== undefined && value.fit !== 'shrink') {
      issues.push({ path: `${path}.minFontSize`, message: `"minFontSize" applies only with "fit": "shrink", which this node does not have` });
    }
    offsetIssues(value, path, styles, issues);
    if (Object.hasOwn(value, 'qrcode') && value.size !== undefined) {
      const k = value.width !== undefined ? 'width' : value.height !== undefined ? 'height' : null;
      if (k) issues.push({ path: `${path}.${k}`, message: `a QR code is square: give its "size", or "width" and "height" (it takes the smaller), not both` });
    }
  }
  const exclusive = Object.hasOwn(value, 'if') && (Object.hasOwn(value, 'then') || Object.hasOwn(value, 'else'));
  for (const [k, v] of Object.entries(value)) {
    if (v === null || typeof v !== 'object') continue;
    if (exclusive && k === 'else') continue; // merged with `then` below
    if (exclusive && k === 'then') {
      const both = walk(v, `${path}.then`, styles, issues, cells);
      for (const [id, p] of walk(value.else, `${path}.else`, styles, issues, cells)) if (!both.has(id)) both.set(id, p);
      merge(ids, both, issues);
      continue;
    }
    merge(ids, walk(v, `${path}.${k}`, styles, issues, cells), issues);
  }
  if (exclusive && !Object.hasOwn(value, 'then')) merge(ids, walk(value.else, `${path}.else`, styles, issues, cells), issues);
  return ids;
}

/** Faults for properties of table spec `spec`'s headerStyle/footerStyle that its cells would not get. */
function sectionStyleIssues(spec: Obj, path: string, issues: TemplateIssue[]): void {
  for (const key of ['headerStyle', 'footerStyle']) {
    const style = spec[key];
    if (!isObj(style)) continue;
    for (const k of Object.keys(style)) {
      if (SECTION_STYLE_KEYS.has(k)) continue;
      const cells = key === 'headerStyle' ? 'header' : 'footer';
      issues.push({ path: `${path}.${key}.${k}`, message: `"${k}" does nothing in ${key}: ${cells} cells inherit its text properties and backgroundColor only; set "${k}" on the cells (or a named style they use)` });
    }
  }
}

/** A fault for offsets of node `o` that its position (own or from its styles) makes do nothing. */
function offsetIssues(o: Obj, path: string, styles: Obj, issues: TemplateIssue[]): void {
  const names = typeof o.style === 'string' ? [o.style] : Array.isArray(o.style) ? o.style.filter((n): n is string => typeof n === 'string') : [];
  const from: Record<string, string> = {};
  let position: unknown;
  for (const name of names) {
    const s = styles[name];
    if (!isObj(s)) continue;
    if (s.position !== undefined) position = s.position;
    for (const k of OFFSET_KEYS) if (s[k] !== undefined) from[k] = `${path}.style`;
  }
  if (o.position !== undefined) position = o.position;
  for (const k of OFFSET_KEYS) if (o[k] !== undefined) from[k] = `${path}.${k}`;
  if (position === 'absolute') return;
  for (const k of OFFSET_KEYS) {
    const at = from[k];
    if (at === undefined) continue;
    const whence = at.endsWith('.style') ? ` (from its style)` : '';
    issues.push({ path: at, message: `"${k}"${whence} places a node only with "position": "absolute", which this node does not have: add "position": "absolute" or remove "${k}"` });
    return; // one fault per node is enough
  }
}
