/**
 * The prepare pass: bound nodes become styled, width-independent nodes. Styles are resolved,
 * text is segmented and shaped, images decoded and codes encoded. Nothing here depends on the
 * width a node will get, so a table cell is shaped once even when its column width is computed
 * from its content.
 */
import { RenderError, type Limits } from '../errors.ts';
import type { WarningSink } from '../warnings.ts';
import type { LayoutBudget, PageEstimate } from './budget.ts';
import { BOUNDS } from '../template/bounds.ts';
import { EACH_ITEM, EMPTY_STRING_CELL, ROW_ITEM, TEMPLATE_PATH, type KeptRow, type RowItem } from '../template/bind.ts';
import { dataPathText } from '../template/data-faults.ts';
import { isLinkTarget, linkTargetFault } from '../template/links.ts';
import { SectionGrid, type GridEntry } from '../template/table-grid.ts';
import type { BoundInline, BoundNode, BoundTableSpec, ListMarker, StyleProps } from '../template/types.ts';
import { hyphenatorFor } from '../text/hyphenate.ts';
import { prepareParagraph, type PreparedParagraph, type RGB, type StyledText } from '../text/paragraph.ts';
import { ARTIFACT, headingOfStyles, inheritedLang, requireAlt, roleType, structNode, tableCell, type ItemTag, type StructNode, type StructType, type TagContext } from '../tags/struct.ts';
import { encodeCode } from './codes.ts';
import { decodeImage, type ImageBytes } from './images.ts';
import type { Anchor, PCell, PList, PNode, PTable, PText, ShrinkSource } from './nodes.ts';
import { headingLevel, plainText, TOC_TABLES } from './outline.ts';
import { bareStyle, color, computeStyle, mergeProps, toSides, type ComputedStyle, type Sides, type TextStyles } from './style.ts';

/** What the prepare pass needs besides the nodes. */
export interface PrepareContext {
  readonly styles: Record<string, StyleProps> | undefined;
  readonly textStyles: TextStyles;
  readonly limits: Limits;
  /** Bytes of the image sources fetched before the render (URLs, assets), by source. */
  readonly images?: ImageBytes;
  /** The template's language (metadata.language): hyphenation patterns. */
  readonly language?: string;
  /** Collects what the render should report without failing (characters no font has). */
  readonly warnings: WarningSink;
  /** Glyphs and boxes of the render so far. */
  readonly budget: LayoutBudget;
  /** The page count's lower bound where the node being prepared goes, or null outside the content flow. */
  flow: PageEstimate | null;
  /** Internal links ("#id") of the text prepared, with their paths, when collected (engine/pipeline.ts checks them). */
  links?: { id: string; path: string }[] | null;
  /** Tagging of the content (a tagged PDF), or null: bands, untagged documents, inside artifacts. */
  tags?: TagContext | null;
  /** The structure element the node being prepared goes in (with `tags`). */
  structParent?: StructNode | null;
  /**
   * Page breaks are ignored here: in table cells, header, footer and background, and inside
   * absolute, fixed-height and rotated boxes, which are placed whole (a break there cut off
   * everything after it).
   */
  noBreaks?: boolean;
}

const DEFAULT_BORDER_COLOR = color('#b0b0b0', [176, 176, 176]);

/** Hyphenation that leaves a word as it is. */
const KEEP_WORD = (word: string): string => word;

/** Prepare a list of sibling nodes under `parent`. `path` is the JSON path of the list. */
export function prepareNodes(nodes: readonly BoundNode[], parent: ComputedStyle, ctx: PrepareContext, path: string): PNode[] {
  const out: PNode[] = new Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) out[i] = prepareNode(nodes[i], parent, ctx, `${path}[${i}]`);
  return out;
}

/**
 * Prepare one node. @throws RenderError for undecodable images, unencodable codes, unknown fonts,
 * and LIMIT_EXCEEDED past maxGlyphs, maxBoxes or (as far as can be known before measuring) maxPages;
 * for a node an `each` made, the message names the data item too (`; the node is made from data.items[1]`).
 */
export function prepareNode(node: BoundNode, parent: ComputedStyle, ctx: PrepareContext, path: string): PNode {
  const item = (node as { [EACH_ITEM]?: RowItem })[EACH_ITEM];
  if (item === undefined) return prepareAt(node, parent, ctx, templatePath(node, path));
  try {
    return prepareAt(node, parent, ctx, templatePath(node, path));
  } catch (e) {
    throw e instanceof RenderError ? madeFromItem(e, item) : e;
  }
}

/** Errors that already name the data item they were made from (an inner each's). */
const named = new WeakSet<RenderError>();

/** `e` again, its message naming the data item its node (or table row) was made from. */
function madeFromItem(e: RenderError, item: RowItem, what: 'node' | 'row' = 'node'): RenderError {
  if (named.has(e) || e.issues.length > 1) return e;
  const raw = e.path !== undefined && e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message;
  const out = new RenderError(e.code, `${raw}; the ${what} is made from ${itemText(item)}`, e.path);
  named.add(out);
  return out;
}

function prepareAt(node: BoundNode, parent: ComputedStyle, ctx: PrepareContext, path: string): PNode {
  if (!ctx.tags) return prepareUntagged(node, parent, ctx, path);
  const tags = ctx.tags;
  const within = ctx.structParent ?? null;
  const role = node.role;
  if (role === 'artifact') {
    // Decoration: left out of the structure with everything inside it.
    ctx.tags = null;
    try {
      return { ...prepareUntagged(node, parent, ctx, path), tag: ARTIFACT };
    } finally {
      ctx.tags = tags;
    }
  }
  const own = node.lang !== undefined && node.lang !== inheritedLang(within, tags.language) ? { lang: node.lang } : undefined;
  // A Figure needs a text alternative under PDF/UA, and only images and codes have `alt`.
  if (role === 'figure' && tags.requireAlt && !('image' in node || 'qrcode' in node || 'barcode' in node)) {
    throw new RenderError('TEMPLATE_INVALID', 'PDF/UA: a figure needs a text alternative, and only image, qrcode and barcode nodes take "alt"; leave out "role": "figure" here', `${path}.role`);
  }
  let tag: ItemTag | undefined;
  if ('text' in node) {
    const type = role ? roleType(role) : headingOfStyles(node.style) ?? 'P';
    tag = structNode(type, within, type.charAt(0) === 'H' ? { ...own, path } : own);
  }
  else if ('image' in node || 'qrcode' in node || 'barcode' in node) {
    const what = 'image' in node ? 'image' : 'qrcode' in node ? 'QR code' : 'barcode';
    if (tags.requireAlt) requireAlt(node.alt, what, path);
    tag = node.alt === '' ? ARTIFACT : structNode(role && role !== 'p' ? roleType(role) : 'Figure', within, { ...own, alt: node.alt });
  } else if ('stack' in node || 'columns' in node || 'list' in node || 'table' in node) {
    // Containers: an element in the tree; their content is their children's.
    const type: StructType = 'list' in node ? 'L' : 'table' in node ? (TOC_TABLES.has(node) ? 'TOC' : 'Table') : role ? roleType(role) : 'Div';
    ctx.structParent = structNode(type, within, own);
    try {
      return prepareUntagged(node, parent, ctx, path);
    } finally {
      ctx.structParent = within;
    }
  }
  const prepared = prepareUntagged(node, parent, ctx, path);
  return tag === undefined ? prepared : { ...prepared, tag };
}

/**
 * The path errors and warnings name for `node`: its template path, which binding keeps on it
 * (`each` and `if` move nodes in the bound list), else `path`, its place among the nodes prepared
 * (nodes made by the engine itself, such as a table of contents' rows).
 */
function templatePath(node: BoundNode, path: string): string {
  return (node as { [TEMPLATE_PATH]?: string })[TEMPLATE_PATH] ?? path;
}

/** As {@link prepareNode} without the structure tree; `path` is already the node's template path. */
function prepareUntagged(node: BoundNode, parent: ComputedStyle, ctx: PrepareContext, path: string): PNode {
  // An absolute box takes no room, a fixed-height one its height: neither counts its lines in the page estimate.
  const own = mergeProps(node, ctx.styles);
  const flow = ctx.flow;
  const outOfFlow = flow !== null && (own.position === 'absolute' || own.height !== undefined) && !('image' in node) && !('barcode' in node) && !('qrcode' in node);
  if (outOfFlow) ctx.flow = null;
  // What is inside a box placed whole cannot break to a new page (the box's own break can).
  const noBreaks = ctx.noBreaks === true;
  if (own.position === 'absolute' || own.height !== undefined || (own.rotate !== undefined && own.rotate !== 0)) ctx.noBreaks = true;
  let prepared: PNode;
  try {
    prepared = prepareKind(node, parent, ctx, path, noBreaks);
  } finally {
    ctx.flow = flow;
    ctx.noBreaks = noBreaks;
  }
  if (outOfFlow && own.position !== 'absolute' && own.height !== undefined) flow.add(1, own.height, path);
  const box = prepared.style.box;
  const id = (node as StyleProps).id;
  const anchor: Anchor | undefined = id === undefined ? undefined : { id, heading: headingOf(node) };
  // Images and codes size themselves: their width and height are their own options.
  if (box === null || (prepared.kind === 'spacer' && !('spacer' in node))) return anchor ? { ...prepared, anchor } : prepared;
  return { ...prepared, layout: { ...box, path }, anchor };
}

/** The heading a bound node is (level and title), or null. */
function headingOf(node: BoundNode): Anchor['heading'] {
  const level = headingLevel(node);
  return level !== null && 'text' in node ? { level, title: plainText(node.text) } : null;
}

/** The default smallest size of `fit: "shrink"` text, points. */
export const MIN_FONT_SIZE = 4;

/** `noBreaks`: the node's own page breaks are ignored (see PrepareContext.noBreaks). */
function prepareKind(node: BoundNode, parent: ComputedStyle, ctx: PrepareContext, path: string, noBreaks: boolean): PNode {
  ctx.budget.boxesFor(1, path);
  const props = mergeProps(node, ctx.styles);
  const computed = computeStyle(parent, props);
  const style = noBreaks && (computed.breakBefore || computed.breakAfter) ? { ...computed, breakBefore: false, breakAfter: false } : computed;
  if (style.breakBefore) ctx.flow?.breakBefore(path);
  // A missing value renders empty (DESIGN §5): an image or code whose source bound to "" is left out.
  if (('image' in node && node.image === '') || ('qrcode' in node && node.qrcode === '') || ('barcode' in node && node.barcode === '')) {
    return { kind: 'spacer', style, size: 0 };
  }
  if ('text' in node) {
    const shrink = 'fit' in node && node.fit === 'shrink';
    const keep: ShrinkSource[] | undefined = shrink ? [] : undefined;
    const para = prepareInline(node.text, style, node.link, ctx, path, keep);
    ctx.flow?.add(para.hardLines, para.minLineHeight, path);
    if (keep) return { kind: 'text', style, para, shrink: { ...keep[0], min: Math.min(('minFontSize' in node ? node.minFontSize : undefined) ?? MIN_FONT_SIZE, style.fontSize), path }, path };
    // (`tag` set here too: a table cell's text takes its element in place, one object shape for all)
    return { kind: 'text', style, para, tag: undefined, path };
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
    return { kind: 'columns', style, path, gap: node.gap ?? 12, columns };
  }
  if ('table' in node) return prepareTable(node.table, style, ctx, path, TOC_TABLES.get(node));
  if ('list' in node) return prepareList(node.list, node.marker ?? 'disc', node.start ?? 1, style, ctx, path);
  if ('image' in node) {
    return {
      kind: 'image',
      style,
      path,
      image: decodeImage(node.image, ctx.limits, `${path}.image`, ctx.images),
      width: node.width,
      height: node.height,
      fit: node.fit ?? 'contain',
      align: node.align ?? alignOf(style),
    };
  }
  if ('qrcode' in node) {
    // A QR code is square: `size`, else the smaller of width and height (both its own), else 80 pt.
    const size = node.size ?? (node.width !== undefined || node.height !== undefined ? Math.min(node.width ?? Infinity, node.height ?? Infinity) : 80);
    const code = encodeCode('qrcode', node.qrcode, { eclevel: node.errorCorrection ?? 'M' }, `${path}.qrcode`);
    // Codes are scaled down to the room they get (known only when measured): no lower bound for the page estimate.
    return { kind: 'code', symbol: 'qrcode', path, style, code, width: size, height: size, caption: null, align: alignOf(style) };
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
    return { kind: 'code', symbol: 'barcode', path, style, code, width, height, caption, align: alignOf(style) };
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
  // A table of contents outside the content (header, footer, background) lists nothing.
  if ('toc' in node) return { kind: 'spacer', style, size: 0 };
  if ('pageBreak' in node) {
    if (noBreaks) return { kind: 'spacer', style, size: 0 };
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

/**
 * `link` when it goes somewhere a PDF link may (a link made by placeholders can be anything the
 * data holds: `javascript:`, `file:`), else undefined, with LINK_UNRESOLVED once per place.
 */
function usableLink(link: string, ctx: PrepareContext, path: string): string | undefined {
  if (isLinkTarget(link)) return link;
  const message = `${linkTargetFault(link)}: drawn without the link`;
  if (ctx.warnings.firstTime(`LINK_UNRESOLVED\u0000${path}\u0000${message}`)) ctx.warnings.add('LINK_UNRESOLVED', message, path);
  return undefined;
}

/**
 * Flatten inline spans into styled runs and shape them (counted against maxGlyphs first). Justified
 * text is hyphenated with the patterns of each run's language (its `lang`, else the document's).
 */
function prepareInline(text: string | BoundInline[], style: ComputedStyle, link: string | undefined, ctx: PrepareContext, path: string, keep?: ShrinkSource[]): PreparedParagraph {
  if (link !== undefined) link = usableLink(link, ctx, path);
  const runs: StyledText[] = [];
  const justified = style.textAlign === 'justify';
  if (typeof text === 'string') {
    if (text.length > 0) runs.push({ text, style: ctx.textStyles.of(style, link) });
  } else flattenSpans(text, style, link, style, justified, ctx, runs, path);
  let length = 0;
  let last: string | undefined;
  for (const r of runs) {
    length += r.text.length;
    const l = r.style.link;
    if (l !== undefined && l !== last && l.startsWith('#') && ctx.links) ctx.links.push({ id: l.slice(1), path });
    last = l;
  }
  ctx.budget.glyphsFor(length, path);
  if (runs.length === 0) runs.push({ text: '', style: ctx.textStyles.of(style, link) });
  // Runs without a language of their own take the document's patterns.
  const hyphenate = justified && style.hyphenate ? hyphenatorFor(style.lang ?? ctx.language) : undefined;
  const para = prepareParagraph(runs, { direction: style.direction, hyphenate });
  keep?.push({ runs, options: { direction: style.direction, hyphenate } });
  ctx.budget.boxesFor(para.hardLines, path);
  for (const ch of para.missing) {
    const key = `GLYPH_MISSING\u0000${ch}`;
    if (!ctx.warnings.has(key)) ctx.warnings.add('GLYPH_MISSING', `no font has the character "${ch}" (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}): drawn as an empty box`, path, key);
  }
  return para;
}

/** Inline spans in document order as styled runs (recursive for nested spans). */
function flattenSpans(t: string | BoundInline[], s: ComputedStyle, l: string | undefined, paragraph: ComputedStyle, justified: boolean, ctx: PrepareContext, out: StyledText[], path: string): void {
  if (typeof t === 'string') {
    if (t.length > 0) out.push(styledRun(t, s, l, paragraph, justified, ctx));
    return;
  }
  for (const inline of t) {
    if (typeof inline === 'string') {
      if (inline.length > 0) out.push(styledRun(inline, s, l, paragraph, justified, ctx));
    } else {
      flattenSpans(inline.text, computeStyle(s, mergeProps(inline, ctx.styles)), inline.link === undefined ? l : usableLink(inline.link, ctx, path), paragraph, justified, ctx, out, path);
    }
  }
}

/**
 * A run of text in style `s`. A span in another language than its paragraph (or with hyphenate
 * off) gets its own hyphenation: its language's patterns, or none when there are none for it.
 */
function styledRun(t: string, s: ComputedStyle, l: string | undefined, paragraph: ComputedStyle, justified: boolean, ctx: PrepareContext): StyledText {
  if (!justified || s === paragraph || (s.lang === paragraph.lang && s.hyphenate === paragraph.hyphenate)) return { text: t, style: ctx.textStyles.of(s, l) };
  return { text: t, style: ctx.textStyles.of(s, l), hyphenate: (s.hyphenate ? hyphenatorFor(s.lang ?? ctx.language) : undefined) ?? KEEP_WORD };
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

/** The largest number written in roman numerals (as CSS: 4000 would be MMMM, 40000 forty m's). */
const MAX_ROMAN = 3999;

/**
 * The marker text of item number `n` (from `start`, 0 allowed) of a numbered list. Bullets are
 * drawn as shapes. As CSS does, a number a style cannot write is written in decimal: 0 in
 * letters or roman numerals (it gave "."), 4000 and more in roman numerals.
 */
function markerText(marker: Exclude<ListMarker, 'disc' | 'circle' | 'square'>, n: number): string {
  const romanOk = n >= 1 && n <= MAX_ROMAN;
  switch (marker) {
    case 'decimal': return `${n}.`;
    case 'lower-alpha': return n >= 1 ? `${alpha(n)}.` : `${n}.`;
    case 'upper-alpha': return n >= 1 ? `${alpha(n).toUpperCase()}.` : `${n}.`;
    case 'lower-roman': return romanOk ? `${roman(n)}.` : `${n}.`;
    case 'upper-roman': return romanOk ? `${roman(n).toUpperCase()}.` : `${n}.`;
    case 'none': return '';
  }
}

function prepareList(items: BoundNode[], marker: ListMarker, start: number, style: ComputedStyle, ctx: PrepareContext, path: string): PList {
  const textStyle = ctx.textStyles.of(style);
  let n = start;
  const flow = ctx.flow;
  // Tagged: L > LI > (Lbl for a numbered item's marker) LBody > the item.
  const list = ctx.tags ? (ctx.structParent ?? null) : null;
  const numbered = marker !== 'disc' && marker !== 'circle' && marker !== 'square' && marker !== 'none';
  return {
    kind: 'list',
    style,
    items: items.map((item, i) => {
      const li = list && structNode('LI', list);
      const markerTag = li && numbered && !('list' in item) ? structNode('Lbl', li) : undefined;
      if (li) ctx.structParent = structNode('LBody', li);
      // Items follow each other; a page break inside one does not count.
      const fork = (ctx.flow = flow?.fork(false) ?? null);
      const child = prepareNode(item, style, ctx, `${path}.list[${i}]`);
      ctx.flow = flow;
      if (li) ctx.structParent = list;
      if (fork) flow?.join([fork]);
      if (child.kind === 'list') return { marker: null, bullet: null, children: [child] };
      if (marker === 'disc' || marker === 'circle' || marker === 'square') {
        return { marker: null, bullet: { shape: marker, style: textStyle }, children: [child] };
      }
      const text = markerText(marker, n++);
      ctx.budget.glyphsFor(text.length, path);
      return { marker: text ? prepareParagraph([{ text, style: textStyle }], { direction: style.direction }) : null, bullet: null, children: [child], markerTag };
    }),
  };
}

/** `nodePath`: the table node's path (the spec's is `nodePath.table`); `tocLevels`: a toc's table, its lines' heading levels. */
function prepareTable(spec: BoundTableSpec, style: ComputedStyle, ctx: PrepareContext, nodePath: string, tocLevels?: readonly number[]): PTable {
  const path = `${nodePath}.table`;
  const padding = spec.cellPadding !== undefined ? toSides(spec.cellPadding) : toSides(4);
  const headerStyle = computeStyle(style, mergeProps(spec.headerStyle ?? { fontWeight: 'bold' }, ctx.styles));
  const footerStyle = spec.footerStyle ? computeStyle(style, mergeProps(spec.footerStyle, ctx.styles)) : style;
  const declared = spec.columns !== undefined;
  // Without `columns`, the table has as many as its longest row has cells (more if spans need them).
  let count = spec.columns?.length ?? 0;
  if (!declared) for (const rows of [spec.header, spec.rows, spec.footer]) for (const row of rows ?? []) count = Math.max(count, row.length);
  const sections = [
    { rows: spec.header ?? [], parent: headerStyle, background: headerStyle.backgroundColor, path: `${path}.header` },
    { rows: spec.rows, parent: style, background: null, path: `${path}.rows` },
    { rows: spec.footer ?? [], parent: footerStyle, background: spec.footerStyle ? footerStyle.backgroundColor : null, path: `${path}.footer` },
  ];
  // Tagged: Table > THead, TBody, TFoot > TR > TH (Scope Column) or TD; a toc's table: TOC > TOCI
  // per line, the line's text (its links) right in it, lower levels nested (tocItems).
  const table = ctx.tags ? (ctx.structParent ?? null) : null;
  const kinds = ['THead', 'TBody', 'TFoot'] as const;
  const [header, body, footer] = sections.map((s, k) => {
    const grid = new SectionGrid(count, declared);
    let rowTag: ((r: number) => StructNode) | null = null;
    if (table && s.rows.length > 0) {
      if (table.type === 'TOC') rowTag = tocItems(table, tocLevels ?? []);
      else {
        const section = structNode(kinds[k], table);
        rowTag = () => structNode('TR', section);
      }
    }
    const rows = prepareRows(s.rows, grid, s.parent, s.background, padding, ctx, s.path, rowTag, k === 0);
    return { rows, grid, s };
  });
  for (const part of [header, body, footer]) count = Math.max(count, part.grid.width);
  if (count > BOUNDS.span) throw new RenderError('LIMIT_EXCEEDED', `the table is wider than ${BOUNDS.span} columns`, path);
  const columns = spec.columns ?? [];
  return {
    kind: 'table',
    style,
    path: nodePath,
    columns: Array.from({ length: count }, (_, i) => columns[i] ?? '*'),
    header: fillHoles(header.rows, count, header.s.parent, header.s.background, padding, ctx),
    body: fillHoles(body.rows, count, style, null, padding, ctx),
    footer: fillHoles(footer.rows, count, footer.s.parent, footer.s.background, padding, ctx),
    borders: spec.borders ?? 'all',
    borderColor: color(spec.borderColor, DEFAULT_BORDER_COLOR),
    borderWidth: spec.borderWidth ?? 0.5,
    stripe: spec.stripe ? color(spec.stripe, [245, 245, 245]) : null,
  };
}

/** The grid's view of a bound cell: its spans, and whether it may be a placeholder. */
function gridEntry(node: BoundNode, props: StyleProps): GridEntry {
  const kind = node === EMPTY_STRING_CELL ? 'emptyString' : isEmptyCell(node) ? 'emptyObject' : 'cell';
  return { colSpan: props.colSpan ?? 1, rowSpan: props.rowSpan ?? 1, kind };
}

/** `{}`: a placeholder under a span, or (at a free position) an empty cell. */
function isEmptyCell(node: BoundNode): boolean {
  for (const _ in node) return false;
  return true;
}

/**
 * Place the cells of a section on the grid (template/table-grid.ts: spans, placeholders, cells
 * spanning from above) and prepare them.
 * `sectionBackground`: headerStyle/footerStyle's background, for cells without their own.
 * `rowTag`: when tagged, the element of row `r` (a TR, or a toc line's TOCI), asked once per row in order.
 * @throws RenderError TEMPLATE_INVALID (the cell's template path, `rows[1].row[2]` in an each, the
 *   message naming the data item the row was made from) for a row that does not fit the declared
 *   columns (validation finds this for literal rows; rows from each only show it here).
 */
function prepareRows(rows: BoundNode[][], grid: SectionGrid, parent: ComputedStyle, sectionBackground: RGB | null, padding: Sides, ctx: PrepareContext, path: string, rowTag: ((r: number) => StructNode) | null, head: boolean): PCell[][] {
  const flow = ctx.flow;
  const table = ctx.structParent;
  return rows.map((row, r) => {
    const tr = rowTag && rowTag(r);
    // The row as written in the template (`rows[1].row` for a row of an each), else its place.
    const rowPath = (row as KeptRow)[TEMPLATE_PATH] ?? `${path}[${r}]`;
    const props = row.map((node) => mergeProps(node, ctx.styles));
    const entries = row.map((node, i) => gridEntry(node, props[i]));
    let width = 0;
    for (const e of entries) {
      width += e.colSpan;
      // Row spans from rows made by each can push cells right: the grid stays within bounds.
      if (width > BOUNDS.span) throw new RenderError('LIMIT_EXCEEDED', `the table is wider than ${BOUNDS.span} columns${madeFrom(row)}`, rowPath);
    }
    const { placement, fault, rowSpans } = grid.row(entries, rows.length - r, true);
    if (fault) {
      const key = fault.key && row[fault.entry] && (row[fault.entry] as StyleProps)[fault.key] !== undefined ? `.${fault.key}` : '';
      throw new RenderError('TEMPLATE_INVALID', fault.message + madeFrom(row), `${rowPath}[${fault.entry}]${key}`);
    }
    if (placement.end > BOUNDS.span) {
      const i = entries.findIndex((e, k) => placement.cols[k] + e.colSpan > BOUNDS.span);
      throw new RenderError('LIMIT_EXCEEDED', `the table is wider than ${BOUNDS.span} columns${madeFrom(row)}`, `${rowPath}[${i}]`);
    }
    const cells: PCell[] = [];
    const forks: PageEstimate[] = [];
    row.forEach((node, i) => {
      const col = placement.cols[i];
      if (col < 0) return; // a placeholder under a span
      const cellProps = props[i];
      const cellStyle = computeStyle(parent, cellProps);
      const rowSpan = rowSpans[i];
      // The cells of a row run beside each other (a page break inside one does not count); a cell
      // spanning rows shares its height with the rows below, so it is left out of the page estimate.
      ctx.flow = flow && rowSpan === 1 ? flow.fork(false) : null;
      if (ctx.flow) forks.push(ctx.flow);
      const tag = tr ? (tr.type === 'TOCI' ? tr : cellTag(tr, head, entries[i].colSpan, rowSpan)) : undefined;
      ctx.structParent = tag ?? table;
      // A cell holding just a paragraph: its text goes straight in the cell (no P of its own).
      const direct = tag !== undefined && 'text' in node && node.role === undefined && node.lang === undefined && headingOfStyles(node.style) === null;
      // The cell owns padding and background; its content is laid out bare.
      let content: PNode;
      const noBreaks = ctx.noBreaks;
      ctx.noBreaks = true;
      try {
        content = isEmptyCell(node) ? emptyText(cellStyle, ctx) : direct ? prepareUntagged(node, parent, ctx, templatePath(node, `${rowPath}[${i}]`)) : prepareNode(node, parent, ctx, `${rowPath}[${i}]`);
      } catch (e) {
        const item = (row as KeptRow)[ROW_ITEM];
        throw item !== undefined && e instanceof RenderError ? madeFromItem(e, item, 'row') : e;
      } finally {
        ctx.noBreaks = noBreaks;
      }
      // (a new object, not a copy: thousands of cells)
      if (direct) (content as { tag?: ItemTag }).tag = tag;
      ctx.flow = flow;
      ctx.structParent = table;
      const bare = bareStyle(content.style);
      cells.push({
        col,
        colSpan: entries[i].colSpan,
        rowSpan,
        // A cell's borderRadius rounds its fill; its content is not positioned (no absolute cells).
        node: cellNode(bare === content.style ? content : ({ ...content, style: bare } as PNode)),
        radius: cellStyle.box?.radius || undefined,
        background: cellProps.backgroundColor !== undefined ? cellStyle.backgroundColor : sectionBackground,
        padding: cellProps.padding !== undefined ? cellStyle.padding : padding,
        verticalAlign: cellStyle.verticalAlign,
        // (a toc line's cells have no element of their own: fillHoles leaves its TOCI alone)
        tag: tag === tr ? undefined : tag,
      });
    });
    flow?.join(forks);
    return cells;
  });
}

/**
 * For the message of a fault of a row made by `each`: the data item it was made from
 * (`; the row is made from data.items[7]`); '' for other rows.
 */
function madeFrom(row: readonly BoundNode[]): string {
  const item = (row as KeptRow)[ROW_ITEM];
  return item === undefined ? '' : `; the row is made from ${itemText(item)}`;
}

/** A data item an each made something from: `data.items[7]`, or `item 7 of its each` when its list is not in the data. */
function itemText(item: RowItem): string {
  return item.array === null ? `item ${item.index} of its each` : dataPathText([...item.array, item.index]);
}

/**
 * The TOCI of each line of a toc's table, asked for in line order (`levels`: the lines' heading
 * levels): a line goes in the TOC nested in the TOCI of the nearest line above it of a higher
 * level (h1 over h2; one such TOC per TOCI, made with its first line), else in the toc's own TOC
 * (ISO 32000-1 14.8.4.3.3: a TOCI may hold a nested TOC).
 */
function tocItems(toc: StructNode, levels: readonly number[]): (line: number) => StructNode {
  // The lines a later line may come under, outermost first (their level numbers rising).
  const open: { level: number; item: StructNode; nested: StructNode | null }[] = [];
  return (line) => {
    const level = levels[line] ?? 1;
    while (open.length > 0 && open[open.length - 1].level >= level) open.pop();
    const above = open.at(-1);
    const item = structNode('TOCI', above ? (above.nested ??= structNode('TOC', above.item)) : toc, { keep: true });
    open.push({ level, item, nested: null });
    return item;
  };
}

/** A table cell's element: TH with Scope Column in the header, else TD; spans as attributes. */
function cellTag(tr: StructNode, head: boolean, colSpan: number, rowSpan: number): StructNode {
  return tableCell(head ? 'TH' : 'TD', tr, head ? 'Column' : undefined, colSpan > 1 ? colSpan : undefined, rowSpan > 1 ? rowSpan : undefined);
}

/** A cell's content: laid out in the cell's flow, its radius drawn by the cell. */
function cellNode(node: PNode): PNode {
  const lay = node.layout;
  if (lay === undefined || (lay.absolute === null && lay.radius === 0)) return node;
  return { ...node, layout: { ...lay, absolute: null, radius: 0 } };
}

/** An empty paragraph in `style` (an empty cell, a hole filled at a row's end). */
function emptyText(style: ComputedStyle, ctx: PrepareContext): PText {
  return { kind: 'text', style: bareStyle(style), para: prepareParagraph([{ text: '', style: ctx.textStyles.of(style) }]), path: '' };
}

/**
 * Every grid position that no cell of a row occupies and no rowSpan from above covers (a row
 * shorter than the table) gets an empty cell, so that borders and stripes cover the whole grid.
 */
function fillHoles(rows: PCell[][], columns: number, parent: ComputedStyle, background: RGB | null, padding: Sides, ctx: PrepareContext): PCell[][] {
  const covered: number[] = new Array(columns).fill(0);
  let empty: PText | null = null;
  return rows.map((cells) => {
    const taken: boolean[] = new Array(columns).fill(false);
    for (let c = 0; c < columns; c++) if (covered[c] > 0) taken[c] = true;
    for (const cell of cells) {
      for (let c = cell.col; c < cell.col + cell.colSpan && c < columns; c++) {
        taken[c] = true;
        covered[c] = Math.max(covered[c], cell.rowSpan);
      }
    }
    let out = cells;
    const tr = cells.find((cell) => cell.tag)?.tag?.parent ?? null;
    for (let c = 0; c < columns; c++) {
      if (taken[c]) continue;
      if (out === cells) out = cells.slice();
      empty ??= emptyText(parent, ctx);
      const tag = tr ? tableCell(tr.children[0].type as 'TH' | 'TD', tr, tr.children[0].attrs.scope, undefined, undefined) : undefined;
      out.push({ col: c, colSpan: 1, rowSpan: 1, node: empty, background, padding, verticalAlign: 'baseline', tag });
    }
    if (out !== cells) {
      out.sort((a, b) => a.col - b.col);
      if (tr) {
        tr.children.length = 0;
        for (const cell of out) if (cell.tag) tr.children.push(cell.tag);
      }
    }
    for (let c = 0; c < columns; c++) if (covered[c] > 0) covered[c]--;
    return out;
  });
}
