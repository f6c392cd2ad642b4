/**
 * Checks data against a validated template without laying anything out (DESIGN §5): how deep the
 * data nests, every fault binding would meet (data-faults.ts: an `each` over something that is
 * not an array, a colour placeholder that binds to something that is not a colour, an image
 * source placeholder whose value is not text) and, for a
 * template with `"strict": true`, every data path its placeholders and `each` read that the data
 * does not have (missing.ts: what a render would report as DATA_MISSING warnings). The walk
 * follows binding's rules (bind.ts): `each` is expanded per item, `if` takes the branch its
 * condition picks, and only the strings that can fail are bound. Header, footer and background
 * are walked without `$page`/`$pages` (a fault only on some pages is found when rendering).
 *
 * Cost: one pass over the data for its depth, and one over the template per item of its loops,
 * stopped after `maxNodes` nodes (binding itself stops there with LIMIT_EXCEEDED), after
 * `maxDataScan` characters gone through by filters and comparisons (data-scan.ts; binding stops
 * there too) or {@link MAX_FAULTS} faults.
 */
import { DEFAULT_LIMITS, RenderError, type ErrorDetail } from '../errors.ts';
import { bindMetadata } from './bind.ts';
import { evaluateCondition } from './conditions.ts';
import { bindColorText, bindImageSource, eachItems } from './data-faults.ts';
import { DataScanBudget } from './data-scan.ts';
import { missingPlace, type MissingReporter } from './missing.ts';
import { createScope, enterLoop, type Scope } from './path.ts';
import { resolveLocale } from './filters.ts';
import { hasPlaceholder } from './placeholders.ts';
import type { Condition, Node, Template } from './types.ts';
import { bindTextIn } from './value.ts';

/** Faults reported at most. */
export const MAX_FAULTS = 100;

/** Options of {@link dataFaults}. */
export interface DataCheckOptions {
  /** Deepest nesting of the data (objects and arrays; the root object is 1). */
  readonly maxDataDepth: number;
  /** Template nodes visited at most (each item counts its content again, and itself). */
  readonly maxNodes: number;
  /**
   * Characters filters and comparisons may go through (data-scan.ts); past them the check stops
   * looking, as past `maxNodes`, and the render finds the rest. Default DEFAULT_LIMITS.maxDataScan.
   */
  readonly maxDataScan?: number;
  /** `$now`. */
  readonly now: Date;
}

/**
 * The nesting depth of `data`, counting objects and arrays (a primitive is 0, `{}` is 1), or
 * `limit + 1` as soon as it is known to be deeper than `limit`. Iterative; stops on cycles at the limit.
 */
export function dataDepth(data: unknown, limit: number): number {
  if (data === null || typeof data !== 'object') return 0;
  const values: unknown[] = [data];
  const depths: number[] = [1];
  let deepest = 1;
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return limit + 1;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) {
      if (c !== null && typeof c === 'object') {
        values.push(c);
        depths.push(depth + 1);
      }
    }
  }
  return deepest;
}

/** The fault of data nested deeper than `maxDataDepth` (path `data`), or null: found without the template. */
export function dataDepthFault(data: unknown, maxDataDepth: number): ErrorDetail | null {
  if (dataDepth(data, maxDataDepth) <= maxDataDepth) return null;
  return { path: 'data', message: `the data is nested deeper than ${maxDataDepth} levels (objects and arrays)` };
}

type Obj = Record<string, unknown>;

interface Walk {
  readonly locale: string;
  readonly maxNodes: number;
  visited: number;
  readonly faults: ErrorDetail[];
  readonly seen: Set<string>;
  /** Set for a strict template: records each missing read as a fault. */
  readonly missing: MissingReporter | null;
}

/** Stops the walk once it has seen enough. */
class WalkDone extends Error {}

function record(w: Walk, e: unknown): void {
  if (!(e instanceof RenderError) || e.code !== 'DATA_INVALID') throw e;
  add(w, e.path ?? 'data', messageOf(e));
}

function add(w: Walk, path: string, message: string): void {
  const key = `${path}\u0000${message}`;
  if (w.seen.has(key)) return;
  w.seen.add(key);
  w.faults.push({ path, message });
  if (w.faults.length >= MAX_FAULTS) throw new WalkDone();
}

/** A strict template's reporter: one fault per missing data path (the first place that reads it). */
function strictMissing(walk: () => Walk): MissingReporter {
  const reported = new Set<string>();
  return (path, scope, templatePath, each) => {
    const place = missingPlace(path, scope);
    const at = place.startsWith('data') ? place : `data.${place}`;
    if (reported.has(at)) return;
    reported.add(at);
    const what = each ? `the each at ${templatePath} needs an array` : `${templatePath} reads it ("{{${path.text}}}")`;
    add(walk(), at, `missing: the template is strict and ${what}, but the data has no value there`);
  };
}

/** A strict template's strings: every placeholder in them must find its value. */
function checkString(value: unknown, scope: Scope, w: Walk, path: string): void {
  if (w.missing && typeof value === 'string' && hasPlaceholder(value)) bindTextIn(value, scope, w.locale, w.missing, path);
}

/** Text of a node or span: a string or inline pieces (strings and spans, nested). */
function checkText(text: unknown, scope: Scope, w: Walk, path: string): void {
  if (!w.missing) return;
  if (typeof text === 'string') return checkString(text, scope, w, path);
  if (!Array.isArray(text)) return;
  text.forEach((piece, i) => {
    if (typeof piece === 'string') return checkString(piece, scope, w, `${path}[${i}]`);
    if (piece === null || typeof piece !== 'object') return;
    checkText((piece as Obj).text, scope, w, `${path}[${i}].text`);
    checkString((piece as Obj).link, scope, w, `${path}[${i}].link`);
  });
}

/** The message without the `path: ` prefix RenderError puts in front. */
function messageOf(e: RenderError): string {
  const prefix = e.path ? `${e.path}: ` : '';
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

function visit(w: Walk): void {
  if (++w.visited > w.maxNodes) throw new WalkDone();
}

const COLOR_KEYS = ['color', 'backgroundColor'] as const;

/** The colours of a node or style object: color, backgroundColor, border (all sides or each). */
function checkColors(n: Obj, scope: Scope, w: Walk, path: string): void {
  for (const key of COLOR_KEYS) checkColor(n[key], scope, w, `${path}.${key}`);
  const border = n.border;
  if (border === null || typeof border !== 'object') return;
  const b = border as Obj;
  if (Object.hasOwn(b, 'width') || Object.hasOwn(b, 'color')) return checkColor(b.color, scope, w, `${path}.border.color`);
  for (const side of ['top', 'right', 'bottom', 'left']) {
    const s = b[side];
    if (s !== null && typeof s === 'object') checkColor((s as Obj).color, scope, w, `${path}.border.${side}.color`);
  }
}

function checkColor(value: unknown, scope: Scope, w: Walk, path: string): void {
  if (typeof value !== 'string' || !hasPlaceholder(value)) return;
  try {
    bindColorText(value, scope, w.locale, path, w.missing);
  } catch (e) {
    record(w, e);
  }
}

/** An image source with placeholders: each must bind to text (and, strict, find its value). */
function checkImage(value: unknown, scope: Scope, w: Walk, path: string): void {
  if (typeof value !== 'string' || !hasPlaceholder(value)) return;
  try {
    bindImageSource(value, scope, w.locale, path, w.missing);
  } catch (e) {
    record(w, e);
  }
}

/** Inline spans' colours, nested spans included. */
function checkSpans(text: unknown, scope: Scope, w: Walk, path: string): void {
  if (!Array.isArray(text)) return;
  text.forEach((span, i) => {
    if (span === null || typeof span !== 'object') return;
    checkColors(span as Obj, scope, w, `${path}[${i}]`);
    checkSpans((span as Obj).text, scope, w, `${path}[${i}].text`);
  });
}

/** Walks a list of nodes; returns how many nodes binding would produce from it. */
function walkList(nodes: unknown, scope: Scope, w: Walk, path: string): number {
  if (!Array.isArray(nodes)) return 0;
  let produced = 0;
  for (let i = 0; i < nodes.length; i++) produced += walkInto(nodes[i] as Obj, scope, w, `${path}[${i}]`, false);
  return produced;
}

const EACH_KEYS: ReadonlySet<string> = new Set(['each', 'as', 'content']);
const IF_KEYS: ReadonlySet<string> = new Set(['if', 'then', 'else']);

function styled(n: Obj, own: ReadonlySet<string>): boolean {
  for (const key of Object.keys(n)) if (!own.has(key)) return true;
  return false;
}

/**
 * Walks one node (or table cell: `cell` true); returns how many nodes binding produces from it
 * (each/if: their content's, plus a wrapping stack when they carry style properties).
 */
function walkInto(n: Obj, scope: Scope, w: Walk, path: string, cell: boolean): number {
  visit(w);
  if (Object.hasOwn(n, 'each') || Object.hasOwn(n, 'if')) {
    const own = Object.hasOwn(n, 'each') ? EACH_KEYS : IF_KEYS;
    let produced = 0;
    if (own === EACH_KEYS) {
      let each = null;
      try {
        each = eachItems(n.each as string, scope, path, w.missing);
      } catch (e) {
        record(w, e);
      }
      const alias = typeof n.as === 'string' ? n.as : 'item';
      // Every pass counts, whatever its content: an each with no content still loops (nested, n^2).
      if (each) {
        for (let i = 0; i < each.items.length; i++) {
          visit(w);
          produced += walkList(n.content, enterLoop(scope, alias, each.items[i], i, each.arrayPath), w, `${path}.content`);
        }
      }
    } else {
      const yes = evaluateCondition(n.if as Condition, scope, w.locale, `${path}.if`);
      produced = walkList(yes ? n.then : n.else, scope, w, `${path}${yes ? '.then' : '.else'}`);
    }
    // A wrapper stack carries the node's style properties (a cell always has one, unless it is one node).
    const wrapped = styled(n, own) && (produced > 0 || cell);
    if (wrapped) checkColors(n, scope, w, path);
    return wrapped ? 1 : produced;
  }
  checkColors(n, scope, w, path);
  checkSpans(n.text, scope, w, `${path}.text`);
  if (w.missing) {
    checkText(n.text, scope, w, `${path}.text`);
    for (const key of ['link', 'qrcode', 'barcode']) checkString(n[key], scope, w, `${path}.${key}`);
  }
  checkImage(n.image, scope, w, `${path}.image`);
  if (n.line !== null && typeof n.line === 'object') checkColor((n.line as Obj).color, scope, w, `${path}.line.color`);
  if (Array.isArray(n.stack)) walkList(n.stack, scope, w, `${path}.stack`);
  if (Array.isArray(n.columns)) n.columns.forEach((c, i) => walkList((c as Obj)?.content, scope, w, `${path}.columns[${i}].content`));
  if (Array.isArray(n.list)) {
    n.list.forEach((item, i) => {
      if (typeof item === 'string') checkString(item, scope, w, `${path}.list[${i}]`);
      else if (item !== null && typeof item === 'object') walkInto(item as Obj, scope, w, `${path}.list[${i}]`, false);
    });
  }
  if (n.table !== null && typeof n.table === 'object') walkTable(n.table as Obj, scope, w, `${path}.table`);
  return 1;
}

function walkRow(row: unknown, scope: Scope, w: Walk, path: string): void {
  if (!Array.isArray(row)) return;
  row.forEach((cell, j) => {
    if (cell !== null && typeof cell === 'object') walkInto(cell as Obj, scope, w, `${path}[${j}]`, true);
    else {
      visit(w);
      checkString(cell, scope, w, `${path}[${j}]`);
    }
  });
}

function walkRowTemplates(templates: unknown, scope: Scope, w: Walk, path: string): void {
  if (!Array.isArray(templates)) return;
  templates.forEach((t, i) => {
    const p = `${path}[${i}]`;
    if (Array.isArray(t)) return walkRow(t, scope, w, p);
    if (t === null || typeof t !== 'object') return;
    const n = t as Obj;
    if (Object.hasOwn(n, 'each')) {
      let each = null;
      try {
        each = eachItems(n.each as string, scope, p, w.missing);
      } catch (e) {
        record(w, e);
      }
      const alias = typeof n.as === 'string' ? n.as : 'item';
      if (each) {
        for (let k = 0; k < each.items.length; k++) {
          visit(w);
          walkRow(n.row, enterLoop(scope, alias, each.items[k], k, each.arrayPath), w, `${p}.row`);
        }
      }
    } else if (Object.hasOwn(n, 'if')) {
      const yes = evaluateCondition(n.if as Condition, scope, w.locale, `${p}.if`);
      walkRowTemplates(yes ? n.then : n.else, scope, w, `${p}${yes ? '.then' : '.else'}`);
    }
  });
}

function walkTable(spec: Obj, scope: Scope, w: Walk, path: string): void {
  checkColor(spec.stripe, scope, w, `${path}.stripe`);
  checkColor(spec.borderColor, scope, w, `${path}.borderColor`);
  for (const key of ['headerStyle', 'footerStyle']) {
    const s = spec[key];
    if (s !== null && typeof s === 'object') checkColors(s as Obj, scope, w, `${path}.${key}`);
  }
  for (const key of ['header', 'footer']) {
    const rows = spec[key];
    if (Array.isArray(rows)) rows.forEach((row, i) => walkRow(row, scope, w, `${path}.${key}[${i}]`));
  }
  walkRowTemplates(spec.rows, scope, w, `${path}.rows`);
}

/**
 * Every fault of `data` for `template` (see the module comment), each with its path in the data
 * (`data.items`, `data` for nesting too deep); [] when the data fits. Never throws for data; a
 * template must have passed validation.
 */
export function dataFaults(template: Template, data: unknown, opts: DataCheckOptions): ErrorDetail[] {
  const deep = dataDepthFault(data, opts.maxDataDepth);
  if (deep) return [deep];
  let current: Walk | null = null;
  const missing = template.strict ? strictMissing(() => current!) : null;
  const faults: ErrorDetail[] = [];
  const seen = new Set<string>();
  const maxDataScan = opts.maxDataScan ?? DEFAULT_LIMITS.maxDataScan;
  const scope = createScope(data ?? {}, { now: opts.now, scan: new DataScanBudget(maxDataScan) });
  try {
    // Filters in colours use the template's language, as when rendering.
    current = { locale: resolveLocale(template.metadata?.language), maxNodes: opts.maxNodes, visited: 0, faults, seen, missing };
    const language = bindMetadata(template.metadata, data ?? {}, { now: opts.now, language: template.metadata?.language, missing: missing ?? undefined, maxDataScan }).language;
    const w: Walk = (current = { ...current, locale: resolveLocale(language) });
    for (const key of ['content', 'header', 'footer', 'background'] as const) walkList(template[key] as Node[] | undefined, scope, w, key);
  } catch (e) {
    // Past the data-scan budget the check stops, as past maxNodes: the render fails on it.
    if (!(e instanceof WalkDone) && !(e instanceof RenderError && e.code === 'LIMIT_EXCEEDED')) throw e;
  }
  return faults;
}
