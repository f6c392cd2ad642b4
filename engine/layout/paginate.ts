/**
 * The paginate pass: measured boxes flow into fixed-height regions (the content area of each
 * page). A box that does not fit is cut where it allows (between text lines, between children,
 * between table rows, inside a cell) and its rest continues on the next page. The output is a
 * display list of absolute draw items per page.
 */
import { RenderError } from '../errors.ts';
import type { WarningSink } from '../warnings.ts';
import type { Box, DrawItem, Frame, TextBox } from './nodes.ts';
import { flowHeight, insets, outerHeight } from './box-metrics.ts';
import { nestedContext, type FlowContext, type Placement } from './flow-context.ts';
import { placeTable } from './paginate-table.ts';
import type { ItemTag } from '../tags/struct.ts';

export type { FlowContext, Placement } from './flow-context.ts';

const EPS = 1e-6;

/** The settings of a pagination into regions of `regionHeight` points (Infinity: never cut). */
export function flowContext(regionHeight: number, page?: { width: number; height: number }, warnings?: WarningSink, areaHeight?: number, outOfFlow?: WeakSet<DrawItem>): FlowContext {
  return { regionHeight, place, page, warnings, areaHeight, outOfFlow };
}

/** Result of flowing siblings. `rest` null means all were placed. */
export interface FlowResult {
  readonly used: number;
  readonly rest: Box[] | null;
}

/**
 * Flow siblings from (x, y) into `avail` points of height.
 * `atTop`: nothing precedes them in this region, so at least something must be placed.
 * `deferred` (given when the parent may go on past this region while these siblings are done, a
 * column beside a longer one): absolute boxes placed from the parent's top whose top falls below
 * this region are put there, unplaced, instead of being drawn here.
 */
export function flow(boxes: readonly Box[], x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext, deferred?: Box[]): FlowResult {
  let cursor = 0;
  // Absolute boxes placed from the parent's top that do not fit in this region: they go with the
  // part of the parent their top falls in, known once the flow ends or is cut.
  let later: Box[] | null = null;
  /** The flow cut before `rest`, which starts `consumed` points down the siblings as measured. */
  const cut = (used: number, rest: Box[], consumed: number): FlowResult => {
    if (consumed <= EPS) return { used, rest: later === null ? rest : [...later, ...rest] };
    // Those met before the cut, and those after it (their place does not depend on their order).
    const carried: Box[] = [];
    const settle = (b: Box) => {
      if (b.absolute!.y! < consumed - EPS) placeAbsolute(b, x, y, 0, out, ctx);
      else carried.push({ ...b, absolute: { ...b.absolute!, y: b.absolute!.y! - consumed } } as Box);
    };
    if (later !== null) for (const b of later) settle(b);
    const flowing: Box[] = [];
    for (const b of rest) {
      if (b.absolute !== undefined && !b.absolute.page && b.absolute.y !== null) settle(b);
      else flowing.push(b);
    }
    return { used, rest: [...carried, ...flowing] };
  };
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i];
    if (b.absolute !== undefined) {
      const a = b.absolute;
      if (!a.page && a.y !== null && a.y + b.height > avail + EPS) (later ??= []).push(b);
      else placeAbsolute(b, x, y, cursor, out, ctx);
      continue;
    }
    const first = atTop && cursor === 0;
    if (b.kind === 'pageBreak') return cut(cursor, boxes.slice(i + 1), cursor);
    if (b.breakBefore && !first) return cut(cursor, boxes.slice(i), cursor);
    const room = avail - cursor - b.marginTop;
    if (b.keepTogether && !first && b.height > room + EPS && b.height <= ctx.regionHeight + EPS) {
      return cut(cursor, boxes.slice(i), cursor);
    }
    // A heading (keepWithNext) that fits but leaves no room for the start of what follows moves on.
    if (b.keepWithNext && !first && i + 1 < boxes.length && b.height <= room + EPS) {
      const need = keptStart(boxes, i, ctx.regionHeight);
      if (need > room + EPS && need <= ctx.regionHeight + EPS) return cut(cursor, boxes.slice(i), cursor);
    }
    const r = place(b, x + b.x, y + cursor + b.marginTop, room, first, out, ctx);
    if (r.rest) {
      const rest = boxes.slice(i);
      rest[0] = r.rest;
      // Where the rest starts in the siblings as measured: past what of this box was placed.
      const consumed = r.used > 0 ? cursor + b.marginTop + Math.max(0, b.height - r.rest.height) : cursor;
      return cut(cursor + (r.used > 0 ? b.marginTop + r.used : 0), rest, consumed);
    }
    cursor += drawnLast(b) ? b.marginTop + r.used + b.marginBottom : outerHeight(b);
    if (b.breakAfter && i + 1 < boxes.length) return cut(cursor, boxes.slice(i + 1), cursor);
  }
  if (later !== null) {
    for (const b of later) {
      if (deferred !== undefined && b.absolute!.y! >= avail - EPS) deferred.push(b);
      else placeAbsolute(b, x, y, cursor, out, ctx);
    }
  }
  return { used: cursor, rest: null };
}

/** Place one box with its top-left border corner at (x, y). */
export function place(box: Box, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext): Placement {
  const mark = out.length;
  const r = box.layout === undefined ? placeFramed(box, x, y, avail, atTop, out, ctx, mark) : placeLaidOut(box, x, y, avail, atTop, out, ctx, mark);
  if (box.tag !== undefined) tagItems(out, mark, box.tag);
  if (box.anchor === undefined || (r.used === 0 && r.rest === box)) return r;
  // Where its first part is: the destination of links to its id (and its outline entry).
  out.splice(mark, 0, { kind: 'anchor', x, y, id: box.anchor.id, heading: box.anchor.heading });
  return r.rest && r.rest.anchor ? { used: r.used, rest: { ...r.rest, anchor: undefined } as Box } : r;
}

/**
 * An absolutely positioned box, where the flow at (x, y) reaches it: on the page, or from the
 * parent's content box (whose left edge is x and whose flow is at y; `bottom` from the area's
 * bottom edge). It is placed whole and never cut; place() keeps it on the page.
 */
function placeAbsolute(b: Box, x: number, y: number, cursor: number, out: DrawItem[], ctx: FlowContext): void {
  const a = b.absolute!;
  let ax: number;
  let ay: number;
  if (a.page) {
    ax = a.x;
    ay = a.y ?? y + cursor + b.marginTop;
  } else {
    ax = x + a.x;
    ay = a.y !== null ? y + a.y : a.bottom !== null ? y + (ctx.areaHeight ?? ctx.regionHeight) - a.bottom - b.marginBottom - b.height : y + cursor + b.marginTop;
  }
  const mark = out.length;
  place(b, ax, ay, Infinity, true, out, ctx);
  if (ctx.outOfFlow) for (let i = mark; i < out.length; i++) ctx.outOfFlow.add(out[i]);
}

/**
 * A box with layout properties: a fixed height, a rotation or an absolute place make it one piece
 * (moved to the next page when it does not fit, never cut); its items are drawn as one group
 * through its rotation, at its opacity, clipped to a fixed height its content overflows, and
 * moved (or scaled down) onto the page when it would leave it (BOX_CLAMPED).
 */
function placeLaidOut(box: Box, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext, mark: number): Placement {
  const lay = box.layout!;
  const whole = lay.height !== null || lay.rotate !== 0 || box.absolute !== undefined;
  let r: Placement;
  if (whole) {
    if (!atTop && box.height > avail + EPS && box.height <= ctx.regionHeight + EPS) return { used: 0, rest: box };
    r = placeFramed(box, x, y, Infinity, true, out, ctx, mark);
  } else r = placeFramed(box, x, y, avail, atTop, out, ctx, mark);
  if (out.length === mark) return r;
  const h = r.rest ? r.used : box.height;
  let matrix: [number, number, number, number, number, number] = [1, 0, 0, 1, 0, 0];
  if (lay.rotate !== 0) {
    const t = (lay.rotate * Math.PI) / 180;
    const cos = Math.cos(t);
    const sin = Math.sin(t);
    const cx = x + box.width / 2;
    const cy = y + h / 2;
    // y grows downwards: positive angles turn clockwise on the page.
    matrix = [cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy];
  }
  if ((whole && lay.rotate !== 0) || box.absolute !== undefined) matrix = keepOnPage(matrix, x, y, box.width, h, lay.path, ctx);
  const clip = box.overflows ? { x, y, w: box.width, h, radius: box.frame?.radius } : null;
  const identity = matrix[0] === 1 && matrix[1] === 0 && matrix[2] === 0 && matrix[3] === 1 && matrix[4] === 0 && matrix[5] === 0;
  if (identity && lay.opacity >= 1 && clip === null) return r;
  const items = out.splice(mark);
  out.push({ kind: 'group', matrix, opacity: lay.opacity < 1 ? lay.opacity : null, clip, items });
  return r;
}

/**
 * `matrix` changed so the box (x, y, w, h) it draws stays on the page: moved onto it when a
 * corner would leave it, and scaled down about its centre when it is larger than the page.
 */
function keepOnPage(matrix: [number, number, number, number, number, number], x: number, y: number, w: number, h: number, path: string, ctx: FlowContext): [number, number, number, number, number, number] {
  const page = ctx.page;
  if (!page) return matrix;
  const [a, b, c, d, e, f] = matrix;
  const xs = [x, x + w, x, x + w].map((px, i) => a * px + c * (i < 2 ? y : y + h) + e);
  const ys = [x, x + w, x, x + w].map((px, i) => b * px + d * (i < 2 ? y : y + h) + f);
  const left = Math.min(...xs);
  const right = Math.max(...xs);
  const top = Math.min(...ys);
  const bottom = Math.max(...ys);
  if (left >= -EPS && top >= -EPS && right <= page.width + EPS && bottom <= page.height + EPS) return matrix;
  const s = Math.min(1, page.width / (right - left), page.height / (bottom - top));
  // Scale about the drawn box's centre, then move it inside the page.
  const cx = (left + right) / 2;
  const cy = (top + bottom) / 2;
  const half = [((right - left) * s) / 2, ((bottom - top) * s) / 2];
  const ncx = Math.min(Math.max(cx, half[0]), page.width - half[0]);
  const ncy = Math.min(Math.max(cy, half[1]), page.height - half[1]);
  ctx.warnings?.add('BOX_CLAMPED', s < 1 ? `the box (${Math.round(right - left)} x ${Math.round(bottom - top)} pt as drawn) is larger than the page: drawn smaller, on the page` : 'the box would leave the page: moved onto it', path);
  // M' = T(ncx, ncy) S(s) T(-cx, -cy) M
  return [s * a, s * b, s * c, s * d, s * (e - cx) + ncx, s * (f - cy) + ncy];
}

/**
 * The items from `mark` on that no inner box claimed belong to `tag` (engine/tags/struct.ts).
 * Rectangles, rules and bullets are artifacts whatever box they are in (the paint pass does not
 * read their tag): they are left as made, which spares thousands of them in a long table a
 * property added after construction.
 */
export function tagItems(out: readonly DrawItem[], mark: number, tag: ItemTag): void {
  for (let i = mark; i < out.length; i++) {
    const item = out[i];
    const kind = item.kind;
    if (kind === 'rect' || kind === 'line' || kind === 'shape') continue;
    if (item.tag === undefined) item.tag = tag;
    // A box drawn turned, translucent or clipped: its items are in a group.
    if (kind === 'group') tagItems(item.items, 0, tag);
  }
}

function placeFramed(box: Box, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext, mark: number): Placement {
  if (!box.frame) return placeContent(box, x, y, avail, atTop, out, ctx);
  const [it, ir, ib, il] = insets(box.frame);
  // Not even its padding and border fit in the room left: the box starts on the next page; on a
  // fresh page that small, this part goes without them (else it could never start: a region of
  // 32 pt and 36 of insets made pages of empty frames until the page limit).
  if (it + ib > avail - EPS) {
    if (!atTop) return { used: 0, rest: box };
    const r = placeContent(box, x + il, y, avail, true, out, ctx);
    drawFrame(box.frame, x, y, box.width, avail, out, mark);
    return { used: avail, rest: r.rest ? ({ ...r.rest, frame: box.frame, height: r.rest.height + it + ib } as Box) : null };
  }
  const r = placeContent(box, x + il, y + it, avail - it - ib, atTop, out, nestedContext(ctx, it + ib));
  if (r.used === 0 && r.rest === box) return r;
  // Its height when done: as measured, or as drawn (drawnLast).
  const whole = drawnLast(box) ? r.used + it + ib : box.height;
  if (!r.rest && whole > avail + EPS) {
    // The content is done, but the box is taller than the room (a last child's bottom margin, a
    // spacer, padding): when its bottom padding and border do not fit either, the whole box moves
    // on if it fits on a page; otherwise it ends at the page bottom.
    if (r.used + it + ib > avail + EPS && !atTop && box.height <= ctx.regionHeight + EPS) {
      out.length = mark;
      return { used: 0, rest: box };
    }
    const h = Math.max(0, avail);
    drawFrame(box.frame, x, y, box.width, h, out, mark);
    return { used: h, rest: null };
  }
  // A frame cut by the page bottom extends to it; both parts keep their full padding and border.
  const h = r.rest ? Math.max(r.used + it + ib, Math.min(avail, box.height)) : whole;
  drawFrame(box.frame, x, y, box.width, h, out, mark);
  if (!r.rest) return { used: whole, rest: null };
  return { used: h, rest: { ...r.rest, frame: box.frame, height: r.rest.height + it + ib } as Box };
}

function drawFrame(frame: Frame, x: number, y: number, w: number, h: number, out: DrawItem[], mark: number): void {
  const radius = frame.radius;
  if (frame.background) {
    out.splice(mark, 0, radius ? { kind: 'rect', x, y, w, h, fill: frame.background, stroke: null, lineWidth: 0, radius } : { kind: 'rect', x, y, w, h, fill: frame.background, stroke: null, lineWidth: 0 });
  }
  const b = frame.border;
  if (!b) return;
  const same = b.top.width === b.right.width && b.top.width === b.bottom.width && b.top.width === b.left.width && b.top.color.join() === b.right.color.join() && b.top.color.join() === b.bottom.color.join() && b.top.color.join() === b.left.color.join();
  if (same) {
    const hw = b.top.width / 2;
    const rect = { kind: 'rect', x: x + hw, y: y + hw, w: w - b.top.width, h: h - b.top.width, fill: null, stroke: b.top.color, lineWidth: b.top.width } as const;
    out.push(radius ? { ...rect, radius: Math.max(0, radius - hw) } : rect);
    return;
  }
  if (b.top.width) out.push({ kind: 'line', x1: x, y1: y + b.top.width / 2, x2: x + w, y2: y + b.top.width / 2, color: b.top.color, width: b.top.width });
  if (b.bottom.width) out.push({ kind: 'line', x1: x, y1: y + h - b.bottom.width / 2, x2: x + w, y2: y + h - b.bottom.width / 2, color: b.bottom.color, width: b.bottom.width });
  if (b.left.width) out.push({ kind: 'line', x1: x + b.left.width / 2, y1: y, x2: x + b.left.width / 2, y2: y + h, color: b.left.color, width: b.left.width });
  if (b.right.width) out.push({ kind: 'line', x1: x + w - b.right.width / 2, y1: y, x2: x + w - b.right.width / 2, y2: y + h, color: b.right.color, width: b.right.width });
}

/** Emit one text line's runs with the line's top at y. */
export function emitLine(line: TextBox['lines'][number], x: number, y: number, out: DrawItem[]): void {
  const baseline = y + line.baseline;
  // (`tag` given its slot here: a tagged PDF sets it on every item, tagItems, without growing the object)
  for (const run of line.runs) out.push({ kind: 'text', x: x + run.x, y: baseline, run, line, tag: undefined });
}

/**
 * How many of a paragraph's lines go in `avail`: as many as fit, but a cut leaves at least
 * `orphans` lines here and `widows` lines for the next page (fewer here, or none, when needed).
 * On a fresh page at least one line goes, whatever the rules say.
 */
export function linesToPlace(box: TextBox, avail: number, atTop: boolean): number {
  const total = box.lines.length;
  let fit = 0;
  let used = 0;
  while (fit < total && used + box.lines[fit].height <= avail + EPS) used += box.lines[fit++].height;
  if (fit === total) return total;
  let n = fit;
  if (total - n < box.widows) n = total - box.widows;
  if (n < box.orphans) n = 0;
  if (n === 0 && atTop) return Math.max(1, fit);
  return n;
}

/**
 * The room boxes[i] needs at the bottom of a page: its smallest first part, or, for a box that
 * keeps with the next (a heading, or a chain of them), all of it and what the next one needs.
 * Stops counting past `limit` (a page: more cannot be kept together anyway).
 */
function keptStart(boxes: readonly Box[], i: number, limit: number): number {
  let need = 0;
  for (let k = i; ; k++) {
    const b = boxes[k];
    if (!b.keepWithNext || k + 1 >= boxes.length) return need + minimumStart(b);
    need += b.height + b.marginBottom + boxes[k + 1].marginTop;
    if (need > limit) return need;
  }
}

/**
 * The height of the smallest first part of a box on a page: what must fit below a box that keeps
 * with it (a heading's keepWithNext). Text: its first `orphans` lines (all of them when a cut there
 * would leave fewer than `widows`); containers: their first
 * child's; tables: header and first row; anything else: all of it.
 */
export function minimumStart(box: Box): number {
  const [it] = insets(box.frame);
  switch (box.kind) {
    case 'text': {
      // The fewest lines a cut leaves here: `orphans`, unless the rest would be fewer than `widows`.
      const total = box.lines.length;
      const n = total - box.orphans >= box.widows ? Math.min(box.orphans, total) : total;
      let h = 0;
      for (let k = 0; k < n; k++) h += box.lines[k].height;
      return it + h;
    }
    case 'stack':
      return it + (box.children.length > 0 ? box.children[0].marginTop + minimumStart(box.children[0]) : 0);
    case 'columns': {
      let h = 0;
      for (const c of box.cols) if (c.children.length > 0) h = Math.max(h, c.children[0].marginTop + minimumStart(c.children[0]));
      return it + h;
    }
    case 'table': {
      let h = 0;
      for (const r of box.header) h += r.height;
      return it + h + (box.body[0]?.height ?? 0);
    }
    default:
      return box.height;
  }
}

/**
 * Whether the last part of `box` is as tall as what it drew rather than as measured: a table's
 * (its header is not repeated on every page, so a part after a cut can be shorter than its
 * measure) and a stack's or columns' holding one, unless a fixed height sets it.
 */
function drawnLast(box: Box): boolean {
  return (box.kind === 'table' || box.kind === 'stack' || box.kind === 'columns') && box.layout?.height == null;
}

/**
 * Whether flowing `boxes` left them as they were (`rest`): the same boxes in the flow, the first
 * untouched. Absolute boxes are left aside: a cut carries those placed from the parent's top on
 * to the next part (moved, or as they were), before the rest.
 */
function nothingFlowed(rest: readonly Box[], boxes: readonly Box[]): boolean {
  let a = 0;
  while (a < rest.length && rest[a].absolute !== undefined) a++;
  let b = 0;
  while (b < boxes.length && boxes[b].absolute !== undefined) b++;
  return rest.length - a === boxes.length - b && rest[a] === boxes[b];
}

/** Placing an unbreakable box: it goes whole, or (when something precedes it) waits for the next region. */
function placeAtom(box: Box, avail: number, atTop: boolean): boolean {
  return box.height <= avail + EPS || atTop;
}

function placeContent(box: Box, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext): Placement {
  const contentHeight = box.height - (box.frame ? insets(box.frame)[0] + insets(box.frame)[2] : 0);
  switch (box.kind) {
    case 'text': {
      const n = linesToPlace(box, avail, atTop);
      let used = 0;
      for (let k = 0; k < n; k++) {
        emitLine(box.lines[k], x, y + used, out);
        used += box.lines[k].height;
      }
      if (n === box.lines.length) return { used: contentHeight, rest: null };
      if (n === 0) return { used: 0, rest: box };
      const lines = box.lines.slice(n);
      let h = 0;
      for (const l of lines) h += l.height;
      return { used, rest: { ...box, lines, height: h, frame: null } };
    }
    case 'stack': {
      const mark = out.length;
      const r = flow(box.children, x, y, avail, atTop, out, ctx);
      if (!r.rest) return { used: box.layout?.height != null ? contentHeight : r.used, rest: null };
      if (nothingFlowed(r.rest, box.children)) {
        // Nothing placed: the stack goes whole to the next region, so nothing of it stays drawn here.
        out.length = mark;
        return { used: 0, rest: box };
      }
      return { used: r.used, rest: { ...box, children: r.rest, height: flowHeight(r.rest), frame: null } };
    }
    case 'columns': {
      let used = 0;
      let unfinished = false;
      let progressed = false;
      let stalled = false;
      const mark = out.length;
      // A column done here keeps the absolute boxes placed below this page for the columns' next part.
      const deferred: Box[][] = [];
      const cols = box.cols.map((col, k) => {
        const r = flow(col.children, x + col.x, y, avail, atTop, out, ctx, (deferred[k] = []));
        used = Math.max(used, r.used);
        if (r.rest) unfinished = true;
        if (!r.rest || !nothingFlowed(r.rest, col.children)) progressed = true;
        else if (col.children.length > 0) stalled = true;
        return { ...col, children: r.rest ?? [] };
      });
      if (!unfinished) {
        box.cols.forEach((col, k) => {
          for (const b of deferred[k]) placeAbsolute(b, x + col.x, y, 0, out, ctx);
        });
        return { used: box.layout?.height != null ? contentHeight : used, rest: null };
      }
      if (!progressed || (stalled && box.startTogether)) {
        out.length = mark;
        return { used: 0, rest: box };
      }
      let h = 0;
      for (const c of cols) h = Math.max(h, flowHeight(c.children));
      // What of the columns as measured this part took: the carried boxes keep their place from the bottom.
      const consumed = contentHeight - h;
      const rest = cols.map((c, k) => (deferred[k].length === 0 ? c : { ...c, children: deferred[k].map((b) => ({ ...b, absolute: { ...b.absolute!, y: b.absolute!.y! - consumed } }) as Box) }));
      return { used, rest: { ...box, cols: rest, height: h, frame: null } };
    }
    case 'table':
      return placeTable(box, x, y, avail, atTop, out, ctx);
    case 'spacer':
      return { used: Math.min(contentHeight, Math.max(0, avail)), rest: null };
    case 'pageBreak':
      return { used: 0, rest: null };
    case 'image': {
      if (!placeAtom(box, avail, atTop)) return { used: 0, rest: box };
      const d = box.draw;
      const radius = box.layout?.radius ?? 0;
      const window = { x, y, w: box.width - (box.frame ? insets(box.frame)[1] + insets(box.frame)[3] : 0), h: contentHeight };
      // Rounded corners clip the picture as drawn (contain: the picture, cover: the window).
      const clip = radius > 0 ? (box.clip ? { ...window, radius } : { x: x + d.x, y: y + d.y, w: d.w, h: d.h, radius }) : box.clip ? window : null;
      out.push({ kind: 'image', x: x + d.x, y: y + d.y, w: d.w, h: d.h, image: box.image, clip, path: `${box.path}.image` });
      return { used: contentHeight, rest: null };
    }
    case 'code': {
      if (!placeAtom(box, avail, atTop)) return { used: 0, rest: box };
      const sx = box.barsWidth / box.code.unitsWide;
      const sy = box.barsHeight / box.code.unitsHigh;
      out.push({ kind: 'bars', rects: box.code.rects, x: x + box.barsX, y, sx, sy, color: box.color });
      let cy = y + box.barsHeight;
      for (const line of box.caption) {
        emitLine(line, x + box.barsX, cy, out);
        cy += line.height;
      }
      return { used: contentHeight, rest: null };
    }
    case 'bullet':
      out.push({ kind: 'shape', shape: box.shape, cx: x + box.cx, cy: y + box.cy, size: box.size, color: box.color });
      return { used: contentHeight, rest: null };
    case 'line': {
      if (!placeAtom(box, avail, atTop)) return { used: 0, rest: box };
      const ly = y + box.thickness / 2;
      out.push({ kind: 'line', x1: x, y1: ly, x2: x + box.length, y2: ly, color: box.color, width: box.thickness, dash: box.dash });
      return { used: contentHeight, rest: null };
    }
  }
}

/** Where the content goes on one page: from `y` down, `height` points (points from the page's top). */
export interface PageRegion {
  readonly y: number;
  readonly height: number;
}

/**
 * Cut the content boxes into pages of `regionHeight` points, each placed at (x, y).
 * @returns the draw items of each page's content area.
 * @throws RenderError LIMIT_EXCEEDED (path `content`) past `maxPages`.
 */
export function paginate(boxes: Box[], x: number, y: number, regionHeight: number, maxPages: number, page?: { width: number; height: number }, warnings?: WarningSink): DrawItem[][] {
  const region = { y, height: regionHeight };
  return paginateRegions(boxes, x, () => region, maxPages, page, warnings);
}

/**
 * Cut the content boxes into pages whose content areas may differ (a first page's letterhead
 * takes more of it than the header of the pages after it): page `i` (from 0) flows into
 * `regionOf(i)`, at x; a region 0 points high holds nothing (a page with its bands alone). A box
 * that fits no region is placed anyway, on a page of its own, running past the region's bottom:
 * `overflow` (when given) learns the smallest such region.
 * @returns the draw items of each page's content area.
 * @throws RenderError LIMIT_EXCEEDED (path `content`) past `maxPages`.
 */
export function paginateRegions(
  boxes: Box[],
  x: number,
  regionOf: (index: number) => PageRegion,
  maxPages: number,
  page?: { width: number; height: number },
  warnings?: WarningSink,
  overflow?: Overflow,
): DrawItem[][] {
  const pages: DrawItem[][] = [];
  let rest: Box[] | null = boxes;
  let ctx: FlowContext | null = null;
  const outOfFlow = overflow ? new WeakSet<DrawItem>() : undefined;
  while (rest && (rest.length > 0 || pages.length === 0)) {
    if (pages.length >= maxPages) {
      throw new RenderError('LIMIT_EXCEEDED', `the document needs more than ${maxPages} pages`, 'content');
    }
    const items: DrawItem[] = [];
    const { y, height } = regionOf(pages.length);
    if (height <= 0) {
      // A page that holds its bands alone.
      pages.push(items);
      continue;
    }
    if (ctx === null || ctx.regionHeight !== height) ctx = flowContext(height, page, warnings, undefined, outOfFlow);
    const r = flow(rest, x, y, height, true, items, ctx);
    if (r.rest && nothingFlowed(r.rest, rest) && items.length === 0 && rest[0].kind !== 'pageBreak') {
      throw new RenderError('RENDER_ERROR', 'layout made no progress on a fresh page');
    }
    if (overflow && height < overflow.least && (r.used > height + OVERFLOW_TOLERANCE || drawnBottom(items, 0, outOfFlow!) > y + height + OVERFLOW_TOLERANCE)) overflow.least = height;
    pages.push(items);
    rest = r.rest;
  }
  return pages;
}

/** What ran past the bottom of a page's region in a pagination: the smallest such region's height (Infinity: none). */
export interface Overflow {
  least: number;
}

/** How far past a region's bottom the content may end before it counts as running past it, points. */
const OVERFLOW_TOLERANCE = 0.01;

/** The bottom edge of a code's rectangles ([x, y, w, h, ...]), in its module units. */
function barsBottom(rects: readonly number[]): number {
  let bottom = 0;
  for (let k = 1; k < rects.length; k += 4) if (rects[k] + rects[k + 2] > bottom) bottom = rects[k] + rects[k + 2];
  return bottom;
}

/**
 * The lowest edge of the images, rectangles, codes and clipped groups among `items` (moved down by `dy`),
 * points from the page's top: what is measured for a page's height and can run past it (an image
 * or a QR code in a table row whose cut the row's height does not show). Rotated or scaled groups and the
 * items of absolutely placed boxes (`outOfFlow`: placed where the template says) are left out.
 */
function drawnBottom(items: readonly DrawItem[], dy: number, outOfFlow: WeakSet<DrawItem>): number {
  let bottom = -Infinity;
  for (const it of items) {
    if (outOfFlow.has(it)) continue;
    let b = -Infinity;
    if (it.kind === 'image') b = it.clip ? it.clip.y + it.clip.h : it.y + it.h;
    else if (it.kind === 'rect') b = it.y + it.h;
    else if (it.kind === 'bars') b = it.y + it.sy * barsBottom(it.rects);
    else if (it.kind === 'group') {
      const [a, bb, c, d, , f] = it.matrix;
      if (a === 1 && bb === 0 && c === 0 && d === 1) b = it.clip ? it.clip.y + it.clip.h + f : drawnBottom(it.items, f, outOfFlow);
    }
    if (b + dy > bottom) bottom = b + dy;
  }
  return bottom;
}
