/**
 * Engine tests below the PDF: a definition laid out into pages of draw items (no painting), and
 * the geometry of those items, for checks that need exact boxes (cells, fills, borders).
 */
import { DEFAULT_LIMITS, type Limits } from '../../../engine/errors.ts';
import { layoutDocument } from '../../../engine/pipeline.ts';
import type { DrawItem, Page } from '../../../engine/layout/nodes.ts';
import { parseTemplate } from '../../../engine/template/schema.ts';
import { bundledFontLibrary } from '../../../engine/text/fonts.ts';
import { NOW } from '../../helpers/render.ts';

/** Lay a (valid) definition out into pages of draw items, with DEFAULT_LIMITS or `limits` over them. */
export function layout(definition: unknown, data: unknown = {}, limits: Partial<Limits> = {}): Page[] {
  const parsed = parseTemplate(definition);
  if (!parsed.ok) throw new Error(`invalid: ${JSON.stringify(parsed.errors)}`);
  return layoutDocument(parsed.template, data, { fonts: bundledFontLibrary(), limits: { ...DEFAULT_LIMITS, ...limits }, now: NOW }).pages;
}

/** An axis-aligned box in points from the page's top-left corner. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Every item of a page, groups flattened (their transform is not applied). */
export function flatItems(items: readonly DrawItem[]): DrawItem[] {
  return items.flatMap((i) => (i.kind === 'group' ? flatItems(i.items) : [i]));
}

/** Filled rectangles (backgrounds, stripes) of a page. */
export function fills(page: Page): (Rect & { fill: readonly number[] })[] {
  return flatItems(page.items).flatMap((i) => (i.kind === 'rect' && i.fill ? [{ x: i.x, y: i.y, w: i.w, h: i.h, fill: i.fill }] : []));
}

/** Stroked rectangles (cell borders) of a page. */
export function strokes(page: Page): Rect[] {
  return flatItems(page.items).flatMap((i) => (i.kind === 'rect' && i.stroke ? [{ x: i.x, y: i.y, w: i.w, h: i.h }] : []));
}

/** The text drawn on a page, one entry per glyph run: its text, left edge, baseline and width. */
export function texts(page: Page): { text: string; x: number; y: number; width: number }[] {
  return flatItems(page.items).flatMap((i) => {
    if (i.kind !== 'text') return [];
    return [{ text: i.run.pieces.map((p) => p.text).join(''), x: i.x, y: i.y, width: i.run.width }];
  });
}

/**
 * What an item covers on the page (text: its run's advance box from ascent to descent; lines: the
 * stroke's box), or null for items without a fixed box (groups).
 */
export function bounds(item: DrawItem): Rect | null {
  switch (item.kind) {
    case 'text': {
      const s = item.run.style;
      const asc = item.run.face.ascent * s.size;
      const desc = item.run.face.descent * s.size;
      return { x: item.x, y: item.y - asc, w: item.run.width, h: asc + desc };
    }
    case 'rect':
      return { x: item.x - (item.stroke ? item.lineWidth / 2 : 0), y: item.y - (item.stroke ? item.lineWidth / 2 : 0), w: item.w + (item.stroke ? item.lineWidth : 0), h: item.h + (item.stroke ? item.lineWidth : 0) };
    case 'line': {
      const hw = item.width / 2;
      return { x: Math.min(item.x1, item.x2) - hw, y: Math.min(item.y1, item.y2) - hw, w: Math.abs(item.x2 - item.x1) + item.width, h: Math.abs(item.y2 - item.y1) + item.width };
    }
    case 'image':
      return item.clip ? item.clip : { x: item.x, y: item.y, w: item.w, h: item.h };
    case 'bars':
      return null;
    case 'shape':
      return { x: item.cx - item.size / 2, y: item.cy - item.size / 2, w: item.size, h: item.size };
    case 'group':
    case 'anchor':
      return null;
  }
}

/** Whether two boxes share area (touching edges do not count), within `eps` points. */
export function overlaps(a: Rect, b: Rect, eps = 0.01): boolean {
  return a.x + eps < b.x + b.w && b.x + eps < a.x + a.w && a.y + eps < b.y + b.h && b.y + eps < a.y + a.h;
}

/** Whether `inner` lies within `outer`, within `eps` points. */
export function inside(inner: Rect, outer: Rect, eps = 0.01): boolean {
  return inner.x >= outer.x - eps && inner.y >= outer.y - eps && inner.x + inner.w <= outer.x + outer.w + eps && inner.y + inner.h <= outer.y + outer.h + eps;
}
