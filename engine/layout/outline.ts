/**
 * Headings, internal links and tables of contents, on bound nodes (a leaf module of the layout).
 *
 * - A heading is a text node whose `role` is h1..h6, else whose last named style is h1..h6; its
 *   level is the digit. Headings of the content are collected in document order; one without an
 *   `id` gets one (`_h1`, `_h2`, ...), so the outline, the table of contents and links can point
 *   at it.
 * - A `toc` node becomes a borderless table of the headings down to its `levels`: each title
 *   indented by its level and linked to the heading, its page number at the right. The pipeline
 *   lays the content out with stand-in numbers first, reads where each heading fell, and lays it
 *   out again with those numbers (engine/pipeline.ts).
 */
import type { BoundInline, BoundNode, StyleProps } from '../template/types.ts';
import type { DrawItem } from './nodes.ts';
import { keepRowSource } from '../template/bind.ts';

/** A heading of the content. */
export interface Heading {
  readonly id: string;
  /** 1..6. */
  readonly level: number;
  /** Its text, in one line. */
  readonly title: string;
}

/** Default `levels` of a toc node. */
export const TOC_LEVELS = 3;
/** Indent of a toc entry per level below 1, points. */
const TOC_INDENT = 12;
/** Page number printed while the pages are not known yet (four digits, like header stand-ins). */
const STAND_IN = '8888';

/** The heading level (1..6) of a bound node, or null: text nodes with role h1..h6 or a last style named h1..h6. */
export function headingLevel(node: BoundNode): number | null {
  if (!('text' in node)) return null;
  const role = (node as StyleProps).role;
  if (role !== undefined) {
    const m = /^h([1-6])$/.exec(role);
    return m ? Number(m[1]) : null;
  }
  const style = node.style;
  if (style === undefined) return null;
  const names = typeof style === 'string' ? [style] : style;
  for (let i = names.length - 1; i >= 0; i--) {
    const m = /^h([1-6])$/i.exec(names[i]);
    if (m) return Number(m[1]);
  }
  return null;
}

/** The text of a text node's content, spans flattened, white space collapsed. */
export function plainText(text: string | readonly BoundInline[]): string {
  const parts: string[] = [];
  const walk = (t: string | readonly BoundInline[]): void => {
    if (typeof t === 'string') parts.push(t);
    else for (const piece of t) walk(typeof piece === 'string' ? piece : piece.text);
  };
  walk(text);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** The bound nodes directly inside `node` (stack, columns, list items, table cells), in document order. */
function childrenOf(node: BoundNode): BoundNode[] {
  if ('stack' in node) return node.stack;
  if ('columns' in node) return node.columns.flatMap((c) => c.content);
  if ('list' in node) return node.list;
  if ('table' in node) return [...(node.table.header ?? []), ...node.table.rows, ...(node.table.footer ?? [])].flat();
  return [];
}

/**
 * The headings of bound content in document order (those without an id get one: the bound nodes
 * are the render's own objects), and whether it has a toc node.
 */
export function collectHeadings(nodes: readonly BoundNode[]): { headings: Heading[]; toc: boolean } {
  const headings: Heading[] = [];
  let toc = false;
  const stack: BoundNode[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if ('toc' in node) toc = true;
    const level = headingLevel(node);
    if (level !== null && 'text' in node) {
      const own = node as StyleProps;
      if (own.id === undefined) own.id = `_h${headings.length + 1}`;
      const title = plainText(node.text);
      if (title !== '') headings.push({ id: own.id, level, title });
    }
    const kids = childrenOf(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return { headings, toc };
}

/** A toc node: `{"toc": {"levels": 3}}` with style properties. */
type TocNode = StyleProps & { toc: { levels?: number } };

/** The table a toc node stands for, with `pages` (heading id -> page number; null: stand-ins). */
function tocTable(node: TocNode, headings: readonly Heading[], pages: ReadonlyMap<string, number> | null): BoundNode {
  const { toc, ...style } = node;
  const levels = toc.levels ?? TOC_LEVELS;
  const rows: BoundNode[][] = [];
  const lineLevels: number[] = [];
  for (const h of headings) {
    if (h.level > levels) continue;
    lineLevels.push(h.level);
    const link = `#${h.id}`;
    const page = pages === null ? STAND_IN : String(pages.get(h.id) ?? '');
    rows.push([
      { text: h.title, link, padding: [2, 6, 2, (h.level - 1) * TOC_INDENT] },
      { text: page, link, textAlign: 'right', padding: [2, 0, 2, 6] },
    ]);
  }
  if (rows.length === 0) return { ...style, stack: [] };
  const table: BoundNode = { ...style, table: { columns: ['*', 'auto'], rows, borders: 'none' } };
  TOC_TABLES.set(table, lineLevels);
  return table;
}

/**
 * The tables that stand for toc nodes, each with the heading level (1..6) of its lines, one per
 * row in row order: tagged as TOC, a TOCI per line, the lines of a lower level in a TOC nested in
 * the TOCI they come under (engine/layout/prepare.ts).
 */
export const TOC_TABLES = new WeakMap<BoundNode, readonly number[]>();

/**
 * The content with every toc node replaced by its table (the containers on the way copied; the
 * rest shared).
 */
export function expandToc(nodes: readonly BoundNode[], headings: readonly Heading[], pages: ReadonlyMap<string, number> | null): BoundNode[] {
  const map = (list: readonly BoundNode[]): BoundNode[] => list.map(one);
  const one = (node: BoundNode): BoundNode => {
    if ('toc' in node) return tocTable(node as TocNode, headings, pages);
    if ('stack' in node) return { ...node, stack: map(node.stack) };
    if ('columns' in node) return { ...node, columns: node.columns.map((c) => ({ ...c, content: map(c.content) })) };
    if ('list' in node) return { ...node, list: map(node.list) };
    if ('table' in node) {
      const t = node.table;
      const rows = (list: readonly BoundNode[][]) => list.map((row) => keepRowSource(row, map(row)));
      return { ...node, table: { ...t, header: t.header && rows(t.header), rows: rows(t.rows), footer: t.footer && rows(t.footer) } };
    }
    return node;
  };
  return map(nodes);
}

/** The page (1-based) of every anchor of the pages' items, the first one of each id. */
export function anchorPages(pages: readonly (readonly DrawItem[])[]): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (items: readonly DrawItem[], page: number): void => {
    for (const item of items) {
      if (item.kind === 'anchor') {
        if (!found.has(item.id)) found.set(item.id, page);
      } else if (item.kind === 'group') walk(item.items, page);
    }
  };
  pages.forEach((items, i) => walk(items, i + 1));
  return found;
}
