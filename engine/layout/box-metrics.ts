/**
 * Heights and insets of measured boxes, shared by the measure and paginate passes (a leaf module:
 * it imports no pass).
 */
import type { Box, Frame, MCell } from './nodes.ts';

/** Vertical space a box takes in a flow: its margins plus its height. */
/**
 * The largest share of a page's room for content a table's header rows may take and still be
 * repeated on that page (browsers' rule too): taller, they would leave the body too little room
 * on every page, or none. Used by the measure pass (the body's room) and table pagination.
 */
export const REPEATED_HEADER_SHARE = 1 / 4;

export function outerHeight(b: Box): number {
  // An absolutely positioned box takes no room.
  if (b.absolute !== undefined) return 0;
  return b.marginTop + b.height + b.marginBottom;
}

/** Height of boxes stacked in a flow. */
export function flowHeight(boxes: readonly Box[]): number {
  let h = 0;
  for (const b of boxes) h += outerHeight(b);
  return h;
}

const NO_INSETS: readonly [number, number, number, number] = Object.freeze([0, 0, 0, 0]);

/** Frame insets: [top, right, bottom, left] of padding plus border. */
export function insets(frame: Frame | null): readonly [number, number, number, number] {
  if (!frame) return NO_INSETS;
  const p = frame.padding;
  const b = frame.border;
  return [p.top + (b?.top.width ?? 0), p.right + (b?.right.width ?? 0), p.bottom + (b?.bottom.width ?? 0), p.left + (b?.left.width ?? 0)];
}

/** Height a table cell needs: its content (shifted down for baseline alignment) plus vertical padding. */
export function cellNeed(c: MCell): number {
  return c.shift + outerHeight(c.content) + c.padding.top + c.padding.bottom;
}

/**
 * Heights of a run of table rows from their cells: each row as tall as its tallest one-row cell;
 * a cell spanning rows that needs more than they give adds the difference to the last row it
 * covers (clipped to the run).
 */
export function rowHeights(rows: readonly { readonly cells: readonly MCell[] }[]): number[] {
  const heights = new Array<number>(rows.length);
  let spanning = false;
  for (let r = 0; r < rows.length; r++) {
    let h = 0;
    for (const c of rows[r].cells) {
      if (c.rowSpan === 1) {
        const need = cellNeed(c);
        if (need > h) h = need;
      } else spanning = true;
    }
    heights[r] = h;
  }
  if (!spanning) return heights;
  for (let r = 0; r < rows.length; r++) {
    for (const c of rows[r].cells) {
      if (c.rowSpan === 1) continue;
      const last = Math.min(rows.length, r + c.rowSpan) - 1;
      let covered = 0;
      for (let k = r; k <= last; k++) covered += heights[k];
      const need = cellNeed(c);
      if (need > covered) heights[last] += need - covered;
    }
  }
  return heights;
}

/**
 * The first baseline of a box from its top border edge, or null when it has no line of text
 * before anything else (an image, a rule, an empty stack).
 */
export function firstBaseline(box: Box): number | null {
  const top = insets(box.frame)[0];
  switch (box.kind) {
    case 'text':
      return box.lines.length > 0 && box.lines[0].runs.length > 0 ? top + box.lines[0].baseline : null;
    case 'stack': {
      const first = box.children[0];
      if (!first) return null;
      const b = firstBaseline(first);
      return b === null ? null : top + first.marginTop + b;
    }
    case 'columns': {
      let best: number | null = null;
      for (const col of box.cols) {
        const first = col.children[0];
        if (!first) continue;
        const b = firstBaseline(first);
        if (b !== null) best = Math.max(best ?? 0, top + first.marginTop + b);
      }
      return best;
    }
    case 'table': {
      const row = box.header[0] ?? box.body[0];
      if (!row) return null;
      let best: number | null = null;
      for (const c of row.cells) {
        const b = firstBaseline(c.content);
        if (b !== null) best = Math.max(best ?? 0, top + c.padding.top + c.shift + c.content.marginTop + b);
      }
      return best;
    }
    default:
      return null;
  }
}
