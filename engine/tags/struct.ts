/**
 * The logical structure of a tagged PDF, built from the template's own structure while the
 * prepare pass walks it (engine/layout/prepare.ts), in template order: that order is the reading
 * order, whatever order the paint pass draws in. Each prepared node, and each box and draw item
 * made from it, carries a reference to its element (`tag`); the paint pass
 * (engine/paint/tagging.ts) marks the content of each element and writes the tree.
 *
 * Nothing here knows pdfkit: an element is a plain object with its standard structure type
 * (ISO 32000-1 14.8.4), its attributes and its children.
 */
import { RenderError } from '../errors.ts';

/** The standard structure types Platen writes. */
export type StructType =
  | 'Document' | 'Part' | 'Sect' | 'Div'
  | 'P' | 'H1' | 'H2' | 'H3' | 'H4' | 'H5' | 'H6' | 'Caption' | 'Note'
  | 'L' | 'LI' | 'Lbl' | 'LBody'
  | 'Table' | 'THead' | 'TBody' | 'TFoot' | 'TR' | 'TH' | 'TD'
  | 'TOC' | 'TOCI'
  | 'Figure' | 'Link' | 'Span';

/** What an element says beyond its type; most elements have none (one shared empty object). */
export interface StructAttrs {
  /** Alternate description (Figure): the template's `alt`. */
  readonly alt?: string;
  /** Language of the element when it differs from its parent's (BCP 47). */
  readonly lang?: string;
  /** Table header cells: which cells they head. */
  readonly scope?: 'Column' | 'Row' | 'Both';
  readonly rowSpan?: number;
  readonly colSpan?: number;
  /** Kept even without content (table cells: the table's grid must stay whole). */
  readonly keep?: boolean;
  /** Template path of the node (headings: for the PDF/UA heading check). */
  readonly path?: string;
}

/**
 * A structure element: type, attributes and children in reading order.
 * Five fields: a long table makes thousands, and all of them live until the PDF is written, so
 * every byte of one is copied by each collection of the young generation while the document is
 * laid out. What only the paint pass needs (where its content went) is kept by the paint pass.
 */
export interface StructNode {
  readonly type: StructType;
  readonly parent: StructNode | null;
  /** Child elements in template order (a leaf shares one frozen empty array until its first child). */
  children: StructNode[];
  /** Its attributes ({@link NO_ATTRS} when none; table cells share one object per kind). */
  readonly attrs: StructAttrs;
  /** Paint pass (engine/paint/tagging.ts): the element's PDF object number, 0 until it has one. */
  obj: number;
}

/** The children of an element that has none yet: shared, replaced by an array of its own on the first child. */
const NO_CHILDREN: StructNode[] = Object.freeze([]) as unknown as StructNode[];

/**
 * Attributes in one object shape (every field set, in one order), so that reading them is
 * monomorphic whatever the element.
 */
function attrsOf(a: StructAttrs): StructAttrs {
  return Object.freeze({ alt: a.alt, lang: a.lang, scope: a.scope, rowSpan: a.rowSpan, colSpan: a.colSpan, keep: a.keep, path: a.path });
}

/** The attributes of an element that has none. */
export const NO_ATTRS: StructAttrs = attrsOf({});

/** The attributes of table cells without spans, shared. */
const CELL_ATTRS = attrsOf({ keep: true });
const COLUMN_HEADER_ATTRS = attrsOf({ keep: true, scope: 'Column' });

/** What a draw item belongs to: an element, or page furniture (header, footer, decoration). */
export type ItemTag = StructNode | typeof ARTIFACT;

/** The tag of draw items that are not content: bands, repeated table headers, watermarks. */
export const ARTIFACT = 'artifact' as const;

/** A new element under `parent` (appended to its children), or a root when `parent` is null. */
export function structNode(type: StructType, parent: StructNode | null, attrs?: StructAttrs): StructNode {
  return element(type, parent, attrs === undefined ? NO_ATTRS : attrsOf(attrs));
}

/**
 * A table cell's element under its row (TH, TD; a hole's cell): kept (the grid stays whole), its
 * scope and spans (undefined: none). Cells without spans share their attributes.
 */
export function tableCell(type: 'TH' | 'TD', tr: StructNode, scope: StructAttrs['scope'], colSpan: number | undefined, rowSpan: number | undefined): StructNode {
  const attrs = colSpan !== undefined || rowSpan !== undefined ? attrsOf({ keep: true, scope, colSpan, rowSpan }) : scope === undefined ? CELL_ATTRS : scope === 'Column' ? COLUMN_HEADER_ATTRS : attrsOf({ keep: true, scope });
  return element(type, tr, attrs);
}

function element(type: StructType, parent: StructNode | null, attrs: StructAttrs): StructNode {
  // Every field set, in one order: thousands of table cells share one object shape.
  const node: StructNode = { type, parent, children: NO_CHILDREN, attrs, obj: 0 };
  if (parent) {
    if (parent.children === NO_CHILDREN) parent.children = [node];
    else parent.children.push(node);
  }
  return node;
}

/** The roles a template node may take (its `role`). */
export const ROLES = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'figure', 'caption', 'note', 'artifact'] as const;
export type Role = (typeof ROLES)[number];

const ROLE_TYPES: Record<Exclude<Role, 'artifact'>, StructType> = {
  h1: 'H1', h2: 'H2', h3: 'H3', h4: 'H4', h5: 'H5', h6: 'H6', p: 'P', figure: 'Figure', caption: 'Caption', note: 'Note',
};

/** The structure type of a role. */
export function roleType(role: Exclude<Role, 'artifact'>): StructType {
  return ROLE_TYPES[role];
}

/** A heading level from style names (`h1`..`h6`), the last one that is a heading winning. */
export function headingOfStyles(style: string | readonly string[] | undefined): StructType | null {
  if (style === undefined) return null;
  if (typeof style === 'string') return headingOfStyle(style);
  for (let i = style.length - 1; i >= 0; i--) {
    const type = headingOfStyle(style[i]);
    if (type) return type;
  }
  return null;
}

const HEADINGS: Record<string, StructType> = { h1: 'H1', h2: 'H2', h3: 'H3', h4: 'H4', h5: 'H5', h6: 'H6' };

/** The heading a style name is (`h1`..`h6`, any case), or null; asked for every table cell. */
function headingOfStyle(name: string): StructType | null {
  return name.length === 2 ? HEADINGS[name.toLowerCase()] ?? null : null;
}

/** What tagging the content needs while it is prepared. */
export interface TagContext {
  /** Refuse figures without `alt` (PDF/UA). */
  readonly requireAlt: boolean;
  /** The document's language: elements only carry a `lang` that differs from their parent's. */
  readonly language?: string;
}

/**
 * The `alt` a figure must have under PDF/UA.
 * @throws RenderError TEMPLATE_INVALID naming `path.alt` when `alt` is missing.
 */
export function requireAlt(alt: string | undefined, what: string, path: string): void {
  if (alt !== undefined) return;
  throw new RenderError('TEMPLATE_INVALID', `PDF/UA needs a text alternative for every ${what}: give it "alt" (describe it; "alt": "" marks it as decoration)`, `${path}.alt`);
}

/** The language an element inherits: its own or its nearest ancestor's, else the document's. */
export function inheritedLang(node: StructNode | null, documentLang: string | undefined): string | undefined {
  for (let n = node; n; n = n.parent) if (n.attrs.lang) return n.attrs.lang;
  return documentLang;
}

const HEADING_LEVEL: Partial<Record<StructType, number>> = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 };

/** Whether a heading at `level` may follow one at `previous` (0: none yet): H1 first, no level skipped going down. */
function headingFault(previous: number, level: number): string | null {
  if (previous === 0 && level !== 1) return `the first heading must be h1 (PDF/UA); this one is h${level}`;
  if (previous > 0 && level > previous + 1) return `a heading may go down one level at a time (PDF/UA): h${level} follows h${previous}`;
  return null;
}

/**
 * The first heading of a structure tree that PDF/UA refuses (in reading order: the first must be
 * H1, and a heading may be at most one level below the one before), with its template path.
 */
export function headingOrderFault(root: StructNode): PdfUaFault | null {
  let previous = 0;
  const walk = (node: StructNode): PdfUaFault | null => {
    const level = HEADING_LEVEL[node.type];
    if (level !== undefined) {
      const message = headingFault(previous, level);
      if (message) return { path: node.attrs.path ?? 'content', message };
      previous = level;
    }
    for (const child of node.children) {
      const f = walk(child);
      if (f) return f;
    }
    return null;
  };
  return walk(root);
}

/** A reason a template cannot make a PDF/UA document, with its path in the template. */
export interface PdfUaFault {
  readonly path: string;
  readonly message: string;
}

/**
 * What a template lacks for PDF/UA-1 that can be told before any render (the same checks run in
 * the render, on the bound document): metadata.title and metadata.language, and `alt` on every
 * image, QR code and barcode of the content (header, footer and background are artifacts, as is
 * everything under `"role": "artifact"`). Paths are template paths (`content[2].columns[0].content[1].alt`).
 */
export function pdfUaFaults(definition: unknown): PdfUaFault[] {
  const faults: PdfUaFault[] = [];
  const root = (definition ?? {}) as Record<string, unknown>;
  const meta = (root.metadata ?? {}) as Record<string, unknown>;
  if (typeof meta.title !== 'string' || meta.title.trim() === '') faults.push({ path: 'metadata.title', message: 'PDF/UA needs a document title: set metadata.title' });
  if (typeof meta.language !== 'string' || meta.language === '') faults.push({ path: 'metadata.language', message: 'PDF/UA needs the document\'s language: set metadata.language (a BCP 47 tag such as "en")' });
  const styles = (root.styles ?? {}) as Record<string, unknown>;
  let previous = 0;
  let headingDone = false;
  // The path of the value walked, as segments: a path string is made only for a fault (a 6 MB
  // definition's walk spent most of its 130 ms making one for every value).
  const segments: (string | number)[] = ['content'];
  const pathOf = (last?: string): string => {
    let path = '';
    for (const s of segments) path += typeof s === 'number' ? `[${s}]` : path === '' ? s : `.${s}`;
    return last === undefined ? path : `${path}.${last}`;
  };
  const walk = (v: unknown): void => {
    if (faults.length >= 100) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        segments.push(i);
        walk(v[i]);
        segments.pop();
      }
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (o.role === 'artifact') return;
    const kind = typeof o.image === 'string' ? 'image' : typeof o.qrcode === 'string' ? 'QR code' : typeof o.barcode === 'string' ? 'barcode' : null;
    if (!kind && o.role === 'figure') faults.push({ path: pathOf('role'), message: 'PDF/UA: a figure needs a text alternative, and only image, qrcode and barcode nodes take "alt"; leave out "role": "figure" here' });
    if (kind && o.alt === undefined) faults.push({ path: pathOf('alt'), message: `PDF/UA needs a text alternative for every ${kind}: give it "alt" (describe it; "alt": "" marks it as decoration)` });
    if ('text' in o && !headingDone) {
      const role = typeof o.role === 'string' ? o.role : undefined;
      const names = typeof o.style === 'string' ? [o.style] : Array.isArray(o.style) ? (o.style as unknown[]).filter((s): s is string => typeof s === 'string' && s in styles) : [];
      const type = role && /^h[1-6]$/.test(role) ? (`H${role.charAt(1)}` as StructType) : role ? null : headingOfStyles(names);
      const level = type ? HEADING_LEVEL[type] : undefined;
      if (level !== undefined) {
        const message = headingFault(previous, level);
        if (message) {
          faults.push({ path: pathOf(), message });
          headingDone = true;
        } else previous = level;
      }
    }
    // (A text's spans are not nodes: a span styled h2 is no heading.)
    for (const k in o) {
      const x = o[k];
      if (typeof x !== 'object' || x === null || k === 'text') continue;
      segments.push(k);
      walk(x);
      segments.pop();
    }
  };
  walk(root.content);
  return faults;
}
