/**
 * The measure pass: a prepared node, the width it gets and the most height it can have on a page
 * become a box with every line broken and every height known. Boxes know nothing of pages;
 * paginate.ts cuts them. Images and codes larger than their room are drawn smaller (aspect kept)
 * with an IMAGE_CLAMPED warning, so nothing is drawn off the paper.
 */
import { breakLines, prepareParagraph, type Line, type PreparedParagraph, type TextStyle } from '../text/paragraph.ts';
import type { WarningSink } from '../warnings.ts';
import type { LayoutBudget } from './budget.ts';
import { flowHeight, insets } from './box-metrics.ts';
import type { Box, Bullet, Frame, PCode, PColumns, PImage, PList, PNode, PText, ShrinkSource, StackBox } from './nodes.ts';
import { ZERO_SIDES, type ComputedStyle } from './style.ts';
import { measureTable } from './table.ts';
import { listIndent, resolveWidths, warnFixedWidths, type Intrinsic, intrinsic } from './widths.ts';

/** What the measure pass needs besides a node and its room. */
export interface MeasureContext {
  /**
   * Where the text lines it breaks are counted (maxBoxes); a paragraph's hard lines were counted
   * when it was prepared, so only the lines wrapping adds are counted here. Null: not counted.
   */
  readonly budget: LayoutBudget | null;
  /** Where IMAGE_CLAMPED and WIDTH_CLAMPED warnings go. */
  readonly warnings: WarningSink;
  /** The page's size: what absolute boxes relative to the page are measured against. */
  readonly page?: { readonly width: number; readonly height: number };
}

/** Measure siblings at one width; `maxHeight`: the most height one of them can have on a page. */
export function measureAll(nodes: readonly PNode[], width: number, ctx: MeasureContext, maxHeight: number): Box[] {
  const out: Box[] = new Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) out[i] = measure(nodes[i], width, ctx, maxHeight);
  return out;
}

/** Points, for messages. */
function pt(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function frameOf(s: ComputedStyle): Frame | null {
  if (s.padding === ZERO_SIDES && !s.border && !s.backgroundColor) return null;
  const radius = s.box?.radius;
  return radius ? { padding: s.padding, border: s.border, background: s.backgroundColor, radius } : { padding: s.padding, border: s.border, background: s.backgroundColor };
}

const EPS = 0.01;

/**
 * Measure a node given the width of its containing block and the most height (margins included)
 * it can have on a page, in points. A node with a fixed width or height gets it (made smaller,
 * with WIDTH_CLAMPED or BOX_CLAMPED, when the room or the page is smaller); an absolutely
 * positioned one is measured against its page or parent and told where it goes.
 */
export function measure(node: PNode, width: number, ctx: MeasureContext, maxHeight: number): Box {
  const lay = node.layout;
  if (lay === undefined) return measureBox(node, width, ctx, maxHeight);
  const s = node.style;
  const hm = s.margin.left + s.margin.right;
  const vm = s.margin.top + s.margin.bottom;
  const abs = lay.absolute;
  const page = ctx.page ?? { width, height: maxHeight };
  const onPage = abs !== null && abs.relativeTo === 'page';
  const container = onPage ? page.width : width;
  const room = Math.max(1, container - hm - (abs ? Math.max(0, abs.left ?? 0) + Math.max(0, abs.right ?? 0) : 0));
  const picture = node.kind === 'image' || node.kind === 'code';
  let outer = room;
  if (lay.width !== null && !picture) {
    outer = lay.width;
    if (outer > room + EPS) {
      ctx.warnings.add('WIDTH_CLAMPED', `the width ${pt(lay.width)} pt is more than the ${pt(room)} pt the box has: made narrower`, lay.path);
      outer = room;
    }
  } else if (abs !== null && (abs.left === null || abs.right === null)) {
    // Shrink to fit: as wide as its content wants, up to its container's width (a box pushed
    // past the edge by its offsets is moved back onto the page rather than squeezed).
    outer = Math.min(Math.max(1, container - hm), Math.max(1, intrinsic(node).max - hm));
  }
  // The most height it can have: a page's content area, or the page itself when placed on it.
  const most = onPage ? page.height : maxHeight;
  let fixed = lay.height !== null && !picture ? lay.height : null;
  if (fixed !== null && fixed + vm > most + EPS) {
    ctx.warnings.add('BOX_CLAMPED', `the height ${pt(fixed)} pt is more than the ${pt(most - vm)} pt a page has for it: made shorter`, lay.path);
    fixed = Math.max(1, most - vm);
  }
  let box = measureBox(node, outer + hm, ctx, fixed !== null ? fixed + vm : most);
  if (fixed !== null) {
    const overflows = box.height > fixed + EPS;
    if (overflows) ctx.warnings.add('CONTENT_CLIPPED', `the content is ${pt(box.height)} pt tall, more than the box's height of ${pt(fixed)} pt: cut off at the box's edge`, lay.path);
    box = { ...box, height: fixed, overflows, layout: lay } as Box;
  } else box = { ...box, layout: lay } as Box;
  if (abs === null) return box;
  // Where it goes: from the left (or right) and top (or bottom) edge of its page or parent.
  const w = box.width + hm;
  const x = abs.left !== null ? abs.left : abs.right !== null ? container - abs.right - w : 0;
  const h = box.height + vm;
  let y: number | null = abs.top;
  let bottom: number | null = null;
  if (y === null && abs.bottom !== null) {
    if (onPage) y = page.height - abs.bottom - h;
    else bottom = abs.bottom;
  }
  return { ...box, absolute: { page: onPage, x: x + box.x, y: y === null ? null : y + s.margin.top, bottom } } as Box;
}

/**
 * Absolute children whose place is given from their parent's bottom edge, now that the parent's
 * content height `height` is known.
 */
export function settleAbsolute(children: Box[], height: number): Box[] {
  for (let i = 0; i < children.length; i++) {
    const a = children[i].absolute;
    if (a === undefined || a.page || a.y !== null || a.bottom === null) continue;
    const c = children[i];
    children[i] = { ...c, absolute: { ...a, y: height - a.bottom - c.marginBottom - c.height, bottom: null } } as Box;
  }
  return children;
}

function measureBox(node: PNode, width: number, ctx: MeasureContext, maxHeight: number): Box {
  const s = node.style;
  const frame = frameOf(s);
  const [it, ir, ib, il] = insets(frame);
  const outer = Math.max(0, width - s.margin.left - s.margin.right);
  const inner = Math.max(0, outer - il - ir);
  // The most height the content can have: what a page gives, less margins, padding and border.
  const innerMax = Math.max(1, maxHeight - s.margin.top - s.margin.bottom - it - ib);
  const base = {
    x: s.margin.left,
    width: outer,
    marginTop: s.margin.top,
    marginBottom: s.margin.bottom,
    keepTogether: s.keepTogether,
    keepWithNext: s.keepWithNext,
    breakBefore: s.breakBefore,
    breakAfter: s.breakAfter,
    frame,
    tag: node.tag,
    anchor: node.anchor,
  };
  const v = it + ib;
  switch (node.kind) {
    case 'text': {
      const lines = node.shrink ? shrinkLines(node, inner, node.layout?.height != null ? Math.max(1, node.layout.height - v) : null, ctx) : breakLines(node.para, inner, s.textAlign);
      const pageRoom = node.layout?.height != null ? null : innerMax;
      // Shrunk text fits its width (SHRINK_FAILED says when it cannot); without a fixed height a line may still be taller than a page.
      if (!node.shrink) warnLineOverflow(lines, inner, pageRoom, node.path, ctx);
      else warnLineOverflow(lines, Infinity, pageRoom, node.path, ctx);
      if (ctx.budget !== null && lines.length > node.para.hardLines) ctx.budget.boxesFor(lines.length - node.para.hardLines, undefined);
      let h = 0;
      for (const l of lines) h += l.height;
      // The hottest box (every table cell): built field by field, no spread.
      return {
        kind: 'text',
        x: base.x,
        width: base.width,
        height: h + v,
        marginTop: base.marginTop,
        marginBottom: base.marginBottom,
        keepTogether: base.keepTogether,
        keepWithNext: base.keepWithNext,
        breakBefore: base.breakBefore,
        breakAfter: base.breakAfter,
        frame: base.frame,
        lines,
        widows: s.widows,
        orphans: s.orphans,
        tag: node.tag,
        anchor: node.anchor,
      };
    }
    case 'stack': {
      const children = measureAll(node.children, inner, ctx, innerMax);
      // A break after its last child is a break after the stack; so is a page break ending it
      // (else the stack's frame went on, empty, to the next page).
      const last = children[children.length - 1];
      if (last?.kind === 'pageBreak') children.pop();
      const breakAfter = base.breakAfter || last?.kind === 'pageBreak' || last?.breakAfter === true;
      const h = flowHeight(children);
      settleAbsolute(children, node.layout?.height != null ? Math.max(0, node.layout.height - v) : h);
      return { ...base, breakAfter, kind: 'stack', children, height: h + v };
    }
    case 'columns':
      return measureColumns(node, inner, base, v, ctx, innerMax);
    case 'list':
      return measureList(node, inner, base, v, ctx, innerMax);
    case 'table':
      return measureTable(node, inner, base, v, ctx, innerMax, measure);
    case 'image':
      return measureImage(node, outer, base, il + ir, v, innerMax, ctx);
    case 'code':
      return measureCode(node, inner, base, v, innerMax, ctx);
    case 'line': {
      const length = Math.min(node.length ?? inner, inner);
      return { ...base, kind: 'line', thickness: node.thickness, color: node.color, length, dash: node.dash, height: node.thickness + v };
    }
    case 'spacer':
      return { ...base, kind: 'spacer', height: node.size + v };
    case 'pageBreak':
      return { ...base, kind: 'pageBreak', height: 0 };
  }
}

/**
 * CONTENT_OVERFLOW when a line is wider than `width` (line breaking splits words between
 * characters, so only a character wider than the whole line is left) or taller than `pageRoom`,
 * the most a page has for it (null: a fixed height, whose CONTENT_CLIPPED says it instead).
 */
function warnLineOverflow(lines: readonly Line[], width: number, pageRoom: number | null, path: string, ctx: MeasureContext): void {
  let widest = 0;
  let tallest = 0;
  for (const l of lines) {
    if (l.width > widest) widest = l.width;
    if (l.height > tallest) tallest = l.height;
  }
  if (widest > width + EPS) {
    const message = `a character is wider than the ${pt(width)} pt its text has (a line needs ${pt(widest)} pt): it runs past the box's edge`;
    // Once per place (a header is measured for every page); the same fault in many places (a
    // table with more columns than fit) is one warning, at the first, counting the others.
    if (ctx.warnings.firstTime(`CONTENT_OVERFLOW\u0000${path}\u0000${message}`)) ctx.warnings.add('CONTENT_OVERFLOW', message, path, `CONTENT_OVERFLOW\u0000${message}`, 'places');
  }
  if (pageRoom !== null && tallest > pageRoom + EPS) {
    const message = `a line of text is ${pt(tallest)} pt tall, more than the ${pt(pageRoom)} pt a page has for it: it runs past the page's margin`;
    if (ctx.warnings.firstTime(`CONTENT_OVERFLOW\u0000${path}\u0000${message}`)) ctx.warnings.add('CONTENT_OVERFLOW', message, path);
  }
}

/**
 * The lines of `fit: "shrink"` text: at its size when no word has to be broken and the lines fit
 * `height` (when the box has one), else at the largest smaller size that fits (every run scaled
 * alike), down to its smallest size; SHRINK_FAILED when even that does not fit.
 */
function shrinkLines(node: PText, inner: number, height: number | null, ctx: MeasureContext): Line[] {
  const shrink = node.shrink!;
  const align = node.style.textAlign;
  const tall = (lines: readonly Line[]): number => {
    let h = 0;
    for (const l of lines) h += l.height;
    return h;
  };
  const attempt = (k: number): { lines: Line[]; fits: boolean } => {
    const para = k === 1 ? node.para : scaledParagraph(shrink, k);
    const lines = breakLines(para, inner, align);
    return { lines, fits: para.minContentWidth <= inner && (height === null || tall(lines) <= height + EPS) };
  };
  const full = attempt(1);
  if (full.fits) return full.lines;
  const least = shrink.min / node.style.fontSize;
  const smallest = attempt(least);
  if (!smallest.fits) {
    ctx.warnings.add('SHRINK_FAILED', `the text does not fit its box even at ${pt(shrink.min)} pt (minFontSize): drawn at that size${height === null ? ', its words broken' : ''}`, shrink.path);
    return smallest.lines;
  }
  // The largest scale that fits, to 1/100 pt of font size.
  let lo = least;
  let hi = 1;
  let best = smallest.lines;
  while ((hi - lo) * node.style.fontSize > 0.01) {
    const mid = (lo + hi) / 2;
    const r = attempt(mid);
    if (r.fits) {
      lo = mid;
      best = r.lines;
    } else hi = mid;
  }
  return best;
}

/** The paragraph prepared again with every run's size (and letter spacing) times `k`. */
function scaledParagraph(source: ShrinkSource, k: number): PreparedParagraph {
  const scaled = new Map<TextStyle, TextStyle>();
  const runs = source.runs.map((r) => {
    let style = scaled.get(r.style);
    if (!style) scaled.set(r.style, (style = { ...r.style, size: r.style.size * k, letterSpacing: r.style.letterSpacing * k }));
    return { ...r, style };
  });
  return prepareParagraph(runs, source.options);
}

type BaseFields = Omit<StackBox, 'kind' | 'children' | 'height'>;

/** The most of a columns node's width its gaps may take: past it they are narrowed (WIDTH_CLAMPED). */
const MAX_GAP_SHARE = 0.5;

/**
 * The gap between columns: as given, unless the gaps would take more than half the room (ten
 * columns 40 pt apart in 220 pt put the last columns past the paper's edge).
 */
function columnGap(node: PColumns, inner: number, warnings: WarningSink): number {
  const n = node.columns.length - 1;
  if (n <= 0 || node.gap * n <= inner * MAX_GAP_SHARE) return node.gap;
  const gap = (Math.max(0, inner) * MAX_GAP_SHARE) / n;
  const pt = (x: number) => String(Math.round(x * 10) / 10);
  // Columns in a header or footer are measured again on every page: one warning.
  if (warnings.firstTime(`WIDTH_CLAMPED\u0000gap\u0000${node.path}\u0000${inner}`)) warnings.add('WIDTH_CLAMPED', `${n} gaps of ${pt(node.gap)} pt take ${pt(node.gap * n)} pt of the ${pt(Math.max(0, inner))} pt the columns have: gaps made ${pt(gap)} pt (at most half the width)`, node.path);
  return gap;
}

function measureColumns(node: PColumns, inner: number, base: BaseFields, v: number, ctx: MeasureContext, maxHeight: number): Box {
  const gap = columnGap(node, inner, ctx.warnings);
  const gaps = gap * Math.max(0, node.columns.length - 1);
  const specs = node.columns.map((c) => c.width);
  const widths = resolveWidths(specs, inner - gaps, () => node.columns.map((c) => columnIntrinsic(c.children)));
  warnFixedWidths(specs, widths, inner - gaps, node.path, ctx.warnings);
  let x = 0;
  let h = 0;
  const cols = node.columns.map((c, i) => {
    const children = measureAll(c.children, widths[i], ctx, maxHeight);
    const col = { x, width: widths[i], children };
    x += widths[i] + gap;
    h = Math.max(h, flowHeight(children));
    return col;
  });
  // Absolute children given from the bottom: from the bottom of the columns (the tallest one).
  for (const col of cols) settleAbsolute(col.children, h);
  return { ...base, kind: 'columns', cols, height: h + v };
}

function columnIntrinsic(children: readonly PNode[]): Intrinsic {
  const r = { min: 0, max: 0 };
  for (const c of children) {
    const i = intrinsic(c);
    r.min = Math.max(r.min, i.min);
    r.max = Math.max(r.max, i.max);
  }
  return r;
}

/**
 * A list is a stack of two-column rows: the marker, aligned in the indent next to the item, then
 * the item. A right-to-left list has its indent and markers on the right.
 */
function measureList(node: PList, inner: number, base: BaseFields, v: number, ctx: MeasureContext, maxHeight: number): Box {
  let widest = 0;
  for (const item of node.items) if (item.marker) widest = Math.max(widest, item.marker.maxContentWidth);
  const indent = listIndent(node.style, widest);
  const gap = node.style.fontSize * 0.5;
  const rtl = node.style.direction === 'rtl';
  const children: Box[] = node.items.map((item) => {
    const content = measureAll(item.children, Math.max(0, inner - indent), ctx, maxHeight);
    const markerLines = item.marker ? breakLines(item.marker, indent - gap, rtl ? 'left' : 'right') : [];
    const marker: Box[] = markerLines.length
      ? [{ kind: 'text', x: 0, width: indent - gap, height: markerLines[0].height, marginTop: 0, marginBottom: 0, keepTogether: false, breakBefore: false, frame: null, lines: markerLines, widows: 1, orphans: 1, tag: item.markerTag }]
      : item.bullet
        ? [bulletBox(item.bullet, indent - gap, rtl)]
        : [];
    const h = Math.max(flowHeight(content), marker.length ? marker[0].height : 0);
    return {
      kind: 'columns',
      startTogether: true,
      x: 0,
      width: inner,
      height: h,
      marginTop: 0,
      marginBottom: 0,
      keepTogether: false,
      breakBefore: false,
      frame: null,
      cols: [
        { x: rtl ? Math.max(0, inner - indent) + gap : 0, width: indent - gap, children: marker },
        { x: rtl ? 0 : indent, width: Math.max(0, inner - indent), children: content },
      ],
    };
  });
  return { ...base, kind: 'stack', children, height: flowHeight(children) + v };
}

/** A bullet at the item's side of the marker column, centred on the x-height of a first line in its style. */
function bulletBox(b: Bullet, width: number, rtl: boolean): Box {
  const st = b.style;
  const lineHeight = st.size * st.lineHeight;
  const baseline = (lineHeight - (st.face.ascent + st.face.descent) * st.size) / 2 + st.face.ascent * st.size;
  const size = st.size * (b.shape === 'square' ? 0.3 : 0.34);
  return {
    kind: 'bullet',
    x: 0,
    width,
    height: lineHeight,
    marginTop: 0,
    marginBottom: 0,
    keepTogether: false,
    breakBefore: false,
    frame: null,
    shape: b.shape,
    cx: rtl ? size / 2 : width - size / 2,
    cy: baseline - (st.face.xHeight * st.size) / 2,
    size,
    color: st.color,
  };
}

/** An IMAGE_CLAMPED warning for a node drawn at `scale` (< 1) of its size. */
function warnClamped(what: string, path: string, w: number, h: number, roomW: number, roomH: number, ctx: MeasureContext): void {
  const none = !(roomW > 0 && roomH > 0);
  ctx.warnings.add('IMAGE_CLAMPED', `${what} of ${pt(w)} x ${pt(h)} pt is larger than the room it has (${pt(roomW)} x ${pt(roomH)} pt): ${none ? 'not drawn (no room at all)' : 'drawn smaller, aspect kept'}`, path);
}

/**
 * An image at its size (given, or from its pixels at 72 dpi), scaled down (aspect kept) to the
 * room: `outer` wide less its frame, `maxHeight` tall. `fit` places it in a box given by both
 * width and height.
 */
function measureImage(node: PImage, outer: number, base: BaseFields, hInsets: number, v: number, maxHeight: number, ctx: MeasureContext): Box {
  const nw = node.image.width;
  const nh = node.image.height;
  let w = node.width ?? (node.height ? (node.height * nw) / nh : nw);
  let h = node.height ?? (node.width ? (node.width * nh) / nw : nh);
  const room = Math.max(0, outer - hInsets);
  const scale = Math.min(1, room / w, maxHeight / h);
  if (scale < 0.999) {
    warnClamped('the image', node.path, w, h, room, maxHeight, ctx);
    // (Not a hair over the room: 150.00000000000003 of a 150 pt page counted as taller than any
    // page, and pagination left the image where it was, running off the paper.)
    w = Math.min(w * scale, room);
    h = Math.min(h * scale, maxHeight);
  }
  let draw = { x: 0, y: 0, w, h };
  let clip = false;
  if (node.width && node.height && node.fit !== 'fill') {
    const fit = node.fit === 'cover' ? Math.max(w / nw, h / nh) : Math.min(w / nw, h / nh);
    const dw = nw * fit;
    const dh = nh * fit;
    draw = { x: (w - dw) / 2, y: (h - dh) / 2, w: dw, h: dh };
    clip = node.fit === 'cover';
  }
  const boxWidth = w + hInsets;
  const shift = node.align === 'center' ? (outer - boxWidth) / 2 : node.align === 'right' ? outer - boxWidth : 0;
  return { ...base, x: base.x + shift, width: boxWidth, kind: 'image', image: node.image, draw, clip, path: node.path, height: h + v };
}

/**
 * A QR code or barcode: its bars scaled down to the room (a QR code stays square; a barcode keeps
 * its aspect), the caption (the value, under linear codes) centred under the bars.
 */
function measureCode(node: PCode, inner: number, base: BaseFields, v: number, maxHeight: number, ctx: MeasureContext): Box {
  let barsWidth = node.width;
  let barsHeight = node.height;
  let caption = node.caption ? breakLines(node.caption, Math.min(barsWidth, inner), 'center') : [];
  let captionHeight = 0;
  for (const l of caption) captionHeight += l.height;
  const scale = Math.min(1, inner / barsWidth, Math.max(0, maxHeight - captionHeight) / barsHeight);
  if (scale < 0.999) {
    warnClamped(node.symbol === 'qrcode' ? 'the QR code' : 'the barcode', node.path, barsWidth, barsHeight + captionHeight, inner, maxHeight, ctx);
    const [w, h] = [barsWidth, barsHeight];
    barsWidth *= scale;
    barsHeight *= scale;
    // The caption broken again under narrower bars can take more lines: the bars shrink for them
    // too (a few rounds; a caption taller than the room alone is CONTENT_OVERFLOW's).
    for (let round = 0; node.caption && round < 4; round++) {
      caption = breakLines(node.caption, barsWidth, 'center');
      captionHeight = 0;
      for (const l of caption) captionHeight += l.height;
      if (barsHeight + captionHeight <= maxHeight + EPS) break;
      const again = Math.max(0, maxHeight - captionHeight) / h;
      barsWidth = w * again;
      barsHeight = h * again;
    }
  }
  const shift = node.align === 'center' ? (inner - barsWidth) / 2 : node.align === 'right' ? inner - barsWidth : 0;
  return {
    ...base,
    kind: 'code',
    code: node.code,
    barsX: shift,
    barsWidth,
    barsHeight,
    color: node.style.color,
    caption,
    height: barsHeight + captionHeight + v,
  };
}
