/**
 * Types of the template DSL, version 1 (DESIGN §5).
 *
 * Two families live here:
 * - `Template` / `Node`: a definition as the author writes it (after validation by `schema.ts`).
 * - `BoundNode`: the same tree after data binding (`bind.ts`): every `{{placeholder}}` substituted,
 *   every `each` and `if` expanded. Layout only ever sees bound nodes.
 *
 * Units are PDF points (1/72 in) throughout.
 */

/** `[top, right, bottom, left]` after normalisation; authors may also write a number or `[v, h]`. */
export type SidesInput = number | [number, number] | [number, number, number, number];

/** A border on one side: width in points, colour as `#rgb`, `#rrggbb` or a CSS name. */
export interface BorderSide {
  width?: number;
  color?: string;
}

/** `border`: one spec for all four sides, or per side. */
export type BorderInput = BorderSide | { top?: BorderSide; right?: BorderSide; bottom?: BorderSide; left?: BorderSide };

/** Style properties shared by every node (DESIGN §5 "Style properties"). */
export interface StyleProps {
  /** Name in the template's `styles`, or a list of names applied in order. */
  style?: string | string[];
  /** A family, or a stack tried in order per character; the bundled fallbacks end every stack. */
  fontFamily?: string | string[];
  fontSize?: number;
  fontWeight?: 'normal' | 'bold' | number;
  fontStyle?: 'normal' | 'italic';
  color?: string;
  backgroundColor?: string;
  /** `start` (the default) and `end` follow the paragraph's direction: start is right in rtl text. */
  textAlign?: 'start' | 'end' | 'left' | 'right' | 'center' | 'justify';
  /** Multiple of the font size. */
  lineHeight?: number;
  textDecoration?: 'none' | 'underline' | 'line-through';
  direction?: 'ltr' | 'rtl' | 'auto';
  /** Extra space after every character, in points (may be negative). */
  letterSpacing?: number;
  /** OpenType features to turn on, e.g. ["tnum"] (tabular figures), ["smcp"] (small caps). */
  fontFeatures?: string[];
  /** Hyphenate justified text in the template's language. Default true for justified text. */
  hyphenate?: boolean;
  /**
   * Language of the node's text (BCP 47: "de", "de-CH"), inherited by what it contains: the
   * hyphenation patterns of justified text and the locale of the number, currency and date
   * filters inside it. Default: the template's metadata.language. Not in named styles.
   */
  lang?: string;
  /**
   * What the node is in the tagged PDF's structure: a heading (`h1`..`h6`), a paragraph, a
   * figure, a caption, a note, or `artifact` (decoration, left out of the structure). Default: by
   * kind (text is a paragraph, or a heading when its style is named h1..h6). Not in named styles.
   */
  role?: 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6' | 'p' | 'figure' | 'caption' | 'note' | 'artifact';
  /** A name internal links (`"link": "#id"`) go to; written out, not in named styles or spans. */
  id?: string;
  margin?: SidesInput;
  padding?: SidesInput;
  border?: BorderInput;
  keepTogether?: boolean;
  /** Keep this block on the same page as the start of the next one (headings). */
  keepWithNext?: boolean;
  /** Fewest lines of a paragraph left alone at the top of a page. Default 2. */
  widows?: number;
  /** Fewest lines of a paragraph left alone at the bottom of a page. Default 2. */
  orphans?: number;
  breakBefore?: 'page' | 'auto';
  /** Border-box width in points (image and barcode: the size of the picture or bars, as before). */
  width?: number;
  /** Border-box height in points: the box is exactly this tall; content beyond it is cut off. */
  height?: number;
  /** `absolute`: taken out of the flow and placed by top/right/bottom/left. Default `static`. */
  position?: 'static' | 'absolute';
  /** What an absolute box's offsets are measured from: the page's edges (default) or the parent box's content edges. */
  relativeTo?: 'page' | 'parent';
  top?: number;
  right?: number;
  bottom?: number;
  left?: number;
  /** Degrees clockwise about the box's centre; the box keeps its place in the flow. */
  rotate?: number;
  /** 0 (invisible) to 1 (opaque, the default): every fill and stroke of the box. */
  opacity?: number;
  /** Corner radius of the box's background and border (an image: its clip), points. */
  borderRadius?: number;
  /** pageBreak `before`: start on a new page; `after`: what follows starts on a new page; `avoid`: no break inside nor right after it. */
  pageBreak?: 'before' | 'after' | 'avoid' | true;
  /** Only in table cells. */
  colSpan?: number;
  rowSpan?: number;
  /**
   * Vertical alignment inside a table cell: `baseline` (the default) lines the first baseline of
   * the cell's text up with the other baseline cells of its row; `top`, `middle`, `bottom`.
   */
  verticalAlign?: 'top' | 'middle' | 'bottom' | 'baseline';
}

/** A condition of `if` (DESIGN §5): a data path (truthy) or a combinator. */
export type Condition =
  | string
  | { not: Condition }
  | { and: Condition[] }
  | { or: Condition[] }
  | { eq: [string, unknown] }
  | { ne: [string, unknown] }
  | { gt: [string, unknown] }
  | { gte: [string, unknown] }
  | { lt: [string, unknown] }
  | { lte: [string, unknown] };

/** An inline piece of a text node: a plain string or a styled span (spans nest). */
export type Inline = string | InlineSpan;
/** The box properties of StyleProps (size, position, transform), which inline spans do not have. */
export type BoxPropKey = 'id' | 'width' | 'height' | 'position' | 'relativeTo' | 'top' | 'right' | 'bottom' | 'left' | 'rotate' | 'opacity' | 'borderRadius';
export interface InlineSpan extends Omit<StyleProps, 'role' | BoxPropKey> {
  text: string | Inline[];
  link?: string;
}

export interface TextNode extends StyleProps {
  text: string | Inline[];
  link?: string;
  /** `shrink`: a smaller font size (down to minFontSize) instead of breaking a word or overflowing a fixed height. */
  fit?: 'shrink';
  /** Smallest size `fit: "shrink"` goes down to, points. Default 4. */
  minFontSize?: number;
}
export interface ImageNode extends StyleProps {
  /** A data URI (PNG or JPEG) or a placeholder that yields one. */
  image: string;
  width?: number;
  height?: number;
  /** How the image fills a box given by both width and height. Default "contain". */
  fit?: 'contain' | 'cover' | 'fill';
  /** Horizontal position of the image inside its block. Default: the resolved textAlign. */
  align?: 'left' | 'center' | 'right';
  /** Text alternative for readers who cannot see it; "" marks decoration. Required under PDF/UA. */
  alt?: string;
}
/** A column width: points, "auto" (content), "*" or "N*" (a share of what is left). */
export type ColumnWidth = number | 'auto' | `${number}*` | '*';
/**
 * A table cell: a string or a node. `{}` (and a literal `""`) may stand at a position a colSpan or
 * rowSpan covers, as pdfmake requires (template/table-grid.ts); elsewhere it is an empty cell.
 */
export type TableCell = string | Node | EmptyCell;
/** `{}`: a placeholder under a span, or an empty cell. */
export type EmptyCell = Record<string, never>;
export type TableRow = TableCell[];
/** A template table row: a literal row, or `each` over an array producing one row per item. */
export type TableRowTemplate = TableRow | { each: string; as?: string; row: TableRow } | { if: Condition; then?: TableRowTemplate[]; else?: TableRowTemplate[] };
export interface TableSpec {
  columns?: ColumnWidth[];
  header?: TableRow[];
  rows: TableRowTemplate[];
  footer?: TableRow[];
  /** Default "all". */
  borders?: 'all' | 'horizontal' | 'outer' | 'none';
  borderColor?: string;
  borderWidth?: number;
  /** Background of every second body row. */
  stripe?: string;
  /** Default 4. */
  cellPadding?: SidesInput;
  /** Style applied to header cells (default: bold). */
  headerStyle?: StyleProps;
  footerStyle?: StyleProps;
}
export interface TableNode extends StyleProps {
  table: TableSpec;
}
export interface ColumnSpec {
  width?: ColumnWidth;
  content: Node[];
}
export interface ColumnsNode extends StyleProps {
  columns: ColumnSpec[];
  /** Space between columns. Default 12. */
  gap?: number;
}
export interface StackNode extends StyleProps {
  stack: Node[];
}
export type ListMarker = 'disc' | 'circle' | 'square' | 'decimal' | 'lower-alpha' | 'upper-alpha' | 'lower-roman' | 'upper-roman' | 'none';
export interface ListNode extends StyleProps {
  list: (string | Node)[];
  marker?: ListMarker;
  start?: number;
}
export interface QrCodeNode extends StyleProps {
  qrcode: string;
  /** Side of the square in points. Default 80. */
  size?: number;
  errorCorrection?: 'L' | 'M' | 'Q' | 'H';
  /** Text alternative (what the code holds, for readers); "" marks decoration. Required under PDF/UA. */
  alt?: string;
}
export interface BarcodeNode extends StyleProps {
  barcode: string;
  /** A bwip-js symbology id: code128 (default), ean13, upca, code39, itf14, datamatrix, pdf417, ... */
  format?: string;
  /** Bar height in points. Default 40. */
  height?: number;
  /** Total width in points. Default: natural width. */
  width?: number;
  /** Print the human-readable value under the bars. Default true for linear codes. */
  showText?: boolean;
  /** Text alternative (what the code holds, for readers); "" marks decoration. Required under PDF/UA. */
  alt?: string;
}
export interface LineNode extends StyleProps {
  line: { thickness?: number; color?: string; length?: number; dash?: number[] };
}
export interface SpacerNode extends StyleProps {
  spacer: number;
}
export interface PageBreakNode extends StyleProps {
  pageBreak: true;
}
export interface EachNode extends StyleProps {
  each: string;
  /** Alias of the current item. Default "item". */
  as?: string;
  content: Node[];
}
export interface IfNode extends StyleProps {
  if: Condition;
  then?: Node[];
  else?: Node[];
}

/** A template node: exactly one kind key plus style properties. */
export type Node =
  | TextNode
  | ImageNode
  | TableNode
  | ColumnsNode
  | StackNode
  | ListNode
  | QrCodeNode
  | BarcodeNode
  | LineNode
  | SpacerNode
  | PageBreakNode
  | EachNode
  | IfNode
  | TocNode;

/** A table of contents: the headings (down to `levels`, default 3) with their page numbers. */
export interface TocNode extends StyleProps {
  toc: { levels?: number };
}

export type PageSize = 'A3' | 'A4' | 'A5' | 'A6' | 'B5' | 'Letter' | 'Legal' | 'Tabloid' | [number, number];

export interface PageSpec {
  size?: PageSize;
  orientation?: 'portrait' | 'landscape';
  margin?: SidesInput;
}

export interface FontSpec {
  family?: string | string[];
  size?: number;
  color?: string;
  lineHeight?: number;
}

export interface Metadata {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  /** BCP 47 tag; also the locale of number, currency and date filters. */
  language?: string;
}

/**
 * A watermark drawn on every page: text (one line) or an image, centred, rotated and translucent,
 * behind the content (over the background) or in front of everything.
 */
export interface WatermarkSpec {
  /** The text (1 to 100 characters, no placeholders). */
  text?: string;
  /** The image source (no placeholders). */
  image?: string;
  /** Text colour. Default #808080. */
  color?: string;
  fontFamily?: string | string[];
  /** Default bold. */
  fontWeight?: 'normal' | 'bold' | number;
  /** Text size in points. Default: as large as the page's diagonal allows. */
  fontSize?: number;
  /** Image width in points. Default: half the page's width. */
  width?: number;
  /** Default 0.15. */
  opacity?: number;
  /** Degrees clockwise. Default: text along the diagonal from the bottom-left corner, images 0. */
  rotate?: number;
  /** Default "behind" (over the background, under the content). */
  layer?: 'behind' | 'front';
}

/** A validated template definition (DESIGN §5 root). */
export interface Template {
  /** Drawn on every page (text or image). */
  watermark?: WatermarkSpec;
  /** The JSON Schema an editor should check the file against (a URL); ignored by the engine. */
  $schema?: string;
  /**
   * Data the template reads must be there: `checkData` reports every data path its placeholders
   * (without a `default` filter) and `each` read that the data lacks, and a render fails with
   * DATA_INVALID on them, instead of printing them empty with DATA_MISSING warnings.
   */
  strict?: boolean;
  /** Write a tagged PDF (structure tree, marked content). Default true. */
  tagged?: boolean;
  /** Claim and meet PDF/UA-1 unless the request says otherwise (its `pdf_ua`). Default false. */
  pdfUa?: boolean;
  page?: PageSpec;
  font?: FontSpec;
  styles?: Record<string, StyleProps>;
  metadata?: Metadata;
  header?: Node[];
  footer?: Node[];
  background?: Node[];
  content: Node[];
}

// ---------------------------------------------------------------------------------------------
// Bound nodes: output of bind.ts, input of layout. No each/if; strings final.

export type BoundInline = string | BoundInlineSpan;
export interface BoundInlineSpan extends StyleProps {
  text: string | BoundInline[];
  link?: string;
}
export interface BoundTableSpec extends Omit<TableSpec, 'rows' | 'header' | 'footer'> {
  header?: BoundNode[][];
  rows: BoundNode[][];
  footer?: BoundNode[][];
}
/** Bound table cells are always nodes: a plain string cell becomes `{text: "..."}`. */
export type BoundNode =
  | (StyleProps & { text: string | BoundInline[]; link?: string; fit?: 'shrink'; minFontSize?: number })
  | ImageNode
  | (StyleProps & { table: BoundTableSpec })
  | (StyleProps & { columns: { width?: ColumnWidth; content: BoundNode[] }[]; gap?: number })
  | (StyleProps & { stack: BoundNode[] })
  | (StyleProps & { list: BoundNode[]; marker?: ListMarker; start?: number })
  | QrCodeNode
  | BarcodeNode
  | LineNode
  | SpacerNode
  | PageBreakNode
  | TocNode;

/** Page context for `$page` and `$pages`, known only in header, footer and background. */
export interface PageContext {
  page: number;
  pages: number;
}

/** Options of binding. */
export interface BindOptions {
  /** Value of `$now`. */
  now: Date;
  /** Locale of number, currency and date filters (the template's metadata.language). Default "en". */
  language?: string;
  /** Set when binding header, footer and background. */
  page?: PageContext;
}

/** One fault found by validation: a JSON path such as `content[2].table.rows[0][1]` and a sentence. */
export interface TemplateIssue {
  path: string;
  message: string;
}

/** A data path read by a template, as the caller's data must have it: `customer.name`, `items[].qty`. */
export interface TemplateField {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'array' | 'object' | 'image' | 'date' | 'unknown';
}
