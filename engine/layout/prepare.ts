/**
 * The prepare pass: bound nodes become styled, width-independent nodes. Styles are resolved,
 * text is segmented and shaped, images decoded and codes encoded. Nothing here depends on the
 * width a node will get, so a table cell is shaped once even when its column width is computed
 * from its content.
 */
import { RenderError, type Limits } from '../errors.ts';
import type { LayoutBudget, PageEstimate } from './budget.ts';
import { BOUNDS } from '../template/bounds.ts';
import type { BoundInline, BoundNode, BoundTableSpec, ListMarker, StyleProps } from '../template/types.ts';
import { hyphenatorFor } from '../text/hyphenate.ts';
import { prepareParagraph, type PreparedParagraph, type RGB, type StyledText } from '../text/paragraph.ts';
import { encodeCode } from './codes.ts';
import { decodeImage } from './images.ts';
import type { PCell, PList, PNode, PTable } from './nodes.ts';
import { bareStyle, color, computeStyle, mergeProps, toSides, type ComputedStyle, type Sides, type TextStyles } from './style.ts';

/** What the prepare pass needs besides the nodes. */
export interface PrepareContext {
  readonly styles: Record<string, StyleProps> | undefined;
  readonly textStyles: TextStyles;
  readonly limits: Limits;
  /** The template's language (metadata.language): hyphenation patterns. */
  readonly language?: string;
  /** Collects what the render should report without failing (characters no font has). */
  readonly warnings: Set<string>;
  /** Glyphs and boxes of the render so far. */
  readonly budget: LayoutBudget;
  /** The page count's lower bound where the node being prepared goes, or null outside the content flow. */
  flow: PageEstimate | null;
}

const DEFAULT_BORDER_COLOR = color('#b0b0b0', [176, 176, 176]);

/** Prepare a list of sibling nodes under `parent`. `path` is the JSON path of the list. */
export function prepareNodes(nodes: readonly BoundNode[], parent: ComputedStyle, ctx: PrepareContext, path: string): PNode[] {
  const out: PNode[] = new Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) out[i] = prepareNode(nodes[i], parent, ctx, `${path}[${i}]`);
  return out;
}

/**
 * Prepare one node. @throws RenderError for undecodable images, unencodable codes, unknown fonts,
 * and LIMIT_EXCEEDED past maxGlyphs, maxBoxes or (as far as can be known before measuring) maxPages.
 */
export function prepareNode(node: BoundNode, parent: ComputedStyle, ctx: PrepareContext, path: string): PNode {
  ctx.budget.boxesFor(1, path);
  const props = mergeProps(node, ctx.styles);
  const style = computeStyle(parent, props);
  if (style.breakBefore) ctx.flow?.breakBefore(path);
  // A missing value renders empty (DESIGN §5): an image or code whose source bound to "" is left out.
  if (('image' in node && node.image === '') || ('qrcode' in node && node.qrcode === '') || ('barcode' in node && node.barcode === '')) {
    return { kind: 'spacer', style, size: 0 };
  }
  if ('text' in node) {
    const para = prepareInline(node.text, style, node.link, ctx, path);
    ctx.flow?.add(para.hardLines, para.minLineHeight, path);
    return { kind: 'text', style, para };
  }
  if ('stack' in node) {
    return { kind: 'stack', style, children: prepareNodes(node.stack, style, ctx, `${path}.stack`) };
  }
  if ('columns' in node) {
    const flow = ctx.flow;
    const forks: PageEstimate[] = [];
    const columns = node.columns.map((c, i) => {
      if (flow) forks.push((ctx.flow = flow.fork(true)));
      return { width: c.width ?? '*', children: prepareNodes(c.content, style, ctx, `${path}.columns[${i}].content`) };
    });
    ctx.flow = flow;
    flow?.join(forks);
    return { kind: 'columns', style, gap: node.gap ?? 12, columns };
  }
  if ('table' in node) return prepareTable(node.table, style, ctx, `${path}.table`);
  if ('list' in node) return prepareList(node.list, node.marker ?? 'disc', node.start ?? 1, style, ctx, path);
  if ('image' in node) {
    return {
      kind: 'image',
      style,
      image: decodeImage(node.image, ctx.limits, `${path}.image`),
      width: node.width,
      height: node.height,
      fit: node.fit ?? 'contain',
      align: node.align ?? alignOf(style),
    };
  }
  if ('qrcode' in node) {
    const size = node.size ?? 80;
    const code = encodeCode('qrcode', node.qrcode, { eclevel: node.errorCorrection ?? 'M' }, `${path}.qrcode`);
    ctx.flow?.add(1, size, path);
    return { kind: 'code', style, code, width: size, height: size, caption: null, align: alignOf(style) };
  }
  if ('barcode' in node) {
    const format = node.format ?? 'code128';
    const code = encodeCode(format, node.barcode, {}, `${path}.barcode`);
    const linear = code.unitsHigh === 1;
    const height = node.height ?? (linear ? 40 : 80);
    const width = node.width ?? (linear ? code.unitsWide : (height * code.unitsWide) / code.unitsHigh);
    const showText = node.showText ?? linear;
    if (showText) ctx.budget.glyphsFor(node.barcode.length, path);
    const caption = showText && node.barcode ? prepareParagraph([{ text: node.barcode, style: ctx.textStyles.of(style) }]) : null;
    ctx.flow?.add(1, height, path);
    return { kind: 'code', style, code, width, height, caption, align: alignOf(style) };
  }
  if ('line' in node) {
    ctx.flow?.add(1, node.line.thickness ?? 1, path);
    return {
      kind: 'line',
      style,
      thickness: node.line.thickness ?? 1,
      color: color(node.line.color, style.color),
      length: node.line.length,
      dash: node.line.dash,
    };
  }
  if ('spacer' in node) return { kind: 'spacer', style, size: node.spacer };
  if ('pageBreak' in node) {
    ctx.flow?.pageBreak(path);
    return { kind: 'pageBreak', style };
  }
  throw new RenderError('RENDER_ERROR', 'node has no kind the engine knows', path);
}

/** Where a block (image, code) sits: textAlign, with start/end (and justify, as start) by direction. */
function alignOf(style: ComputedStyle): 'left' | 'center' | 'right' {
  const a = style.textAlign;
  if (a === 'center' || a === 'right' || a === 'left') return a;
  const rtl = style.direction === 'rtl';
  return (a === 'end') !== rtl ? 'right' : 'left';
}

/** Flatten inline spans into styled runs and shape them (counted against maxGlyphs first). */
function prepareInline(text: string | BoundInline[], style: ComputedStyle, link: string | undefined, ctx: PrepareContext, path: string): PreparedParagraph {
  const runs: StyledText[] = [];
  const walk = (t: string | BoundInline[], s: ComputedStyle, l: string | undefined) => {
    if (typeof t === 'string') {
      if (t.length > 0) runs.push({ text: t, style: ctx.textStyles.of(s, l) });
      return;
    }
    for (const inline of t) {
      if (typeof inline === 'string') {
        if (inline.length > 0) runs.push({ text: inline, style: ctx.textStyles.of(s, l) });
      } else {
        walk(inline.text, computeStyle(s, mergeProps(inline, ctx.styles)), inline.link ?? l);
      }
    }
  };
  walk(text, style, link);
  let length = 0;
  for (const r of runs) length += r.text.length;
  ctx.budget.glyphsFor(length, path);
  if (runs.length === 0) runs.push({ text: '', style: ctx.textStyles.of(style, link) });
  const hyphenate = style.textAlign === 'justify' && style.hyphenate ? hyphenatorFor(ctx.language) : undefined;
  const para = prepareParagraph(runs, { direction: style.direction, hyphenate });
  ctx.budget.boxesFor(para.hardLines, path);
  for (const ch of para.missing) ctx.warnings.add(`no font has the character "${ch}" (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
  return para;
}

const ROMAN: [number, string][] = [
  [1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'],
  [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i'],
];

function roman(n: number): string {
  let out = '';
  for (const [value, letters] of ROMAN) {
    while (n >= value) {
      out += letters;
      n -= value;
    }
  }
  return out;
}

function alpha(n: number): string {
  let out = '';
  while (n > 0) {
    n--;
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  }
  return out;
}

/** The marker text of item number `n` (1-based) of a numbered list. Bullets are drawn as shapes. */
function markerText(marker: Exclude<ListMarker, 'disc' | 'circle' | 'square'>, n: number): string {
  switch (marker) {
    case 'decimal': return `${n}.`;
    case 'lower-alpha': return `${alpha(n)}.`;
    case 'upper-alpha': return `${alpha(n).toUpperCase()}.`;
    case 'lower-roman': return `${roman(n)}.`;
    case 'upper-roman': return `${roman(n).toUpperCase()}.`;
    case 'none': return '';
  }
}

function prepareList(items: BoundNode[], marker: ListMarker, start: number, style: ComputedStyle, ctx: PrepareContext, path: string): PList {
  const textStyle = ctx.textStyles.of(style);
  let n = start;
  const flow = ctx.flow;
  return {
    kind: 'list',
    style,
    items: items.map((item, i) => {
      // Items follow each other; a page break inside one does not count.
      const fork = (ctx.flow = flow?.fork(false) ?? null);
      const child = prepareNode(item, style, ctx, `${path}.list[${i}]`);
      ctx.flow = flow;
      if (fork) flow?.join([fork]);
      if (child.kind === 'list') return { marker: null, bullet: null, children: [child] };
      if (marker === 'disc' || marker === 'circle' || marker === 'square') {
        return { marker: null, bullet: { shape: marker, style: textStyle }, children: [child] };
      }
      const text = markerText(marker, n++);
      ctx.budget.glyphsFor(text.length, path);
      return { marker: text ? prepareParagraph([{ text, style: textStyle }], { direction: style.direction }) : null, bullet: null, children: [child] };
    }),
  };
}

function prepareTable(spec: BoundTableSpec, style: ComputedStyle, ctx: PrepareContext, path: string): PTable {
  const padding = spec.cellPadding !== undefined ? toSides(spec.cellPadding) : toSides(4);
  const headerStyle = computeStyle(style, mergeProps(spec.headerStyle ?? { fontWeight: 'bold' }, ctx.styles));
  const footerStyle = spec.footerStyle ? computeStyle(style, mergeProps(spec.footerStyle, ctx.styles)) : style;
  const header = prepareRows(spec.header ?? [], headerStyle, headerStyle.backgroundColor, padding, ctx, `${path}.header`);
  const body = prepareRows(spec.rows, style, null, padding, ctx, `${path}.rows`);
  const footer = prepareRows(spec.footer ?? [], footerStyle, spec.footerStyle ? footerStyle.backgroundColor : null, padding, ctx, `${path}.footer`);
  let count = spec.columns?.length ?? 0;
  for (const rows of [header, body, footer]) {
    for (const row of rows) for (const c of row) count = Math.max(count, c.col + c.colSpan);
  }
  const columns = spec.columns ?? [];
  return {
    kind: 'table',
    style,
    columns: Array.from({ length: count }, (_, i) => columns[i] ?? '*'),
    header,
    body,
    footer,
    borders: spec.borders ?? 'all',
    borderColor: color(spec.borderColor, DEFAULT_BORDER_COLOR),
    borderWidth: spec.borderWidth ?? 0.5,
    stripe: spec.stripe ? color(spec.stripe, [245, 245, 245]) : null,
  };
}

/** Place cells on the grid (skipping slots taken by row spans from above) and prepare them. */
/** `sectionBackground`: headerStyle/footerStyle's background, for cells without their own. */
function prepareRows(rows: BoundNode[][], parent: ComputedStyle, sectionBackground: RGB | null, padding: Sides, ctx: PrepareContext, path: string): PCell[][] {
  const taken: number[] = []; // per column: rows still covered by a span from above
  const flow = ctx.flow;
  return rows.map((row, r) => {
    const cells: PCell[] = [];
    const forks: PageEstimate[] = [];
    let col = 0;
    row.forEach((node, i) => {
      while ((taken[col] ?? 0) > 0) col++;
      const props = mergeProps(node, ctx.styles);
      const cellStyle = computeStyle(parent, props);
      const colSpan = props.colSpan ?? 1;
      const rowSpan = Math.min(props.rowSpan ?? 1, rows.length - r);
      // Row spans from rows made by each can push cells right: the grid stays within bounds.
      if (col + colSpan > BOUNDS.span) {
        throw new RenderError('LIMIT_EXCEEDED', `the table is wider than ${BOUNDS.span} columns`, `${path}[${r}][${i}]`);
      }
      // The cells of a row run beside each other (a page break inside one does not count); a cell
      // spanning rows shares its height with the rows below, so it is left out of the page estimate.
      ctx.flow = flow && rowSpan === 1 ? flow.fork(false) : null;
      if (ctx.flow) forks.push(ctx.flow);
      // The cell owns padding and background; its content is laid out bare.
      const content = prepareNode(node, parent, ctx, `${path}[${r}][${i}]`);
      ctx.flow = flow;
      const bare = bareStyle(content.style);
      cells.push({
        col,
        colSpan,
        rowSpan,
        node: bare === content.style ? content : ({ ...content, style: bare } as PNode),
        background: props.backgroundColor !== undefined ? cellStyle.backgroundColor : sectionBackground,
        padding: props.padding !== undefined ? cellStyle.padding : padding,
        verticalAlign: cellStyle.verticalAlign,
      });
      for (let c = col; c < col + colSpan; c++) taken[c] = Math.max(taken[c] ?? 0, rowSpan);
      col += colSpan;
    });
    for (let c = 0; c < taken.length; c++) if (taken[c] > 0) taken[c]--;
    flow?.join(forks);
    return cells;
  });
}
