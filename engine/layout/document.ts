/**
 * Pages: their size and content area, and the bands on every page (header, footer, background),
 * which are bound, prepared, measured and placed per page with that page's `$page` and `$pages`
 * once the content has been paginated (engine/pipeline.ts runs them in that order).
 */
import { RenderError } from '../errors.ts';
import { bindNodes, type BindNodesOptions } from '../template/bind.ts';
import type { DataReporters } from '../template/missing.ts';
import { BOUNDS } from '../template/bounds.ts';
import { marginRoomFault, MIN_REGION, pageDimensions, pageMargin } from '../template/page.ts';
import type { BoundNode, Node, PageContext, Template, WatermarkSpec } from '../template/types.ts';
import { flowHeight } from './box-metrics.ts';
import { measureAll, type MeasureContext } from './measure.ts';
import type { Box, DrawItem, Page } from './nodes.ts';
import { flow, flowContext } from './paginate.ts';
import { prepareNodes, type PrepareContext } from './prepare.ts';
import type { ComputedStyle, Sides } from './style.ts';
import { WATERMARK_CAP_HEIGHT, WATERMARK_LAYOUT_SIZE, watermarkMatrix, type WatermarkArt } from './watermark.ts';
import { ARTIFACT } from '../tags/struct.ts';

// The page-size table and the margins' room: template/page.ts, which validation shares.

/** A page's size and the box inside its margins, points. */
export interface PageFrame {
  readonly width: number;
  readonly height: number;
  readonly margin: Sides;
  /** Width between the left and right margins. */
  readonly contentWidth: number;
  /** Height between the top and bottom margins (header, content area and footer share it). */
  readonly bodyHeight: number;
}

/** The page frame of a template. */
export function pageFrame(template: Template): PageFrame {
  const [width, height] = pageDimensions(template.page?.size, template.page?.orientation);
  const margin = pageMargin(template.page?.margin);
  return { width, height, margin, contentWidth: Math.max(1, width - margin.left - margin.right), bodyHeight: Math.max(1, height - margin.top - margin.bottom) };
}

/** What laying out the bands needs: the template, data, binding options and the passes' contexts. */
export interface BandContext {
  readonly template: Template;
  readonly data: unknown;
  readonly bind: BindNodesOptions;
  readonly root: ComputedStyle;
  readonly prepare: PrepareContext;
  readonly measure: MeasureContext;
  readonly frame: PageFrame;
}

/** The bands of a template, by name. */
export type BandName = 'header' | 'footer' | 'background';

/** Stand-ins for `$page`/`$pages` when measuring the header and footer before the page count is known. */
const MEASURE_PAGE: PageContext = { page: 8888, pages: 8888 };

/**
 * One band bound for `page`, prepared and measured (the background at the full page width and
 * height, header and footer inside the margins); data it lacks, or cannot format, is told to
 * `report`, when given.
 */
export function bandBoxes(b: BandContext, name: BandName, page: PageContext, report?: DataReporters): Box[] {
  const nodes: Node[] | undefined = b.template[name];
  if (!nodes || nodes.length === 0) return [];
  const bound = bindNodes(nodes, b.data, { ...b.bind, page, path: name, missing: report?.missing, unformatted: report?.unformatted });
  const background = name === 'background';
  // A band is laid out whole on every page: a page break in it is ignored.
  const noBreaks = b.prepare.noBreaks;
  b.prepare.noBreaks = true;
  let prepared;
  try {
    prepared = prepareNodes(bound, b.root, b.prepare, name);
  } finally {
    b.prepare.noBreaks = noBreaks;
  }
  return measureAll(prepared, background ? b.frame.width : b.frame.contentWidth, b.measure, background ? b.frame.height : b.frame.bodyHeight);
}

/** Where the content goes on a page: below its header, above its footer (points from the page's top). */
export interface ContentArea {
  readonly top: number;
  readonly height: number;
  readonly headerHeight: number;
  readonly footerHeight: number;
}

/** Paginations at most, after the first, before every page is given the room of the tallest bands (see {@link PageAreas}). */
const MAX_BAND_PASSES = 4;

/** Whether a band's nodes hold an `if` (of a node or of table rows) that reads `$page` or `$pages`: the band's shape may then differ from page to page. */
function readsPageInCondition(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(readsPageInCondition);
  if (value === null || typeof value !== 'object') return false;
  const node = value as Record<string, unknown>;
  if (Object.hasOwn(node, 'if') && /\$pages?\b/.test(JSON.stringify(node.if))) return true;
  return Object.values(node).some(readsPageInCondition);
}

/**
 * The content area of each page. A header or footer may differ from page to page (a letterhead
 * on page 1 only, a totals footer on the last page: an `if` on `$page` or `$pages`); each page's
 * bands are then measured with its own `$page`, and with `$pages` the count the pagination
 * assumes ({@link assume}; a four-digit stand-in at first). Bands whose conditions read neither
 * are the same on every page: the typical area, measured once (their text with four-digit page
 * numbers is at least as wide as with the real ones).
 *
 * {@link paginate} repeats a pagination with a count assumed until it makes that many pages: a last
 * page's tall footer can push content onto a new page, and then the page before is no longer the
 * last.
 */
export class PageAreas {
  /** The area with stand-in page numbers ($page and $pages 8888): a last page of very many. */
  readonly typical: ContentArea;
  /** Whether the bands' conditions read `$page` or `$pages`: each page is then measured on its own. */
  readonly varies: boolean;
  private pages = MEASURE_PAGE.pages;
  private readonly headers: number[] = [];
  private readonly footers: number[] = [];
  /** The tallest header and footer measured on any page with any count. */
  private tallest: { header: number; footer: number };
  /** Once given up: the room of the tallest header and footer, on every page. */
  private uniform: ContentArea | null = null;
  private measured: number | null = null;

  /**
   * @throws RenderError TEMPLATE_INVALID (path `page.margin`) when the page's margins leave less
   *   than {@link MIN_REGION} points across or down, (path `header`, or `footer`) when the header
   *   and footer leave less than that for the content.
   */
  constructor(private readonly b: BandContext) {
    // Validation refuses such margins (schema.ts, the same check); a template that skipped it still
    // fails here. (pageFrame keeps at least 1 pt each way, so nothing fails before this; the
    // margins are at fault, not the bands.)
    const fault = marginRoomFault(b.frame.width, b.frame.height, b.frame.margin);
    if (fault !== null) throw new RenderError('TEMPLATE_INVALID', fault, 'page.margin');
    this.varies = readsPageInCondition([b.template.header ?? null, b.template.footer ?? null]);
    const header = flowHeight(bandBoxes(b, 'header', MEASURE_PAGE));
    const footer = flowHeight(bandBoxes(b, 'footer', MEASURE_PAGE));
    // A last page of many (what the stand-ins make) may hold its bands alone when they vary (see of).
    this.typical = this.varies ? this.areaOrBandsAlone(header, footer) : this.area(header, footer, null);
    this.tallest = { header, footer };
  }

  /** The largest content area measured so far (the typical one, page 1's): a bound on how much one page holds, for estimates. */
  get largest(): number {
    return Math.max(this.typical.height, this.of(0).height);
  }

  /**
   * The height the content is measured for first (images and codes scaled down to it, fixed
   * heights clamped to it): the smallest area of a last page of many (the typical one) and of
   * pages 1 and 2 of many, leaving out a last page that holds its bands alone. A page with less
   * room where something measured for this lands (a one-page document with a letterhead and a
   * totals footer, a header on page 3 only) has the content measured again for its room (the
   * pipeline's measureAndPaginate).
   */
  get measureHeight(): number {
    if (!this.varies) return this.typical.height;
    if (this.measured === null) {
      const rooms = [this.typical.height, this.of(0).height, this.of(1).height].filter((h) => h > 0);
      this.measured = rooms.length > 0 ? Math.min(...rooms) : MIN_REGION;
    }
    return this.measured;
  }

  /**
   * The content area of page `index` (from 0). The last page of the count assumed may hold the
   * bands alone (a height of 0: the content goes on to the next page, or has ended) when they
   * leave it no room: a first-page letterhead and a last-page totals footer that do not fit on one
   * page together make a document of two pages; {@link paginate} refuses a document whose last
   * page's bands overlap.
   * @throws RenderError TEMPLATE_INVALID when the bands of another page leave no room.
   */
  of(index: number): ContentArea {
    if (!this.varies) return this.typical;
    if (this.uniform) return this.uniform;
    if (this.headers[index] === undefined) this.measure(index);
    const header = this.headers[index];
    const footer = this.footers[index];
    return index === this.pages - 1 ? this.areaOrBandsAlone(header, footer) : this.area(header, footer, index);
  }

  /**
   * Paginate with `once` (which flows the content into {@link of}'s areas); when the bands vary,
   * again with `$pages` the count found until a pagination makes as many pages as it assumed. When
   * one page fewer was tried and did not hold the content, and this count's pagination ends one
   * page short, the last page holds the bands alone. After {@link MAX_BAND_PASSES} more passes
   * every page gets the tallest bands' room.
   * @returns the result of the pagination kept.
   */
  paginate<R extends { bodies: unknown[][] }>(once: () => R): R {
    let r = once();
    // Counts assumed whose pagination made more pages than that.
    const overflowed = new Set<number>();
    // Each count assumed and the pages its pagination made, for the message when none settles.
    const tried: string[] = [];
    for (let pass = 0; this.varies; pass++) {
      const count = r.bodies.length;
      if (pass === MAX_BAND_PASSES) {
        this.giveUp(tried);
        return once();
      }
      this.assume(count);
      r = once();
      tried.push(`${count} -> ${r.bodies.length}`);
      if (r.bodies.length === count) break;
      if (r.bodies.length === count - 1 && overflowed.has(count - 1)) {
        r.bodies.push([]);
        break;
      }
      if (r.bodies.length > count) overflowed.add(count);
    }
    if (this.varies) this.checkLastPage(r.bodies.length);
    return r;
  }

  /**
   * @throws RenderError TEMPLATE_INVALID when the last page of a document of `count` pages holds
   *   its bands alone and they overlap (taller together than the room between the margins).
   */
  private checkLastPage(count: number): void {
    const last = this.of(count - 1);
    if (last.height > 0 || last.headerHeight + last.footerHeight <= this.b.frame.bodyHeight) return;
    this.area(last.headerHeight, last.footerHeight, count - 1);
  }

  /** Measure the bands from now on with `$pages` = `count`. */
  private assume(count: number): void {
    if (count === this.pages) return;
    this.pages = count;
    this.headers.length = 0;
    this.footers.length = 0;
  }

  /**
   * Every page gets the room of the tallest header and footer measured: paginations did not agree
   * on a count (`tried`: each count assumed and the pages it made).
   * @throws RenderError TEMPLATE_INVALID when those bands leave the content no room, saying why.
   */
  private giveUp(tried: readonly string[]): void {
    this.uniform = this.area(this.tallest.header, this.tallest.footer, null, tried);
  }

  private measure(index: number): void {
    const page = { page: index + 1, pages: this.pages };
    const header = (this.headers[index] = flowHeight(bandBoxes(this.b, 'header', page)));
    const footer = (this.footers[index] = flowHeight(bandBoxes(this.b, 'footer', page)));
    if (header > this.tallest.header) this.tallest.header = header;
    if (footer > this.tallest.footer) this.tallest.footer = footer;
  }

  /** The area between these bands, or none (height 0) when they leave less than {@link MIN_REGION}: a page that holds its bands alone. */
  private areaOrBandsAlone(headerHeight: number, footerHeight: number): ContentArea {
    if (this.b.frame.bodyHeight - headerHeight - footerHeight >= MIN_REGION) return this.area(headerHeight, footerHeight, null);
    return { top: this.b.frame.margin.top + headerHeight, height: 0, headerHeight, footerHeight };
  }

  /**
   * The area between these bands (of page `index`; null: of every page, and `tried` when page
   * counts did not settle: each count assumed and the pages it made).
   * @throws RenderError TEMPLATE_INVALID when they leave the content less than {@link MIN_REGION}.
   */
  private area(headerHeight: number, footerHeight: number, index: number | null, tried?: readonly string[]): ContentArea {
    const { frame, template } = this.b;
    const height = frame.bodyHeight - headerHeight - footerHeight;
    if (height < MIN_REGION) {
      const bands = `header (${Math.round(headerHeight)} pt) and footer (${Math.round(footerHeight)} pt)`;
      const which = tried
        ? `the header and footer change with $pages and no page count fits them (pages assumed -> pages made: ${tried.join(', ')}); every page then gets the tallest ${bands} measured, which`
        : `the ${bands}${index === null ? '' : ` of page ${index + 1}`}`;
      throw new RenderError(
        'TEMPLATE_INVALID',
        `${which} leave ${Math.round(Math.max(0, height))} pt of the ${Math.round(frame.bodyHeight)} pt between the page margins for the content; at least ${MIN_REGION} pt are needed`,
        template.header && template.header.length > 0 ? 'header' : 'footer',
      );
    }
    return { top: frame.margin.top + headerHeight, height, headerHeight, footerHeight };
  }
}

/**
 * The pages: each page's content items between its background and header (under) and its footer,
 * the bands bound with that page's number, in the room `areas` kept for them. Data the bands lack
 * (or cannot format) is reported once, on page 1.
 */
export function placeBands(b: BandContext, areas: PageAreas, bodies: readonly DrawItem[][], reporters: DataReporters): Page[] {
  const { width, height, margin } = b.frame;
  const pages = bodies.length;
  const wm = b.template.watermark;
  const art = wm ? watermarkArt(b, wm) : null;
  // The same on every page: one group item, shared.
  const mark: DrawItem | null = art && wm ? { kind: 'group', matrix: watermarkMatrix(art, width, height, wm.rotate), opacity: (wm.opacity ?? WATERMARK_OPACITY) < 1 ? wm.opacity ?? WATERMARK_OPACITY : null, items: art.items, tag: ARTIFACT } : null;
  return bodies.map((items, i) => {
    const page = { page: i + 1, pages };
    const report = i === 0 ? reporters : undefined;
    const all: DrawItem[] = [];
    placeBand(bandBoxes(b, 'background', page, report), 0, 0, height, all, b);
    if (mark && wm?.layer !== 'front') all.push(mark);
    const area = areas.of(i);
    placeBand(bandBoxes(b, 'header', page, report), margin.left, margin.top, area.headerHeight, all, b);
    for (const item of items) all.push(item);
    // At the bottom margin: a footer shorter than the room kept for it (the tallest, when page
    // counts did not settle) does not float above it.
    const footer = bandBoxes(b, 'footer', page, report);
    const footerHeight = Math.min(area.footerHeight, flowHeight(footer));
    placeBand(footer, margin.left, height - margin.bottom - footerHeight, footerHeight, all, b);
    if (mark && wm?.layer === 'front') all.push(mark);
    return { width, height, items: all };
  });
}

/** Opacity of a template watermark without one. */
export const WATERMARK_OPACITY = 0.15;

/**
 * A template's watermark laid out once (prepared and measured as a one-node band, path
 * `watermark`): text in one line at its fontSize (or a layout size scaled to the page), or an
 * image at its width (default half the page's width).
 */
function watermarkArt(b: BandContext, wm: WatermarkSpec): WatermarkArt | null {
  const size = wm.fontSize ?? WATERMARK_LAYOUT_SIZE;
  const node: BoundNode = wm.text !== undefined
    ? { text: wm.text, fontSize: size, fontWeight: wm.fontWeight ?? 'bold', fontFamily: wm.fontFamily, color: wm.color ?? '#808080', lineHeight: 1, hyphenate: false, textAlign: 'left' }
    : { image: wm.image!, width: wm.width ?? b.frame.width / 2 };
  const boxes = measureAll(prepareNodes([node], b.root, b.prepare, 'watermark'), BOUNDS.length, b.measure, BOUNDS.length);
  const items: DrawItem[] = [];
  flow(boxes, 0, 0, Infinity, true, items, flowContext(Infinity));
  let left = Infinity;
  let right = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  for (const item of items) {
    if (item.kind === 'text') {
      left = Math.min(left, item.x);
      right = Math.max(right, item.x + item.run.width);
      // Centred on the middle of the capitals.
      top = Math.min(top, item.y - WATERMARK_CAP_HEIGHT * size);
      bottom = Math.max(bottom, item.y);
    } else if (item.kind === 'image') {
      left = Math.min(left, item.x);
      right = Math.max(right, item.x + item.w);
      top = Math.min(top, item.y);
      bottom = Math.max(bottom, item.y + item.h);
    }
  }
  if (!(right > left) || !(bottom > top)) return null;
  for (const item of items) item.tag = ARTIFACT;
  return { items, cx: (left + right) / 2, cy: (top + bottom) / 2, w: right - left, h: bottom - top, fitToPage: wm.text !== undefined && wm.fontSize === undefined, text: wm.text !== undefined };
}

/** Place header, footer or background boxes; they never break (what overflows is drawn anyway). */
function placeBand(boxes: Box[], x: number, y: number, height: number, out: DrawItem[], b: BandContext): void {
  if (boxes.length === 0) return;
  const mark = out.length;
  flow(boxes, x, y, Math.max(height, flowHeight(boxes)), true, out, flowContext(Infinity, b.frame, b.measure.warnings, height));
  // Header, footer and background repeat on every page: artifacts of a tagged PDF.
  for (let i = mark; i < out.length; i++) out[i].tag = ARTIFACT;
}
