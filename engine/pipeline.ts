/**
 * The render pipeline, in one place. Each pass takes what the one before produced; none calls
 * back into an earlier one. The warnings of a render go to one WarningSink handed to the passes
 * that find them.
 *
 *   validate   definition           -> Template          template/schema.ts   (every fault with its path)
 *   check      Template + data      -> faults            template/data-check.ts (DATA_INVALID before any work)
 *   bind       Template + data      -> BoundNode[]       template/bind.ts     (placeholders, filters, each, if; DATA_MISSING)
 *   prepare    BoundNode[]          -> PNode[]           layout/prepare.ts    (styles resolved, then each paragraph shaped,
 *                                                                              images decoded, codes encoded; GLYPH_MISSING)
 *   measure    PNode[] + widths     -> Box[]             layout/measure.ts    (lines broken, tables sized; IMAGE_CLAMPED)
 *   paginate   Box[] + content area -> items per page    layout/paginate.ts   (boxes cut across pages and placed)
 *   bands      pages                -> Page[]            layout/document.ts   (header, footer, background bound, prepared,
 *                                                                              measured and placed per page, with $page)
 *   watermark  Page[]               -> Page[]            layout/watermark.ts  (previews)
 *   paint      Page[]               -> PDF bytes         paint/paint.ts       (the only pdfkit user)
 *     or raster  Page                 -> PNG/JPEG bytes    raster/raster.ts     (image output: one page through Skia)
 *
 * Styles and shaping run in one walk of the bound tree (prepare): a paragraph is shaped right
 * after its spans' styles are resolved, so no second tree is built. The header's and footer's
 * heights are measured before the content (with stand-in page numbers): they fix the content area;
 * bands with conditions on `$page` or `$pages` are measured per page, and paginated again until
 * their rooms settle (layout/document.ts PageAreas).
 */
import { DEFAULT_LIMITS, RenderError, type Limits } from './errors.ts';
import { bindMetadata, bindNodes, type BindNodesOptions } from './template/bind.ts';
import { dataFaults } from './template/data-check.ts';
import { warnMissing, warnUnformatted } from './template/missing.ts';
import type { Template } from './template/types.ts';
import type { FontLibrary } from './text/fonts.ts';
import { WarningSink, type RenderWarning } from './warnings.ts';
import { LayoutBudget, PageEstimate } from './layout/budget.ts';
import { PageAreas, pageFrame, placeBands, type BandContext } from './layout/document.ts';
import { measureAll, type MeasureContext } from './layout/measure.ts';
import type { Box, DrawItem, Page, PNode } from './layout/nodes.ts';
import type { BoundNode } from './template/types.ts';
import { paginateRegions } from './layout/paginate.ts';
import { prepareNodes, type PrepareContext } from './layout/prepare.ts';
import { rootStyle, TextStyles } from './layout/style.ts';
import { stampWatermark } from './layout/watermark.ts';
import { anchorPages, collectHeadings, expandToc } from './layout/outline.ts';
import { paintPdf, type Protection } from './paint/paint.ts';
import { headingOrderFault, structNode, type StructNode, type TagContext } from './tags/struct.ts';
import type { ImageBytes } from './layout/images.ts';
import { paintImage, type ImageFormat } from './raster/raster.ts';
import type { PngEffort } from './raster/png.ts';
import { pdfaProfile, type PdfVariant } from './pdfa/variant.ts';
import { transparencyPath } from './pdfa/transparency.ts';
import { loadBarcodeEncoder } from './layout/codes.ts';

/** The passes, in order (see the module comment). */
export const PASSES = ['validate', 'check', 'bind', 'prepare', 'measure', 'paginate', 'bands', 'watermark', 'paint'] as const;

/** Inputs of a layout besides the template and data. */
export interface LayoutOptions {
  readonly fonts: FontLibrary;
  readonly limits: Limits;
  readonly now: Date;
  /** Locale of the filters: the template's metadata.language after binding. */
  readonly language?: string;
  /** Where warnings go (a new sink when not given). */
  readonly warnings?: WarningSink;
  /** Bytes of the image sources fetched before the render (`https://...`, `asset:<id>`), by source. */
  readonly images?: ImageBytes;
  /** Tag the content: its structure elements go under `root` (engine/tags/struct.ts). */
  readonly tags?: { readonly context: TagContext; readonly root: StructNode };
}

/** What {@link layoutDocument} gives back. */
export interface LaidOut {
  readonly pages: Page[];
  /** What was drawn imperfectly (missing data, missing glyphs, clamped images), once each. */
  readonly warnings: RenderWarning[];
}

/**
 * The layout passes: bind, prepare, measure and paginate the content into the content area, then
 * the bands on every page. `template` must be valid and its data checked.
 * @throws RenderError from binding (DATA_INVALID, LIMIT_EXCEEDED), preparing (IMAGE_INVALID,
 * BARCODE_INVALID, FONT_NOT_FOUND; LIMIT_EXCEEDED past maxGlyphs, maxBoxes or, as far as the
 * page estimate knows, maxPages), measuring (LIMIT_EXCEEDED past maxBoxes), paginating
 * (LIMIT_EXCEEDED past maxPages), and TEMPLATE_INVALID (path `header`) when the header and footer
 * leave no room for the content.
 */
export function layoutDocument(template: Template, data: unknown, opts: LayoutOptions): LaidOut {
  const warnings = opts.warnings ?? new WarningSink();
  const budget = new LayoutBudget(opts.limits);
  const prepare: PrepareContext = { styles: template.styles, textStyles: new TextStyles(opts.fonts), limits: opts.limits, images: opts.images, language: opts.language, warnings, budget, flow: null };
  const measure: MeasureContext = { budget, warnings, page: pageFrame(template) };
  const bind: BindNodesOptions = { now: opts.now, language: opts.language, maxNodes: opts.limits.maxNodes, maxDepth: opts.limits.maxDepth, maxDataScan: opts.limits.maxDataScan };
  const missing = warnMissing(warnings);
  const unformatted = warnUnformatted(warnings);
  const frame = pageFrame(template);
  const bands: BandContext = { template, data, bind, root: rootStyle(template.font, opts.fonts.defaultFamily), prepare, measure, frame };
  // Each page's content area: below its header, above its footer (layout/document.ts).
  const areas = new PageAreas(bands);
  const regionOf = (i: number) => {
    const a = areas.of(i);
    return { y: a.top, height: a.height };
  };
  // Paginate (again while the bands' rooms change with the page count: PageAreas.paginate); each
  // pagination tells its own sink, and only the one kept is heard.
  const paginateSettled = (content: Box[], sink: WarningSink): Paginated => {
    const r = areas.paginate(() => {
      const paginated = new WarningSink();
      // What ran past a page matters only where pages differ (measureAndPaginate).
      const overflow = { least: Infinity };
      return { bodies: paginateRegions(content, frame.margin.left, regionOf, opts.limits.maxPages, frame, paginated, areas.varies ? overflow : undefined), paginated, overflow };
    });
    sink.absorb(r.paginated);
    return { bodies: r.bodies, overflowLeast: r.overflow.least };
  };
  const layOut = (prepared: PNode[], ctx: MeasureContext, sink: WarningSink) => measureAndPaginate(prepared, areas, ctx, frame.contentWidth, paginateSettled, sink);

  // Each pass's output is let go as soon as the next pass has made its own (the variables set to
  // null): a function's locals stay alive until it returns, and the 1,000-row report's prepared
  // tree (about 6 MB of heap) and measured boxes (5 MB) would otherwise stay live while its pages
  // are cut and its bands placed.
  // bind
  let bound: BoundNode[] | null = bindNodes(template.content, data, { ...bind, path: 'content', missing, unformatted });
  // headings (ids given to those without one) and tables of contents: the content is laid out
  // with stand-in page numbers, then again with the pages its headings fell on (at most twice
  // more, until they stay put), each trial with its own budget and warnings.
  const { headings, toc } = collectHeadings(bound);
  let content: BoundNode[] | null = bound;
  if (toc) {
    let pages: Map<string, number> | null = null;
    for (let trial = 0; trial < 2; trial++) {
      const trialBudget = new LayoutBudget(opts.limits);
      const trialWarnings = new WarningSink();
      const p: PrepareContext = { ...prepare, budget: trialBudget, warnings: trialWarnings, flow: new PageEstimate(areas.largest, opts.limits.maxPages), tags: null, structParent: null, links: null };
      const m: MeasureContext = { ...measure, budget: trialBudget, warnings: trialWarnings };
      const trialContent = expandToc(bound!, headings, pages);
      const found = anchorPages(layOut(prepareNodes(trialContent, bands.root, p, 'content'), m, trialWarnings));
      const settled = pages !== null && headings.every((h) => found.get(h.id) === pages!.get(h.id));
      pages = found;
      if (settled) break;
    }
    content = expandToc(bound!, headings, pages);
  }
  bound = null;
  // prepare: while the content is prepared, a lower bound of its page count stops a document
  // that is certainly too long before its lines are broken and its pages built.
  prepare.flow = new PageEstimate(areas.largest, opts.limits.maxPages);
  prepare.links = [];
  // (tagged: the content's structure is built here, in template order; the bands are artifacts)
  prepare.tags = opts.tags?.context ?? null;
  prepare.structParent = opts.tags?.root ?? null;
  let prepared: PNode[] | null = prepareNodes(content, bands.root, prepare, 'content');
  content = null;
  const links = prepare.links;
  prepare.links = null;
  prepare.flow = null;
  prepare.tags = null;
  prepare.structParent = null;
  // measure and paginate
  const bodies = layOut(prepared, measure, warnings);
  prepared = null;
  // internal links to ids no node has
  const anchors = anchorPages(bodies);
  for (const link of links) {
    if (!anchors.has(link.id)) warnings.add('LINK_UNRESOLVED', `no node has the id "${link.id}": drawn without the link`, link.path);
  }
  // bands
  const pages = placeBands(bands, areas, bodies, { missing, unformatted });
  return { pages, warnings: warnings.list() };
}

/** A pagination, and the smallest region something ran past the bottom of (Infinity: none). */
interface Paginated {
  readonly bodies: DrawItem[][];
  readonly overflowLeast: number;
}

/** Measurings at most, after the first, for pages whose bands leave less room than the content was measured for. */
const MAX_REMEASURES = 2;

/**
 * Measure the prepared content for the room `areas` gives it first (PageAreas.measureHeight), and
 * paginate it. When the bands vary from page to page, something measured for that room (an image,
 * a fixed-height box) can land on a page with less (a one-page document with a letterhead and a
 * totals footer, a header on `$page == 3` only) and run past its bottom: the content is then
 * measured again for that page's room and paginated again, at most {@link MAX_REMEASURES} times.
 * Documents where nothing runs past a page are measured once. The budget counts the first
 * measuring; only the kept one's warnings are heard.
 */
function measureAndPaginate(prepared: PNode[], areas: PageAreas, measure: MeasureContext, width: number, paginateSettled: (content: Box[], sink: WarningSink) => Paginated, warnings: WarningSink): DrawItem[][] {
  let height = areas.measureHeight;
  const once = (ctx: MeasureContext, sink: WarningSink) => paginateSettled(measureAll(prepared, width, ctx, height), sink);
  let sink = new WarningSink();
  let r = once({ ...measure, warnings: sink }, sink);
  for (let pass = 0; areas.varies && pass < MAX_REMEASURES && r.overflowLeast < height; pass++) {
    height = r.overflowLeast;
    sink = new WarningSink();
    r = once({ ...measure, budget: null, warnings: sink }, sink);
  }
  warnings.absorb(sink);
  return r.bodies;
}

/** Options of {@link renderDocument}: those of renderPdf (engine/index.ts). */
export interface PipelineOptions {
  readonly now?: Date;
  readonly limits?: Partial<Limits>;
  readonly fonts: FontLibrary;
  readonly pdfVariant?: PdfVariant;
  readonly watermark?: string;
  /** Bytes of the image sources fetched before the render, by source. */
  readonly images?: ImageBytes;
  /** Encrypt the PDF (not with pdfVariant). */
  readonly protection?: Protection;
  /**
   * Claim and meet PDF/UA-1 (default: the template's `pdfUa`, else false). PDFs are tagged
   * unless the template says `"tagged": false` (PDF/UA tags them anyway).
   */
  readonly pdfUa?: boolean;
}

/** What {@link renderDocument} gives back. */
export interface Rendered {
  readonly pdf: Buffer;
  readonly pages: number;
  readonly warnings: RenderWarning[];
}

/**
 * Every pass from a valid template to PDF bytes (validation is the caller's: it needs the font
 * library's family names).
 * @throws RenderError DATA_INVALID (the check), and what {@link layoutDocument} and painting throw.
 */
export async function renderDocument(template: Template, data: unknown, options: PipelineOptions): Promise<Rendered> {
  if (hasBarcode(template)) await loadBarcodeEncoder();
  const { laid, meta, now, tags, pdfUa } = layOutForOutput(template, data, options, true);
  // paint
  const pdf = await paintPdf(laid.pages, { ...meta, date: now }, { pdfa: options.pdfVariant ? pdfaProfile(options.pdfVariant) : undefined, protection: options.protection, tags, pdfUa });
  return { pdf, pages: laid.pages.length, warnings: laid.warnings };
}

/** Options of {@link renderDocumentImage}: the pipeline's, and the picture's. */
export interface ImagePipelineOptions extends Omit<PipelineOptions, 'pdfVariant'> {
  /** "png" or "jpeg". */
  readonly format: ImageFormat;
  /** Pixels per point (1 = 72 dpi). */
  readonly scale: number;
  /** The page to paint, from 1. */
  readonly page: number;
  /** Largest width x height of the image, pixels. */
  readonly maxPixels: number;
  /** PNG compression: "small" (default) or "fast". */
  readonly effort?: PngEffort;
}

/** What {@link renderDocumentImage} gives back. */
export interface RenderedImage {
  /** The encoded image. */
  readonly image: Buffer;
  readonly width: number;
  readonly height: number;
  /** Pages of the document the page was taken from. */
  readonly pages: number;
  readonly warnings: RenderWarning[];
}

/**
 * Every pass up to the watermark, as for a PDF, then the raster paint (raster/raster.ts) of page
 * `page` instead of the PDF paint: the same placed boxes, glyph outlines and positions.
 * @throws RenderError as {@link renderDocument}; PAGE_OUT_OF_RANGE (path `page`) when the document
 *   has fewer pages than `page`; LIMIT_EXCEEDED (path `scale`) past `maxPixels`.
 */
export async function renderDocumentImage(template: Template, data: unknown, options: ImagePipelineOptions): Promise<RenderedImage> {
  if (hasBarcode(template)) await loadBarcodeEncoder();
  const { laid } = layOutForOutput(template, data, options);
  const page = laid.pages[options.page - 1];
  if (!page) throw new RenderError('PAGE_OUT_OF_RANGE', `page ${options.page} does not exist: the document has ${laid.pages.length} page${laid.pages.length === 1 ? '' : 's'}`, 'page');
  // paint (raster)
  const painted = await paintImage(page, { format: options.format, scale: options.scale, maxPixels: options.maxPixels, effort: options.effort });
  return { image: painted.bytes, width: painted.width, height: painted.height, pages: laid.pages.length, warnings: laid.warnings };
}

const barcodes = new WeakMap<Template, boolean>();

/**
 * Whether a template may have a barcode node (a `"barcode"` key anywhere in it; a string that
 * only mentions one gives a needless load, never a missed one), once per template object.
 */
function hasBarcode(template: Template): boolean {
  let has = barcodes.get(template);
  if (has === undefined) barcodes.set(template, (has = JSON.stringify(template).includes('"barcode"')));
  return has;
}

/** check, bind (metadata, then the layout passes) and watermark: what both paints start from. */
function layOutForOutput(template: Template, data: unknown, options: PipelineOptions, pdf = false): { laid: LaidOut; meta: ReturnType<typeof bindMetadata>; now: Date; tags?: StructNode; pdfUa: boolean } {
  const pdfUa = pdf && (options.pdfUa ?? template.pdfUa ?? false);
  if (pdfUa && options.pdfVariant === 'pdf/a-1b') {
    throw new RenderError('PDFA_CONFLICT', 'PDF/UA-1 cannot be combined with PDF/A-1b (PDF/A-1 is based on PDF 1.4, which lacks what PDF/UA needs); use pdf/a-2b or pdf/a-3b', 'pdf_ua');
  }
  if (pdf && options.pdfVariant === 'pdf/a-1b') {
    const translucent = transparencyPath(template);
    if (translucent !== null) throw new RenderError('PDFA_CONFLICT', 'PDF/A-1b forbids transparency: this opacity below 1 cannot be drawn; use pdf/a-2b or pdf/a-3b, or an opaque (light) colour instead', translucent);
  }
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const now = options.now ?? new Date();
  // check
  const faults = dataFaults(template, data, { maxDataDepth: limits.maxDataDepth, maxNodes: limits.maxNodes, maxDataScan: limits.maxDataScan, now });
  if (faults.length > 0) {
    const more = faults.length > 1 ? ` (and ${faults.length - 1} more)` : '';
    throw new RenderError('DATA_INVALID', faults[0].message + more, faults[0].path, faults);
  }
  const warnings = new WarningSink();
  // bind (metadata; the content is bound in layoutDocument)
  const meta = bindMetadata(template.metadata, data ?? {}, { now, language: template.metadata?.language, missing: warnMissing(warnings), unformatted: warnUnformatted(warnings), maxDataScan: limits.maxDataScan });
  if (pdfUa && !meta.title) throw new RenderError('TEMPLATE_INVALID', 'PDF/UA needs a document title: set metadata.title (it is shown instead of the file name)', 'metadata.title');
  if (pdfUa && !meta.language) throw new RenderError('TEMPLATE_INVALID', 'PDF/UA needs the document\'s language: set metadata.language (a BCP 47 tag such as "en")', 'metadata.language');
  const root = pdf && (pdfUa || template.tagged !== false) ? structNode('Document', null) : undefined;
  const tags = root && { root, context: { requireAlt: pdfUa, language: meta.language } };
  const laid = layoutDocument(template, data ?? {}, { fonts: options.fonts, limits, now, language: meta.language, warnings, images: options.images, tags });
  const headings = pdfUa && root ? headingOrderFault(root) : null;
  if (headings) throw new RenderError('TEMPLATE_INVALID', headings.message, headings.path);
  // watermark
  if (options.watermark !== undefined) stampWatermark(laid.pages, options.watermark, options.fonts, options.pdfVariant !== undefined, layoutDocument);
  return { laid, meta, now, tags: root, pdfUa };
}
