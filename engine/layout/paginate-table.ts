/**
 * Tables across pages.
 *
 * - Header rows repeat at the top of every part; footer rows close the table once, after the
 *   last body row, and never stand alone under a repeated header: when the last band of rows fits
 *   on the page but the footer does not, that band moves to the next page with it.
 * - Header rows are repeated on a page only when they take at most a quarter of its room
 *   (REPEATED_HEADER_SHARE) and leave the next row room to start on a fresh page; a part goes
 *   without them otherwise. A header taller than that where the table starts opens it as its
 *   first rows, tied to the first band, cut like body rows when it does not fit on a page.
 * - Footer rows that do not fit on a page with the header are the body's last rows instead (cut
 *   like them), and a last band that cannot share a page with the footer does not wait for it.
 * - Body rows go in bands: rows tied together by row spans. A band that does not fit in the room
 *   left moves whole to the next page when it fits on a page and moving it leaves at most half of
 *   the page's content area empty; otherwise (taller than a page, or too much room would be
 *   wasted) it starts where it is and is cut: the rows that fit are placed, the next row is cut
 *   inside its cells, and a cell spanning rows is cut at the page's bottom. Each part of a cut
 *   cell keeps its fill and borders; its rest continues on the next page, in the same columns,
 *   over the rows it still spans.
 * - A cell's fill (its background, or the stripe of the row it starts in) covers the whole cell,
 *   so stripes never show through a merged cell.
 */
import { outerHeight, REPEATED_HEADER_SHARE, rowHeights } from './box-metrics.ts';
import type { Box, DrawItem, MCell, MRow, TableBox } from './nodes.ts';
import { nestedContext, type FlowContext, type Placement } from './flow-context.ts';
import { ARTIFACT } from '../tags/struct.ts';

const EPS = 1e-6;

function sumHeights(rows: readonly MRow[], from: number, to: number): number {
  let h = 0;
  for (let i = from; i < to; i++) h += rows[i].height;
  return h;
}

/**
 * End (exclusive) of the band starting at row `i`: rows tied together by row spans, and rows
 * before `tiedUntil` tied to the row after them (a header that is not repeated opens the band).
 */
function bandEnd(rows: readonly MRow[], i: number, tiedUntil = 0): number {
  let end = Math.max(i + 1, Math.min(rows.length, tiedUntil + 1));
  for (let r = i; r < end; r++) {
    for (const c of rows[r].cells) end = Math.max(end, Math.min(rows.length, r + c.rowSpan));
  }
  return end;
}

/** A fill rectangle or a rule still growing: cells side by side with the same one share it. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type FillItem = Mutable<Extract<DrawItem, { kind: 'rect' }>>;
type RuleItem = Mutable<Extract<DrawItem, { kind: 'line' }>>;

interface Painter {
  readonly x: number;
  readonly width: number;
  readonly box: TableBox;
  readonly out: DrawItem[];
  /** Borders, drawn after every cell of the part. */
  readonly borders: DrawItem[];
  readonly ctx: FlowContext;
  /** Height of the header rows drawn above this part, points. */
  readonly headerHeight: number;
  /** The last fill drawn and the last rule: a neighbour's equal one extends them. */
  lastFill: FillItem | null;
  lastRule: RuleItem | null;
}

/** Whether a and b, side by side, are the same band: same top and height (rules: same y). */
function near(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-6;
}

/**
 * The fill and the borders of a cell of height h at y. Equal fills (a striped row, a header) and
 * horizontal rules of cells side by side are drawn as one rectangle or one rule.
 */
function frameCell(p: Painter, cell: MCell, y: number, h: number): void {
  const x = p.x + cell.x;
  const w = cell.width;
  if (cell.fill && cell.radius) {
    // A rounded cell is filled on its own.
    p.out.push({ kind: 'rect', x, y, w, h, fill: cell.fill, stroke: null, lineWidth: 0, radius: cell.radius });
    p.lastFill = null;
  } else if (cell.fill) {
    const f = p.lastFill;
    if (f && f.fill === cell.fill && near(f.y, y) && near(f.h, h) && (near(f.x + f.w, x) || near(x + w, f.x))) {
      if (near(x + w, f.x)) f.x = x;
      f.w += w;
    } else {
      const item: FillItem = { kind: 'rect', x, y, w, h, fill: cell.fill, stroke: null, lineWidth: 0 };
      p.out.push(item);
      p.lastFill = item;
    }
  }
  const { borders, borderColor, borderWidth } = p.box;
  if (borders === 'all') p.borders.push(cell.radius ? { kind: 'rect', x, y, w, h, fill: null, stroke: borderColor, lineWidth: borderWidth, radius: cell.radius } : { kind: 'rect', x, y, w, h, fill: null, stroke: borderColor, lineWidth: borderWidth });
  else if (borders === 'horizontal') {
    const r = p.lastRule;
    if (r && near(r.y1, y + h) && (near(r.x2, x) || near(x + w, r.x1))) {
      if (near(r.x2, x)) r.x2 = x + w;
      else r.x1 = x;
    } else {
      const item: RuleItem = { kind: 'line', x1: x, y1: y + h, x2: x + w, y2: y + h, color: borderColor, width: borderWidth };
      p.borders.push(item);
      p.lastRule = item;
    }
  }
}

/** Draw a whole cell of height h: frame, and content aligned in it. */
function drawCell(p: Painter, cell: MCell, y: number, h: number): void {
  frameCell(p, cell, y, h);
  const pad = cell.padding;
  let dy = cell.shift;
  if (cell.verticalAlign === 'middle' || cell.verticalAlign === 'bottom') {
    const free = h - pad.top - pad.bottom - outerHeight(cell.content);
    dy = cell.verticalAlign === 'middle' ? free / 2 : free;
  }
  const content = cell.content;
  p.ctx.place(content, p.x + cell.x + pad.left + content.x, y + pad.top + dy + content.marginTop, Infinity, true, p.out, p.ctx);
}

/** Draw rows [from, to) of a section whole, the first row's top at y; spans are clipped at `to`. */
function drawRows(p: Painter, rows: readonly MRow[], from: number, to: number, y: number): number {
  let top = y;
  for (let r = from; r < to; r++) {
    for (const cell of rows[r].cells) drawCell(p, cell, top, sumHeights(rows, r, Math.min(to, r + cell.rowSpan)));
    top += rows[r].height;
  }
  return top - y;
}

/** A cell whose content is done, continued for the rows it still spans. */
function emptyContent(content: Box): Box {
  return { ...content, kind: 'spacer', height: 0, marginTop: 0, marginBottom: 0, frame: null } as Box;
}

/**
 * Cut the band rows [i, end) at the page's bottom: rows [i, j) are placed, row j gets `partial`
 * points (0: none of it here), and every cell reaching past that is cut there.
 * @returns the height used, the band's rest (its first row is what is left of row j, unless
 * nothing is: every cut cell of row j done and none spanning further), the index in `rows` of the
 * rest's first row (`restFrom`), and whether any cut cell placed something.
 */
function cutBand(p: Painter, rows: readonly MRow[], i: number, end: number, j: number, partial: number, y: number, forced: boolean): { used: number; rest: MRow[]; restFrom: number; progress: boolean; stalled: boolean } {
  const bottom = y + sumHeights(rows, i, j) + partial;
  const continued: MCell[] = [];
  // Whether every cut cell is done and ends with row j: then nothing of row j is left.
  let nothingLeft = true;
  let progress = false;
  let stalled = false;
  let top = y;
  const last = partial > EPS ? j : j - 1;
  for (let r = i; r <= last; r++) {
    for (const cell of rows[r].cells) {
      const cellEnd = Math.min(end, r + cell.rowSpan);
      if (cellEnd <= j) {
        drawCell(p, cell, top, sumHeights(rows, r, cellEnd));
        continue;
      }
      // Cut at the bottom: this part of the cell, and its rest over rows [j, cellEnd).
      const h = bottom - top;
      frameCell(p, cell, top, h);
      const pad = cell.padding;
      const content = cell.content;
      const room = h - pad.top - pad.bottom - cell.shift - content.marginTop;
      // On a fresh page the rest of the cell has the room under the repeated header, less its padding.
      const inner = nestedContext(p.ctx, p.headerHeight + pad.top + pad.bottom);
      const placed = p.ctx.place(content, p.x + cell.x + pad.left + content.x, top + pad.top + cell.shift + content.marginTop, room, forced, p.out, inner);
      // A cell whose content is done (a continued span) has nothing to show for progress.
      if (placed.rest !== content && outerHeight(content) > 0) progress = true;
      // One with content that placed none of it (its paragraph's orphans did not fit).
      if (placed.rest === content && outerHeight(content) > 0) stalled = true;
      const rest = placed.rest ? { ...placed.rest, marginTop: 0 } : emptyContent(content);
      if (placed.rest || cellEnd > j + 1) nothingLeft = false;
      continued.push({ ...cell, rowSpan: cellEnd - j, content: rest, shift: 0, verticalAlign: 'top' });
    }
    top += rows[r].height;
  }
  // Row j's own cells that were not drawn (no part of row j here) continue as they are.
  const first = partial > EPS ? continued : [...continued, ...rows[j].cells];
  first.sort((a, b) => a.col - b.col);
  // A row of finished cells would be their padding alone, cut again on every page.
  const dropFirst = partial > EPS && nothingLeft;
  const restRows: { cells: readonly MCell[] }[] = dropFirst ? [] : [{ cells: first }];
  for (let r = j + 1; r < end; r++) restRows.push(rows[r]);
  const heights = rowHeights(restRows);
  return { used: bottom - y, rest: restRows.map((row, k) => ({ cells: row.cells, height: heights[k] })), restFrom: dropFirst ? j + 1 : j, progress, stalled };
}

/** Place a table box at (x, y) in `avail` points. See the module comment for the rules. */
export function placeTable(box: TableBox, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext): Placement {
  const headerHeight = sumHeights(box.header, 0, box.header.length);
  if (box.header.length === 0 || headerHeight <= ctx.regionHeight * REPEATED_HEADER_SHARE + EPS) {
    // On a fresh page where the next row cannot start under the repeated header: without it.
    return placeParts(box, box, box.header, 0, x, y, avail, atTop, out, ctx) ?? placeParts(box, box, [], 0, x, y, avail, atTop, out, ctx)!;
  }
  // Too tall to repeat on this page: a later part goes without it; the first part opens with it.
  if (box.continued) return placeParts(box, box, [], 0, x, y, avail, atTop, out, ctx)!;
  return placeParts({ ...box, body: [...box.header, ...box.body] }, box, [], box.header.length, x, y, avail, atTop, out, ctx)!;
}

/**
 * Place a part of `table` (`box`: its rows as placed here) under the header rows `header` (the
 * table's, or none), its first `lead` body rows tied to the band after them (a header opening the
 * table as rows). What is left continues `table`, with its header when every lead row was placed.
 * @returns null (nothing drawn) when `header` is drawn on a fresh page whose next row cannot start
 *   under it, else the placement.
 */
function placeParts(box: TableBox, table: TableBox, header: readonly MRow[], lead: number, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext): Placement | null {
  const mark = out.length;
  const headerHeight = sumHeights(header, 0, header.length);
  const p: Painter = { x, width: box.width, box, out, borders: [], ctx, headerHeight, lastFill: null, lastRule: null };
  let body = box.body;
  let footer = box.footer;
  // Footer rows that cannot share a page with the header go as the body's last rows.
  if (footer.length > 0 && headerHeight + sumHeights(footer, 0, footer.length) > ctx.regionHeight + EPS) {
    body = [...body, ...footer];
    footer = [];
  }
  const footerHeight = sumHeights(footer, 0, footer.length);
  const giveUp = (): Placement => {
    out.length = mark;
    return { used: 0, rest: table };
  };
  if (headerHeight > avail + EPS && !atTop) return giveUp();
  if (box.borders === 'horizontal' && (header.length > 0 || body.length > 0 || footer.length > 0)) {
    p.borders.push({ kind: 'line', x1: x, y1: y, x2: x + box.width, y2: y, color: box.borderColor, width: box.borderWidth });
  }
  let cursor = drawRows(p, header, 0, header.length, y);
  // Header rows repeated on a later page are page furniture, not content read again.
  if (box.continued) for (let i = mark; i < out.length; i++) out[i].tag = ARTIFACT;

  const finish = (used: number, rest: TableBox | null): Placement => {
    if (box.borders === 'outer') p.borders.push({ kind: 'rect', x, y, w: box.width, h: used, fill: null, stroke: box.borderColor, lineWidth: box.borderWidth });
    for (const b of p.borders) out.push(b);
    return { used, rest };
  };
  // What is left, from body row `from` on (`rows`): the table's header goes with it once every
  // lead row is placed (a header cut across pages is not repeated).
  const restOf = (rows: MRow[], from: number, restFooter: readonly MRow[]): TableBox => {
    const restHeader = from >= lead ? table.header : [];
    return {
      ...table,
      header: restHeader,
      body: rows,
      footer: restFooter,
      continued: true,
      frame: null,
      height: sumHeights(restHeader, 0, restHeader.length) + sumHeights(rows, 0, rows.length) + sumHeights(restFooter, 0, restFooter.length),
    };
  };
  // Nothing of the body can go here: the table moves on, unless this is a fresh page.
  const stop = (i: number): Placement => {
    if (cursor <= headerHeight + EPS && !atTop) return giveUp();
    return finish(cursor, restOf(body.slice(i), i, footer));
  };

  let i = 0;
  while (i < body.length) {
    const end = bandEnd(body, i, i === 0 ? lead : 0);
    const bandHeight = sumHeights(body, i, end);
    const placedAny = cursor > headerHeight + EPS;
    const room = avail - cursor;
    // The last band keeps the footer company (it goes where the footer fits too) when both fit on a page.
    const withFooter = end === body.length && headerHeight + bandHeight + footerHeight <= ctx.regionHeight + EPS ? footerHeight : 0;
    if (bandHeight + withFooter <= room + EPS) {
      cursor += drawRows(p, body, i, end, y + cursor);
      i = end;
      continue;
    }
    const fresh = atTop && !placedAny;
    const fitsPage = headerHeight + bandHeight + withFooter <= ctx.regionHeight + EPS;
    if (!fresh && fitsPage && room <= ctx.regionHeight / 2 + EPS) return stop(i);
    // Start the band here and cut it: whole rows while they fit, then inside the next row's cells.
    // A last band that fits but without its footer is cut short of its end, so that a part of it
    // goes on with the footer.
    const cutRoom = withFooter > 0 && bandHeight <= room + EPS ? Math.max(0, bandHeight - 1) : room;
    let j = i;
    let used = 0;
    while (j < end - 1 && used + body[j].height <= cutRoom + EPS) used += body[j++].height;
    const cutMark = out.length;
    const borderMark = p.borders.length;
    // Cells place what fits; what does not (an image) goes on with the rest of the cell.
    let cut = cutBand(p, body, i, end, j, cutRoom - used, y + cursor, false);
    // Alone on a fresh page, a cell that placed nothing (a paragraph whose orphans do not fit)
    // places what it can, as a paragraph at a page's top does: a later page is no larger, and
    // the page would hold empty cell frames.
    const undoCut = () => {
      out.length = cutMark;
      p.borders.length = borderMark;
      p.lastFill = null;
      p.lastRule = null;
    };
    if (cut.progress && cut.stalled && fresh && j === i) {
      undoCut();
      cut = cutBand(p, body, i, end, j, cutRoom - used, y + cursor, true);
    } else if (!cut.progress) {
      undoCut();
      // Row j cannot start here: end the part after the rows before it; on a fresh page with
      // none before it, row j must start anyway (something is placed on every page).
      if (j > i) cut = cutBand(p, body, i, end, j, 0, y + cursor, false);
      else if (fresh && header.length > 0 && box.continued) {
        // Row j cannot start under the repeated header even on a fresh page: go without it.
        out.length = mark;
        return null;
      } else if (fresh) cut = cutBand(p, body, i, end, j, cutRoom - used, y + cursor, true);
      else return stop(i);
    }
    cursor += cut.used;
    return finish(cursor, restOf([...cut.rest, ...body.slice(end)], cut.restFrom, footer));
  }

  if (footer.length > 0) {
    if (cursor + footerHeight > avail + EPS && cursor > headerHeight + EPS) return finish(cursor, restOf([], body.length, footer));
    cursor += drawRows(p, footer, 0, footer.length, y + cursor);
  }
  return finish(cursor, null);
}
