/**
 * The data that flows between layout passes:
 *   BoundNode --prepare--> PNode (styled, text shaped; width-independent)
 *   PNode --measure(width)--> Box (lines broken, heights known; page-independent)
 *   Box --paginate--> Page (absolute DrawItems; what paint/ draws)
 * All lengths are points; y grows downwards from the page's top-left corner.
 */
import type { ColumnWidth } from '../template/types.ts';
import type { Line, LineRun, ParagraphOptions, PreparedParagraph, RGB, StyledText, TextStyle } from '../text/paragraph.ts';
import type { ItemTag, StructNode } from '../tags/struct.ts';
import type { Borders, ComputedStyle, Sides } from './style.ts';

/**
 * A decoded image, shared by every use of the same source within the process: a raster image
 * (PNG, JPEG) or an SVG document (drawn as vectors; layout/svg.ts cleaned it and gave its root
 * width and height in points and a viewBox).
 */
export interface DecodedImage {
  readonly type: 'png' | 'jpeg' | 'svg';
  readonly data: Buffer;
  /** Pixel size as shown (raster: a JPEG's EXIF orientation applied), or size in points (SVG). */
  readonly width: number;
  readonly height: number;
  /** SVG: how many elements the document holds. */
  readonly elements?: number;
}

/** A barcode as filled rectangles in module units: [x, y, w, h, x, y, w, h, ...]. */
export interface VectorCode {
  readonly rects: readonly number[];
  readonly unitsWide: number;
  readonly unitsHigh: number;
}

// ---------------------------------------------------------------------------------------------
// Prepared nodes.

interface PBase {
  readonly style: ComputedStyle;
  /** The node's structure element in a tagged PDF (engine/tags/struct.ts), or artifact. */
  readonly tag?: ItemTag;
  /** Fixed size, position, rotation, opacity or rounded corners, when the node has any. */
  readonly layout?: BoxLayout;
  /** A link destination (the node's `id`), and the heading it is, if any. */
  readonly anchor?: Anchor;
}

/** Where internal links and the outline go: a node's id, and its heading level and title when it is one. */
export interface Anchor {
  readonly id: string;
  readonly heading: { readonly level: number; readonly title: string } | null;
}
export interface PText extends PBase {
  readonly kind: 'text';
  readonly para: PreparedParagraph;
  /** `fit: "shrink"`: what to shape again at a smaller size, down to `min` points. */
  readonly shrink?: ShrinkSource & { readonly min: number; readonly path: string };
  /** Template path of the node, for warnings (CONTENT_OVERFLOW). */
  readonly path: string;
}

/** The styled runs a paragraph was prepared from, to prepare it again at another size. */
export interface ShrinkSource {
  readonly runs: readonly StyledText[];
  readonly options: ParagraphOptions;
}

/**
 * The layout properties of a node (template: width, height, position, rotate, opacity,
 * borderRadius), carried from the prepared node to its box.
 */
export interface BoxLayout {
  /** Template path of the node, for warnings. */
  readonly path: string;
  /** Border-box width and height, points (images and codes size themselves). */
  readonly width: number | null;
  readonly height: number | null;
  /** Offsets of an absolutely positioned box (null: not given). */
  readonly absolute: { readonly relativeTo: 'page' | 'parent'; readonly top: number | null; readonly right: number | null; readonly bottom: number | null; readonly left: number | null } | null;
  /** Degrees, clockwise about the box's centre. */
  readonly rotate: number;
  /** 0..1; 1 is opaque. */
  readonly opacity: number;
  /** Corner radius of background, border and (images) the picture, points. */
  readonly radius: number;
}

/**
 * Where an absolutely positioned box goes (its border box's top-left corner), resolved when it
 * is measured: on the page (`page`), or from its parent's content box. `y` null: where the flow
 * is (no top or bottom given), or `bottom` from the parent's bottom edge when that was unknown.
 */
export interface AbsolutePlace {
  readonly page: boolean;
  readonly x: number;
  readonly y: number | null;
  readonly bottom: number | null;
}
export interface PImage extends PBase {
  readonly kind: 'image';
  /** Template path of the node, for warnings. */
  readonly path: string;
  readonly image: DecodedImage;
  readonly width?: number;
  readonly height?: number;
  readonly fit: 'contain' | 'cover' | 'fill';
  readonly align: 'left' | 'center' | 'right';
}
export interface PCode extends PBase {
  readonly kind: 'code';
  readonly symbol: 'qrcode' | 'barcode';
  /** Template path of the node, for warnings. */
  readonly path: string;
  readonly code: VectorCode;
  /** Size of the bars area in points; width undefined = natural (module size 1pt... scaled to height). */
  readonly width: number;
  readonly height: number;
  readonly caption: PreparedParagraph | null;
  readonly align: 'left' | 'center' | 'right';
}
export interface PRule extends PBase {
  readonly kind: 'line';
  readonly thickness: number;
  readonly color: RGB;
  readonly length?: number;
  readonly dash?: readonly number[];
}
export interface PSpacer extends PBase {
  readonly kind: 'spacer';
  readonly size: number;
}
export interface PPageBreak extends PBase {
  readonly kind: 'pageBreak';
}
export interface PStack extends PBase {
  readonly kind: 'stack';
  readonly children: readonly PNode[];
}
export interface PColumns extends PBase {
  readonly kind: 'columns';
  /** Template path of the node, for warnings. */
  readonly path: string;
  readonly columns: readonly { readonly width: ColumnWidth; readonly children: readonly PNode[] }[];
  readonly gap: number;
}
/** A list bullet drawn as a vector shape (fonts seldom have ◦ and ▪), in the list's text style. */
export interface Bullet {
  readonly shape: 'disc' | 'circle' | 'square';
  readonly style: TextStyle;
}
export interface PListItem {
  /** The marker text (numbered lists), or null for bullets and for an item that is itself a nested list. */
  readonly marker: PreparedParagraph | null;
  readonly bullet: Bullet | null;
  readonly children: readonly PNode[];
  /** The marker's structure element (Lbl) in a tagged PDF. */
  readonly markerTag?: StructNode;
}
export interface PList extends PBase {
  readonly kind: 'list';
  readonly items: readonly PListItem[];
}
export interface PCell {
  /** First grid column and row (within its section) the cell occupies. */
  readonly col: number;
  readonly colSpan: number;
  readonly rowSpan: number;
  readonly node: PNode;
  readonly background: RGB | null;
  readonly padding: Sides;
  readonly verticalAlign: 'top' | 'middle' | 'bottom' | 'baseline';
  /** Corner radius of the cell's fill and (borders "all") its border, points (absent: square). */
  readonly radius?: number;
  /** The cell's structure element (TH, TD) in a tagged PDF. */
  readonly tag?: StructNode;
}
export interface PTable extends PBase {
  readonly kind: 'table';
  /** Template path of the node, for warnings. */
  readonly path: string;
  readonly columns: readonly ColumnWidth[];
  readonly header: readonly (readonly PCell[])[];
  readonly body: readonly (readonly PCell[])[];
  readonly footer: readonly (readonly PCell[])[];
  readonly borders: 'all' | 'horizontal' | 'outer' | 'none';
  readonly borderColor: RGB;
  readonly borderWidth: number;
  readonly stripe: RGB | null;
}
export type PNode = PText | PImage | PCode | PRule | PSpacer | PPageBreak | PStack | PColumns | PList | PTable;

// ---------------------------------------------------------------------------------------------
// Measured boxes.

/** Padding, border and background around a box's content. */
export interface Frame {
  readonly padding: Sides;
  readonly border: Borders | null;
  readonly background: RGB | null;
  /** Corner radius of background and border, points (0 or absent: square). */
  readonly radius?: number;
}

interface BoxBase {
  /** Offset from the containing block's left edge (the left margin). */
  readonly x: number;
  /** Border-box width and height (content + padding + border; margins excluded). */
  readonly width: number;
  readonly height: number;
  readonly marginTop: number;
  readonly marginBottom: number;
  readonly keepTogether: boolean;
  /** Stay on the page where the next sibling starts. */
  readonly keepWithNext?: boolean;
  readonly breakBefore: boolean;
  /** What follows it starts on a new page (pageBreak "after"; a stack also when its last child has it). */
  readonly breakAfter?: boolean;
  readonly frame: Frame | null;
  /** What the box's draw items belong to in a tagged PDF (from its prepared node). */
  readonly tag?: ItemTag;
  /** Layout properties of its node (fixed size, rotation, opacity, radius), when it has any. */
  readonly layout?: BoxLayout;
  /** Set on an absolutely positioned box: it takes no room in the flow (outerHeight 0). */
  readonly absolute?: AbsolutePlace;
  /** Its content is taller than its fixed height: drawn clipped to the box. */
  readonly overflows?: boolean;
  /** Its node's id (and heading): an `anchor` item at its top-left corner where its first part is placed. */
  readonly anchor?: Anchor;
}
export interface TextBox extends BoxBase {
  readonly kind: 'text';
  readonly lines: readonly Line[];
  /** Fewest lines left at the top of the next page, and at the bottom of this one, when cut. */
  readonly widows: number;
  readonly orphans: number;
}
export interface StackBox extends BoxBase {
  readonly kind: 'stack';
  readonly children: readonly Box[];
}
export interface ColumnsBox extends BoxBase {
  readonly kind: 'columns';
  readonly cols: readonly { readonly x: number; readonly width: number; readonly children: readonly Box[] }[];
  /** The columns start in the same region: when one of them can place nothing there, none is placed (a list item's marker and its first line). */
  readonly startTogether?: boolean;
}
export interface ImageBox extends BoxBase {
  readonly kind: 'image';
  readonly image: DecodedImage;
  /** Where the image is drawn relative to the content box, and the visible window (cover crops). */
  readonly draw: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly clip: boolean;
  /** Template path of the image's node, for errors while drawing it. */
  readonly path: string;
}
export interface CodeBox extends BoxBase {
  readonly kind: 'code';
  readonly code: VectorCode;
  readonly barsX: number;
  readonly barsWidth: number;
  readonly barsHeight: number;
  readonly color: RGB;
  readonly caption: readonly Line[];
}
export interface RuleBox extends BoxBase {
  readonly kind: 'line';
  readonly thickness: number;
  readonly color: RGB;
  readonly length: number;
  readonly dash?: readonly number[];
}
export interface BulletBox extends BoxBase {
  readonly kind: 'bullet';
  readonly shape: Bullet['shape'];
  /** Centre relative to the box's top-left corner, and the shape's size (diameter or side). */
  readonly cx: number;
  readonly cy: number;
  readonly size: number;
  readonly color: RGB;
}
export interface SpacerBox extends BoxBase {
  readonly kind: 'spacer';
}
export interface BreakBox extends BoxBase {
  readonly kind: 'pageBreak';
}
/** A measured table cell; it starts in the row that holds it and covers `rowSpan` rows. */
export interface MCell {
  /** First grid column. */
  readonly col: number;
  readonly colSpan: number;
  /** Rows covered from the row that holds it (a cell continued on a new page: the rows left). */
  readonly rowSpan: number;
  /** Left edge from the table's left edge, and width (the columns spanned). */
  readonly x: number;
  readonly width: number;
  readonly content: Box;
  /** Background: the cell's own, else the stripe of the body row it started in, else none. */
  readonly fill: RGB | null;
  readonly padding: Sides;
  readonly verticalAlign: 'top' | 'middle' | 'bottom' | 'baseline';
  /** Corner radius of the cell's fill and (borders "all") its border, points (absent: square). */
  readonly radius?: number;
  /** Space above the content that aligns its first baseline with the row's (verticalAlign baseline). */
  readonly shift: number;
}
export interface MRow {
  readonly height: number;
  /** The cells that start in this row, in column order. */
  readonly cells: readonly MCell[];
}
export interface TableBox extends BoxBase {
  readonly kind: 'table';
  readonly header: readonly MRow[];
  readonly body: readonly MRow[];
  readonly footer: readonly MRow[];
  readonly borders: 'all' | 'horizontal' | 'outer' | 'none';
  readonly borderColor: RGB;
  readonly borderWidth: number;
  /** This box continues a table split on an earlier page. */
  readonly continued: boolean;
}
export type Box = TextBox | StackBox | ColumnsBox | ImageBox | CodeBox | RuleBox | SpacerBox | BreakBox | TableBox | BulletBox;

// ---------------------------------------------------------------------------------------------
// Draw items: absolute positions on a page.

export type DrawItem = DrawItemKind & {
  /**
   * The structure element (engine/tags/struct.ts) the item is content of, or artifact; set by
   * the paginate pass from the innermost tagged box. Untagged items of a tagged PDF are artifacts.
   */
  tag?: ItemTag;
};

/** The draw items by kind (without their tag). */
export type DrawItemKind =
  /** A glyph run; `y` is the baseline. */
  | { readonly kind: 'text'; readonly x: number; readonly y: number; readonly run: LineRun; /** The line the run is part of (its logical text, for extraction). */ readonly line?: Line }
  /** A rectangle; `radius` (points, absent or 0: square corners) rounds its corners. */
  | { readonly kind: 'rect'; readonly x: number; readonly y: number; readonly w: number; readonly h: number; readonly fill: RGB | null; readonly stroke: RGB | null; readonly lineWidth: number; readonly radius?: number }
  | { readonly kind: 'line'; readonly x1: number; readonly y1: number; readonly x2: number; readonly y2: number; readonly color: RGB; readonly width: number; readonly dash?: readonly number[] }
  /** An image; `clip` is the visible window (cover crops it; `radius` rounds its corners); `path` the template path of its node, for errors while drawing it. */
  | { readonly kind: 'image'; readonly x: number; readonly y: number; readonly w: number; readonly h: number; readonly image: DecodedImage; readonly clip: ClipRect | null; readonly path?: string }
  /** Filled rectangles in a code's module units ([x, y, w, h, ...], shared by every render of it), drawn scaled by sx, sy and moved to x, y. */
  | { readonly kind: 'bars'; readonly rects: readonly number[]; readonly x: number; readonly y: number; readonly sx: number; readonly sy: number; readonly color: RGB }
  /**
   * Draws nothing: a link destination named `id` at (x, y) (the top-left corner of the node with
   * that id), and an outline (bookmark) entry when `heading` is set. Raster backends skip it.
   */
  | { readonly kind: 'anchor'; readonly x: number; readonly y: number; readonly id: string; readonly heading: { readonly level: number; readonly title: string } | null }
  /** A list bullet: a filled disc, a stroked circle or a filled square centred on (cx, cy). */
  | { readonly kind: 'shape'; readonly shape: 'disc' | 'circle' | 'square'; readonly cx: number; readonly cy: number; readonly size: number; readonly color: RGB }
  /**
   * Items drawn through a transform [a, b, c, d, e, f] (PDF `cm`: a point (x, y) of the items is
   * drawn at (a x + c y + e, b x + d y + f)), at an opacity 0..1 of every fill and stroke (null:
   * opaque), inside `clip` (given in the items' coordinates, i.e. applied after the transform;
   * absent: none). Watermarks, rotated, translucent and fixed-height boxes.
   */
  | { readonly kind: 'group'; readonly matrix: readonly [number, number, number, number, number, number]; readonly opacity: number | null; readonly clip?: ClipRect | null; readonly items: readonly DrawItem[] };

/** A clipping rectangle, points, with rounded corners of `radius` (absent or 0: square). */
export interface ClipRect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly radius?: number;
}

/** One laid-out page. */
export interface Page {
  readonly width: number;
  readonly height: number;
  readonly items: DrawItem[];
}
