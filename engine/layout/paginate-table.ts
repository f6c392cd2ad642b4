/**
 * Tables across pages: header rows repeat at the top of every part, a band of rows (rows tied by
 * row spans) that does not fit moves to the next page, a row taller than a page is cut inside its
 * cells, footer rows close the table.
 */
import type { Box, DrawItem, MCell, MRow, TableBox } from './nodes.ts';
import { outerHeight } from './measure.ts';
import { place, type FlowContext, type Placement } from './paginate.ts';
import { cellNeed } from './table.ts';

const EPS = 1e-6;

function sumHeights(rows: readonly MRow[], from: number, to: number): number {
  let h = 0;
  for (let i = from; i < to; i++) h += rows[i].height;
  return h;
}

/** End (exclusive) of the band starting at row `i`: rows tied together by row spans. */
function bandEnd(rows: readonly MRow[], i: number): number {
  let end = i + 1;
  for (let r = i; r < end; r++) {
    for (const c of rows[r].cells) end = Math.max(end, Math.min(rows.length, r + c.rowSpan));
  }
  return end;
}

interface Painter {
  readonly x: number;
  readonly width: number;
  readonly box: TableBox;
  readonly out: DrawItem[];
  readonly borders: DrawItem[];
  readonly ctx: FlowContext;
}

/** Draw rows [from, to) of a section with the first row's top at y. Spans are clipped at `to`. */
function drawRows(p: Painter, rows: readonly MRow[], from: number, to: number, y: number): number {
  // Stripes first: a cell spanning rows must not be painted over by a later row's stripe.
  if (p.box.stripe) {
    let top = y;
    for (let r = from; r < to; r++) {
      if (rows[r].index % 2 === 1) p.out.push({ kind: 'rect', x: p.x, y: top, w: p.width, h: rows[r].height, fill: p.box.stripe, stroke: null, lineWidth: 0 });
      top += rows[r].height;
    }
  }
  let top = y;
  for (let r = from; r < to; r++) {
    const row = rows[r];
    for (const cell of row.cells) {
      const h = sumHeights(rows, r, Math.min(to, r + cell.rowSpan));
      drawCell(p, cell, top, h, cell.content, Infinity);
    }
    if (p.box.borders === 'horizontal') hline(p, top + row.height);
    top += row.height;
  }
  return top - y;
}

/** Draw one cell box of height h; its content is placed into `avail` (cut if smaller). */
function drawCell(p: Painter, cell: MCell, y: number, h: number, content: Box, avail: number): Placement {
  const x = p.x + cell.x;
  if (cell.background) p.out.push({ kind: 'rect', x, y, w: cell.width, h, fill: cell.background, stroke: null, lineWidth: 0 });
  const pad = cell.padding;
  let dy = 0;
  if (avail === Infinity && cell.verticalAlign !== 'top') {
    const free = h - pad.top - pad.bottom - outerHeight(content);
    dy = cell.verticalAlign === 'middle' ? free / 2 : free;
  }
  const r = place(content, x + pad.left + content.x, y + pad.top + dy + content.marginTop, avail, true, p.out, p.ctx);
  if (p.box.borders === 'all') {
    const w = p.box.borderWidth;
    p.borders.push({ kind: 'rect', x, y, w: cell.width, h, fill: null, stroke: p.box.borderColor, lineWidth: w });
  }
  return r;
}

function hline(p: Painter, y: number): void {
  p.borders.push({ kind: 'line', x1: p.x, y1: y, x2: p.x + p.width, y2: y, color: p.box.borderColor, width: p.box.borderWidth });
}

/** Place a table box at (x, y) in `avail` points. See the module comment for the rules. */
export function placeTable(box: TableBox, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext): Placement {
  const mark = out.length;
  const p: Painter = { x, width: box.width, box, out, borders: [], ctx };
  const headerHeight = sumHeights(box.header, 0, box.header.length);
  if (box.borders === 'horizontal') hline(p, y);
  let cursor = drawRows(p, box.header, 0, box.header.length, y);

  const finish = (used: number, rest: TableBox | null): Placement => {
    if (box.borders === 'outer') p.borders.push({ kind: 'rect', x, y, w: box.width, h: used, fill: null, stroke: box.borderColor, lineWidth: box.borderWidth });
    for (const b of p.borders) out.push(b);
    return { used, rest };
  };
  const giveUp = (): Placement => {
    out.length = mark;
    return { used: 0, rest: box };
  };
  const restOf = (body: MRow[], footer: readonly MRow[]): TableBox => ({
    ...box,
    body,
    footer,
    continued: true,
    frame: null,
    height: headerHeight + sumHeights(body, 0, body.length) + sumHeights(footer, 0, footer.length),
  });

  const body = box.body;
  let i = 0;
  while (i < body.length) {
    let end = bandEnd(body, i);
    let bandHeight = sumHeights(body, i, end);
    // A band of spanned rows taller than a page gives up its spans and breaks between rows.
    if (end - i > 1 && headerHeight + bandHeight > ctx.regionHeight) {
      end = i + 1;
      bandHeight = body[i].height;
    }
    if (cursor + bandHeight <= avail + EPS) {
      cursor += drawRows(p, body, i, end, y + cursor);
      i = end;
      continue;
    }
    const nothingYet = i === 0 || cursor === headerHeight;
    const fitsFreshPage = headerHeight + bandHeight <= ctx.regionHeight + EPS;
    if (!nothingYet || (fitsFreshPage && !atTop)) {
      if (cursor === headerHeight) return giveUp();
      return finish(cursor, restOf(body.slice(i), box.footer));
    }
    // The row is taller than what a page can give it: cut it inside its cells.
    const room = avail - cursor;
    const row = body[i];
    if (room <= 0) return cursor === headerHeight && !atTop ? giveUp() : finish(cursor, restOf(body.slice(i), box.footer));
    const restCells: MCell[] = [];
    let restHeight = 0;
    for (const cell of row.cells) {
      const r = drawCell(p, cell, y + cursor, room, cell.content, room - cell.padding.top - cell.padding.bottom);
      const content: Box = r.rest ?? { ...cell.content, kind: 'spacer', height: 0, marginTop: 0, marginBottom: 0, frame: null } as Box;
      const restCell = { ...cell, rowSpan: 1, content };
      restCells.push(restCell);
      restHeight = Math.max(restHeight, r.rest ? cellNeed(restCell) : 0);
    }
    if (box.borders === 'horizontal') hline(p, y + cursor + room);
    cursor += room;
    const restRow: MRow = { height: restHeight, cells: restCells, index: row.index };
    return finish(cursor, restOf([restRow, ...body.slice(i + 1)], box.footer));
  }

  const footerHeight = sumHeights(box.footer, 0, box.footer.length);
  if (box.footer.length > 0) {
    if (cursor + footerHeight > avail + EPS && cursor > headerHeight) return finish(cursor, restOf([], box.footer));
    cursor += drawRows(p, box.footer, 0, box.footer.length, y + cursor);
  }
  return finish(cursor, null);
}
