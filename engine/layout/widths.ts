/**
 * Widths: the intrinsic (min-content / max-content) width of prepared nodes, and how fixed, auto
 * and star column widths share the available width (tables and `columns`).
 */
import type { ColumnWidth } from '../template/types.ts';
import type { WarningSink } from '../warnings.ts';
import type { PCell, PNode } from './nodes.ts';
import { ZERO_SIDES, type ComputedStyle } from './style.ts';

/** Narrowest width without overflowing words, and the width wanted with no line breaks. Points. */
export interface Intrinsic {
  min: number;
  max: number;
}

const LIST_GAP_EM = 0.5;

/** Horizontal space that margin, border and padding take around a node's content. */
export function horizontalExtras(style: ComputedStyle): number {
  const b = style.border;
  return style.margin.left + style.margin.right + style.padding.left + style.padding.right + (b ? b.left.width + b.right.width : 0);
}

function maxOf(nodes: readonly PNode[]): Intrinsic {
  const r = { min: 0, max: 0 };
  for (const n of nodes) {
    const i = intrinsic(n);
    if (i.min > r.min) r.min = i.min;
    if (i.max > r.max) r.max = i.max;
  }
  return r;
}

/** Intrinsic width of a node, margins included. */
export function intrinsic(node: PNode): Intrinsic {
  const extra = horizontalExtras(node.style);
  let r: Intrinsic;
  switch (node.kind) {
    case 'text':
      r = { min: node.para.minContentWidth, max: node.para.maxContentWidth };
      break;
    case 'image': {
      const w = node.width ?? (node.height ? (node.height * node.image.width) / node.image.height : node.image.width);
      r = { min: w, max: w };
      break;
    }
    case 'code':
      r = { min: node.width, max: Math.max(node.width, node.caption?.maxContentWidth ?? 0) };
      break;
    case 'line':
      r = { min: node.length ?? 0, max: node.length ?? 0 };
      break;
    case 'spacer':
    case 'pageBreak':
      r = { min: 0, max: 0 };
      break;
    case 'stack':
      r = maxOf(node.children);
      break;
    case 'list': {
      let marker = 0;
      const content = { min: 0, max: 0 };
      for (const item of node.items) {
        if (item.marker) marker = Math.max(marker, item.marker.maxContentWidth);
        const c = maxOf(item.children);
        content.min = Math.max(content.min, c.min);
        content.max = Math.max(content.max, c.max);
      }
      const indent = listIndent(node.style, marker);
      r = { min: content.min + indent, max: content.max + indent };
      break;
    }
    case 'columns': {
      r = { min: node.gap * (node.columns.length - 1), max: node.gap * (node.columns.length - 1) };
      for (const c of node.columns) {
        const i = typeof c.width === 'number' ? { min: c.width, max: c.width } : maxOf(c.children);
        r.min += i.min;
        r.max += i.max;
      }
      break;
    }
    case 'table': {
      const cols = columnIntrinsics(node.columns, [node.header, node.body, node.footer]);
      r = { min: 0, max: 0 };
      node.columns.forEach((w, i) => {
        r.min += typeof w === 'number' ? w : cols[i].min;
        r.max += typeof w === 'number' ? w : cols[i].max;
      });
      break;
    }
  }
  return { min: r.min + extra, max: r.max + extra };
}

/** Indent of list item content: the widest marker plus half an em. */
export function listIndent(style: ComputedStyle, widestMarker: number): number {
  return Math.max(widestMarker, style.fontSize * 0.6) + style.fontSize * LIST_GAP_EM;
}

/**
 * Intrinsic widths per table column (padding included), as CSS tables have them: single-column
 * cells first; then each spanning cell whose widths exceed its columns' spreads the excess over
 * them (evenly over its columns that are not fixed, else over all).
 */
export function columnIntrinsics(specs: readonly ColumnWidth[], sections: readonly (readonly (readonly PCell[])[])[]): Intrinsic[] {
  const cols = Array.from({ length: specs.length }, () => ({ min: 0, max: 0 }));
  const spanning: { cell: PCell; i: Intrinsic }[] = [];
  for (const rows of sections) {
    for (const row of rows) {
      for (const cell of row) {
        // Most cells: bare text, whose widths the paragraph knows.
        const node = cell.node;
        const i = node.kind === 'text' && node.style.margin === ZERO_SIDES && node.style.padding === ZERO_SIDES && !node.style.border ? { min: node.para.minContentWidth, max: node.para.maxContentWidth } : intrinsic(node);
        const pad = cell.padding.left + cell.padding.right;
        if (cell.colSpan !== 1) {
          spanning.push({ cell, i: { min: i.min + pad, max: i.max + pad } });
          continue;
        }
        const c = cols[cell.col];
        if (i.min + pad > c.min) c.min = i.min + pad;
        if (i.max + pad > c.max) c.max = i.max + pad;
      }
    }
  }
  // Narrow spans first, as CSS does, so a wide span sees what the narrow ones asked for.
  spanning.sort((a, b) => a.cell.colSpan - b.cell.colSpan);
  for (const { cell, i } of spanning) {
    const end = Math.min(cell.col + cell.colSpan, cols.length);
    const free: number[] = [];
    let min = 0;
    let max = 0;
    for (let c = cell.col; c < end; c++) {
      min += typeof specs[c] === 'number' ? (specs[c] as number) : cols[c].min;
      max += typeof specs[c] === 'number' ? (specs[c] as number) : cols[c].max;
      if (typeof specs[c] !== 'number') free.push(c);
    }
    const over = free.length > 0 ? free : Array.from({ length: end - cell.col }, (_, k) => cell.col + k);
    if (i.min > min) for (const c of over) cols[c].min += (i.min - min) / over.length;
    if (i.max > max) for (const c of over) cols[c].max += (i.max - max) / over.length;
    for (const c of over) if (cols[c].max < cols[c].min) cols[c].max = cols[c].min;
  }
  return cols;
}

/** The weight of a star width: "*" is 1, "2*" is 2; null for other widths. */
function starWeight(w: ColumnWidth): number | null {
  if (typeof w !== 'string' || !w.endsWith('*')) return null;
  const n = w.length === 1 ? 1 : Number(w.slice(0, -1));
  return Number.isFinite(n) && n > 0 ? n : 1;
}

/**
 * Shares `room` among `demands` so that each gets its demand when all fit, else the most equal
 * split in which nobody gets more than asked (max-min fairness: small demands are met in full,
 * the largest share what is left equally). Indexes follow `demands`.
 */
function fairShares(demands: readonly number[], room: number): number[] {
  const out = new Array<number>(demands.length).fill(0);
  let total = 0;
  for (const d of demands) total += d;
  if (total <= room) return demands.slice();
  const order = demands.map((_, i) => i).sort((a, b) => demands[a] - demands[b]);
  let left = room;
  for (let k = 0; k < order.length; k++) {
    const share = left / (order.length - k);
    const i = order[k];
    out[i] = Math.min(demands[i], share);
    left -= out[i];
  }
  return out;
}

/**
 * Share `available` points among columns, as CSS tables do:
 * - each column first gets its floor: a fixed column its width, an auto or star column its
 *   min-content width (its longest unbreakable run, padding included). When the floors do not all
 *   fit, the room is shared fairly instead (small floors in full, the largest share the rest
 *   equally): a column holding a 300-character word, or a fixed width wider than the room,
 *   cannot starve the others, and every column gets at least an equal share or its floor;
 * - auto columns then grow towards their max-content width (in proportion to what each still
 *   wants);
 * - star columns share what is left by weight, none below its floor.
 * `intrinsics` is consulted only when there are auto or star columns.
 */
export function resolveWidths(specs: readonly ColumnWidth[], available: number, intrinsics: () => readonly Intrinsic[]): number[] {
  const room = Math.max(0, available);
  let flexible = false;
  for (const w of specs) if (typeof w !== 'number') flexible = true;
  const intr = flexible ? intrinsics() : [];
  const widths = fairShares(
    specs.map((w, i) => (typeof w === 'number' ? w : intr[i].min)),
    room,
  );
  let left = room;
  for (const w of widths) left -= w;
  if (!flexible || left <= 1e-9) return widths;
  // Auto columns grow towards their max-content width.
  const autos: number[] = [];
  const stars: number[] = [];
  specs.forEach((w, i) => {
    if (w === 'auto') autos.push(i);
    else if (typeof w !== 'number') stars.push(i);
  });
  let wish = 0;
  for (const i of autos) wish += Math.max(0, intr[i].max - widths[i]);
  if (wish > 0) {
    const give = Math.min(1, left / wish);
    for (const i of autos) {
      const extra = Math.max(0, intr[i].max - widths[i]) * give;
      widths[i] += extra;
      left -= extra;
    }
  }
  // Star columns share what is left by weight, none below its floor.
  let pool = left;
  for (const i of stars) pool += widths[i];
  let open = stars;
  for (;;) {
    let weight = 0;
    for (const i of open) weight += starWeight(specs[i]) ?? 1;
    if (open.length === 0 || weight === 0) break;
    const below = open.filter((i) => (pool * (starWeight(specs[i]) ?? 1)) / weight < widths[i]);
    if (below.length === 0) {
      for (const i of open) widths[i] = (pool * (starWeight(specs[i]) ?? 1)) / weight;
      break;
    }
    // These keep their floors; the others share the rest.
    for (const i of below) pool -= widths[i];
    open = open.filter((i) => !below.includes(i));
  }
  return widths;
}

/**
 * A WIDTH_CLAMPED warning (at `path`) when resolveWidths gave fixed columns less than their
 * widths: they do not fit the room together with the other columns' min-content widths.
 */
export function warnFixedWidths(specs: readonly ColumnWidth[], widths: readonly number[], room: number, path: string, warnings: WarningSink): void {
  let fixed = 0;
  let short = false;
  specs.forEach((w, i) => {
    if (typeof w !== 'number') return;
    fixed += w;
    if (widths[i] < w - 0.01) short = true;
  });
  if (!short) return;
  const pt = (n: number) => String(Math.round(n * 10) / 10);
  warnings.add('WIDTH_CLAMPED', `the fixed widths add up to ${pt(fixed)} pt but ${pt(Math.max(0, room))} pt are there for all the columns: fixed columns made narrower`, path);
}
