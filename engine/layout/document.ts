/**
 * Lays out a whole document (DESIGN §5): binds the content, prepares, measures and paginates it
 * into the content area, then binds and places header, footer and background on every page with
 * that page's `$page` and `$pages`.
 */
import { RenderError, type Limits } from '../errors.ts';
import { bindNodes, type BindNodesOptions } from '../template/bind.ts';
import { warnMissing } from '../template/missing.ts';
import type { Node, PageSize, Template } from '../template/types.ts';
import type { FontLibrary } from '../text/fonts.ts';
import { WarningSink, type RenderWarning } from '../warnings.ts';
import { LayoutBudget, PageEstimate } from './budget.ts';
import { flowHeight } from './box-metrics.ts';
import { measureAll, type MeasureContext } from './measure.ts';
import type { Box, DrawItem, Page } from './nodes.ts';
import { flow, flowContext, paginate } from './paginate.ts';
import { prepareNodes, type PrepareContext } from './prepare.ts';
import { rootStyle, TextStyles, toSides } from './style.ts';

/** Page sizes in points, portrait. */
export const PAGE_SIZES: Record<string, [number, number]> = {
  a3: [841.89, 1190.55],
  a4: [595.28, 841.89],
  a5: [419.53, 595.28],
  letter: [612, 792],
  legal: [612, 1008],
};

/** Width and height of the page in points. */
export function pageDimensions(size: PageSize | undefined, orientation: 'portrait' | 'landscape' | undefined): [number, number] {
  const [w, h] = Array.isArray(size) ? size : PAGE_SIZES[(size ?? 'A4').toLowerCase()];
  const landscape = orientation === 'landscape';
  return landscape ? [Math.max(w, h), Math.min(w, h)] : Array.isArray(size) ? [w, h] : [Math.min(w, h), Math.max(w, h)];
}

/** Inputs of a layout besides the template and data. */
export interface LayoutOptions {
  readonly fonts: FontLibrary;
  readonly limits: Limits;
  readonly now: Date;
  /** Locale of the filters: the template's metadata.language after binding. */
  readonly language?: string;
  /** Where warnings go (a new sink when not given). */
  readonly warnings?: WarningSink;
}

/** Stand-ins for `$page`/`$pages` when measuring the header and footer before the page count is known. */
const MEASURE_PAGE = { page: 8888, pages: 8888 };

/** What {@link layoutDocument} gives back. */
export interface LaidOut {
  readonly pages: Page[];
  /** What was drawn imperfectly (missing data, missing glyphs, clamped images), once each. */
  readonly warnings: RenderWarning[];
}

/**
 * Lay out `template` with `data` into pages of draw items.
 * @throws RenderError from binding (DATA_INVALID, LIMIT_EXCEEDED), preparing (IMAGE_INVALID,
 * BARCODE_INVALID, FONT_NOT_FOUND; LIMIT_EXCEEDED past maxGlyphs, maxBoxes or, as far as the
 * page estimate knows, maxPages), measuring (LIMIT_EXCEEDED past maxBoxes), paginating
 * (LIMIT_EXCEEDED past maxPages), and TEMPLATE_INVALID (path `header`) when the header and footer
 * leave no room for the content.
 */
export function layoutDocument(template: Template, data: unknown, opts: LayoutOptions): LaidOut {
  const budget = new LayoutBudget(opts.limits);
  const warnings = opts.warnings ?? new WarningSink();
  const ctx: PrepareContext = { styles: template.styles, textStyles: new TextStyles(opts.fonts), limits: opts.limits, language: opts.language, warnings, budget, flow: null };
  const pages = layoutPages(template, data, opts, ctx, { budget, warnings });
  return { pages, warnings: warnings.list() };
}

function layoutPages(template: Template, data: unknown, opts: LayoutOptions, ctx: PrepareContext, mctx: MeasureContext): Page[] {
  const [pageWidth, pageHeight] = pageDimensions(template.page?.size, template.page?.orientation);
  const margin = toSides(template.page?.margin ?? 40);
  const contentWidth = Math.max(1, pageWidth - margin.left - margin.right);
  const bodyHeight = Math.max(1, pageHeight - margin.top - margin.bottom);
  const root = rootStyle(template.font, opts.fonts.defaultFamily);
  const missing = warnMissing(ctx.warnings);
  const bindOpts: BindNodesOptions = {
    now: opts.now,
    language: opts.language,
    maxNodes: opts.limits.maxNodes,
    maxDepth: opts.limits.maxDepth,
  };

  // Header, footer and background are bound for each page; data they lack is reported once (page 1).
  const band = (nodes: Node[] | undefined, name: string, page: { page: number; pages: number }, width: number, maxHeight: number, report: boolean) => {
    if (!nodes || nodes.length === 0) return [];
    const bound = bindNodes(nodes, data, { ...bindOpts, page, path: name, missing: report ? missing : undefined });
    return measureAll(prepareNodes(bound, root, ctx, name), width, mctx, maxHeight);
  };

  const headerHeight = flowHeight(band(template.header, 'header', MEASURE_PAGE, contentWidth, bodyHeight, false));
  const footerHeight = flowHeight(band(template.footer, 'footer', MEASURE_PAGE, contentWidth, bodyHeight, false));
  const regionTop = margin.top + headerHeight;
  const regionHeight = bodyHeight - headerHeight - footerHeight;
  if (regionHeight < MIN_REGION) {
    throw new RenderError(
      'TEMPLATE_INVALID',
      `the header (${Math.round(headerHeight)} pt) and footer (${Math.round(footerHeight)} pt) leave ${Math.round(Math.max(0, regionHeight))} pt of the ${Math.round(bodyHeight)} pt between the page margins for the content; at least ${MIN_REGION} pt are needed`,
      template.header && template.header.length > 0 ? 'header' : 'footer',
    );
  }

  // While the content is prepared, a lower bound of its page count stops a document that is
  // certainly too long before its lines are broken and its pages built.
  const bound = bindNodes(template.content, data, { ...bindOpts, path: 'content', missing });
  ctx.flow = new PageEstimate(regionHeight, opts.limits.maxPages);
  const prepared = prepareNodes(bound, root, ctx, 'content');
  ctx.flow = null;
  const content = measureAll(prepared, contentWidth, mctx, regionHeight);
  const bodies = paginate(content, margin.left, regionTop, regionHeight, opts.limits.maxPages);

  const pages = bodies.length;
  return bodies.map((items, i) => {
    const page = { page: i + 1, pages };
    const first = i === 0;
    const all: DrawItem[] = [];
    placeBand(band(template.background, 'background', page, pageWidth, pageHeight, first), 0, 0, pageHeight, all);
    placeBand(band(template.header, 'header', page, contentWidth, bodyHeight, first), margin.left, margin.top, headerHeight, all);
    for (const item of items) all.push(item);
    const footer = band(template.footer, 'footer', page, contentWidth, bodyHeight, first);
    placeBand(footer, margin.left, pageHeight - margin.bottom - footerHeight, footerHeight, all);
    return { width: pageWidth, height: pageHeight, items: all };
  });
}

/** The least height the content area may have, points. */
const MIN_REGION = 12;

/** Place header, footer or background boxes; they never break (what overflows is drawn anyway). */
function placeBand(boxes: Box[], x: number, y: number, height: number, out: DrawItem[]): void {
  if (boxes.length === 0) return;
  flow(boxes, x, y, Math.max(height, flowHeight(boxes)), true, out, flowContext(Infinity));
}
