/**
 * Widths: the intrinsic (min-content / max-content) width of prepared nodes, and how fixed, auto
 * and star column widths share the available width (tables and `columns`).
 */
import type { ColumnWidth } from '../template/types.ts';
import type { PCell, PNode } from './nodes.ts';
import type { ComputedStyle } from './style.ts';

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
      const cols = columnIntrinsics(node.columns.length, [node.header, node.body, node.footer]);
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

/** Intrinsic widths per table column from its single-column cells (padding included). */
export function columnIntrinsics(count: number, sections: readonly (readonly (readonly PCell[])[])[]): Intrinsic[] {
  const cols = Array.from({ length: count }, () => ({ min: 0, max: 0 }));
  for (const rows of sections) {
    for (const row of rows) {
      for (const cell of row) {
        if (cell.colSpan !== 1) continue;
        const i = intrinsic(cell.node);
        const pad = cell.padding.left + cell.padding.right;
        const c = cols[cell.col];
        if (i.min + pad > c.min) c.min = i.min + pad;
        if (i.max + pad > c.max) c.max = i.max + pad;
      }
    }
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
 * Share `available` points among columns: fixed widths as given, auto columns their max-content
 * width (shrunk towards min-content when they do not fit), star columns what is left by weight.
 * `intrinsics` is consulted only for auto columns.
 */
export function resolveWidths(specs: readonly ColumnWidth[], available: number, intrinsics: () => readonly Intrinsic[]): number[] {
  const widths = new Array<number>(specs.length).fill(0);
  let used = 0;
  let autos: number[] = [];
  let stars = 0;
  specs.forEach((w, i) => {
    if (typeof w === 'number') {
      widths[i] = w;
      used += w;
    } else if (w === 'auto') autos.push(i);
    else stars += starWeight(w) ?? 1;
  });
  if (autos.length > 0) {
    const intr = intrinsics();
    const room = Math.max(0, available - used);
    let wantMax = 0;
    let wantMin = 0;
    for (const i of autos) {
      wantMax += intr[i].max;
      wantMin += intr[i].min;
    }
    // Leave star columns at least their min-content... kept simple: autos take what they want if it fits.
    for (const i of autos) {
      if (wantMax <= room) widths[i] = intr[i].max;
      else if (wantMin >= room) widths[i] = wantMin > 0 ? (room * intr[i].min) / wantMin : room / autos.length;
      else widths[i] = intr[i].min + ((intr[i].max - intr[i].min) * (room - wantMin)) / (wantMax - wantMin);
      used += widths[i];
    }
    autos = [];
  }
  if (stars > 0) {
    const room = Math.max(0, available - used);
    specs.forEach((w, i) => {
      const weight = starWeight(w);
      if (weight !== null) widths[i] = (room * weight) / stars;
    });
  }
  return widths;
}
