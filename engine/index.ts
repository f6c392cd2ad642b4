/**
 * Platen's layout engine: template DSL + data -> PDF bytes (DESIGN §1, §5, §6); the passes are
 * declared in pipeline.ts. Pure: no HTTP, no database, no environment. The service knows the
 * engine only through this file.
 */
import { deflateSync } from 'node:zlib';
import { DEFAULT_LIMITS, RenderError, type ErrorDetail, type Limits } from './errors.ts';
import type { RenderWarning } from './warnings.ts';
import { dataFaults } from './template/data-check.ts';
export { dataDepthFault } from './template/data-check.ts';
import { templateFields as fieldsOf } from './template/fields.ts';
import { parseTemplate } from './template/schema.ts';
import type { Template, TemplateField, TemplateIssue } from './template/types.ts';
import { bundledFontLibrary, type FontFace, type FontLibrary, type FontStyle } from './text/fonts.ts';
import { warmUpHarfBuzz } from './text/harfbuzz.ts';
import { warmUpCodes } from './layout/codes.ts';
import { DEFAULT_LANGUAGE, formatCurrency, formatDate, formatNumber } from './template/filters.ts';
import { renderDocument, renderDocumentImage } from './pipeline.ts';
import { imageSources as listImageSources, type ImageSourceUse } from './template/image-sources.ts';
import { checkImageBytes as checkBytes, type CheckedImage, type ImageBytes, type ImageLimits } from './layout/images.ts';
import { checkSvgDraws } from './paint/svg.ts';
import type { Protection } from './paint/paint.ts';
import { pageFrame } from './layout/document.ts';
import { pixelSize, type ImageFormat } from './raster/raster.ts';
import type { PngEffort } from './raster/png.ts';
import type { PdfVariant } from './pdfa/variant.ts';

export { PDF_VARIANTS, type PdfVariant } from './pdfa/variant.ts';
export type { ImageFormat } from './raster/raster.ts';
export { canvasAvailable } from './raster/canvas.ts';

export { RenderError, DEFAULT_LIMITS } from './errors.ts';
export { PERMISSIONS, type Permission, type Protection } from './paint/paint.ts';
export { passwordFault } from './paint/password.ts';
export type { CheckedImage, ImageBytes, ImageLimits } from './layout/images.ts';

/**
 * Check an image's bytes as a render decodes them, and an SVG's drawing as a PDF would draw it
 * (layout/images.ts checkImageBytes; for an uploaded asset).
 * @throws RenderError IMAGE_INVALID or LIMIT_EXCEEDED, without a path.
 */
export function checkImageBytes(bytes: Uint8Array, limits: ImageLimits): Promise<CheckedImage> {
  return checkBytes(bytes, limits, checkSvgDraws);
}
export type { ImageSourceUse } from './template/image-sources.ts';
export { cacheStats, clearCaches, configureCaches, DEFAULT_CACHE_MB, type CacheName, type CacheStat } from './caches.ts';
export type { RenderWarning, RenderWarningCode } from './warnings.ts';
export { RENDER_WARNING_CODES } from './warnings.ts';
export { pdfUaFaults, type PdfUaFault } from './tags/struct.ts';
export type { Limits, RenderErrorCode, ErrorDetail } from './errors.ts';
export type { Template, TemplateField, TemplateIssue } from './template/types.ts';
export { BUNDLED_FONT_DIR, FontLibrary, bundledFontLibrary } from './text/fonts.ts';

/**
 * A thread's one-time setup, done ahead of its first render instead of inside it (optional: a
 * render does whatever is not done yet). Loads the faces of the default family and the fallbacks
 * at weights 400 and 700, upright and italic, and decodes the tables shaping and painting read
 * of the default family's faces; instantiates HarfBuzz's shaping wasm and shapes a sample line
 * in the default family's faces; encodes one QR code; makes the number, currency and date formats
 * of the default language; loads zlib. No document is laid out or painted. (hb-subset is left
 * alone: glyf fonts are subset without it.) Some 50-70 ms of CPU in a fresh thread; about nothing when repeated.
 * @param fonts the library the thread renders with (default: the bundled fonts).
 */
export async function warmUp(fonts: FontLibrary = bundledFontLibrary()): Promise<void> {
  const faces: FontFace[] = [];
  for (const weight of [400, 700]) {
    for (const style of ['normal', 'italic'] as FontStyle[]) {
      const stack = fonts.resolveStack([], weight, style);
      if (!faces.includes(stack[0]!)) faces.push(stack[0]!);
    }
  }
  for (const face of faces) {
    // The tables shaping and painting read (cmap, name, OS/2, head, loca, hmtx), decoded once per face.
    face.font.hasGlyphForCodePoint(0x41);
    void face.font.postscriptName;
    void face.font.capHeight;
    void face.font.bbox;
    void face.font.getGlyph(face.font.glyphForCodePoint(0x41).id).advanceWidth;
  }
  await warmUpHarfBuzz(faces);
  warmUpCodes();
  formatNumber(1234.5, DEFAULT_LANGUAGE, 2);
  formatCurrency(1234.5, DEFAULT_LANGUAGE, 'EUR');
  formatDate('2026-01-15', DEFAULT_LANGUAGE, 'd MMM yyyy');
  formatDate('2026-01-15', DEFAULT_LANGUAGE);
  deflateSync(Buffer.from('warm-up'));
}

/** Options of {@link renderPdf}. */
export interface RenderOptions {
  /** Value of `$now` and the document's creation date. Default: the current time. */
  now?: Date;
  /** Overrides of {@link DEFAULT_LIMITS}. */
  limits?: Partial<Limits>;
  /** Fonts to use. Default: the bundled fonts (fonts/), parsed once per process. */
  fonts?: FontLibrary;
  /** Write PDF/A (spec §2.1 `pdf_variant`): "pdf/a-1b", "pdf/a-2b" or "pdf/a-3b". */
  pdfVariant?: PdfVariant;
  /**
   * Text drawn diagonally across every page, over the content, in translucent grey (previews:
   * "PREVIEW"); 1 to 100 characters, printed as given (no placeholders).
   */
  watermark?: string;
  /**
   * Bytes of the image sources that are not `data:` URIs (`https://...`, `asset:<id>`), by
   * source exactly as bound: the engine never fetches anything. {@link imageSources} lists the
   * sources a render needs. A source missing here fails the render with IMAGE_INVALID.
   */
  images?: ImageBytes;
  /**
   * Encrypt the PDF with AES-256 (user password, owner password, permissions). Not with
   * `pdfVariant`: PDF/A forbids encryption (PDFA_CONFLICT).
   */
  protection?: Protection;
  /**
   * Claim and meet PDF/UA-1 (default: the template's `pdfUa`, else false): a tagged PDF with
   * pdfuaid in its XMP. Needs metadata.title and metadata.language (TEMPLATE_INVALID), `alt` on
   * every image, QR code and barcode of the content (TEMPLATE_INVALID naming `<node>.alt`); with
   * pdfVariant "pdf/a-1b" it is PDFA_CONFLICT (path `pdf_ua`).
   */
  pdfUa?: boolean;
}

/** What {@link renderPdf} returns. */
export interface RenderResult {
  /** The PDF file. */
  pdf: Buffer;
  /** Number of pages. */
  pages: number;
  /**
   * What was drawn imperfectly without failing, each once, in the order found (at most 100):
   * DATA_MISSING (a placeholder or each whose data path the data lacks; `path` is the
   * placeholder's template path, the message names the data path), GLYPH_MISSING (a character no
   * font has), IMAGE_CLAMPED (an image or code larger than its room, drawn smaller),
   * WIDTH_CLAMPED (fixed widths that do not fit the room, made narrower).
   */
  warnings: RenderWarning[];
}

/** Result of {@link validateTemplate}: every fault with its JSON path. */
export type ValidationResult = { ok: true; template: Template } | { ok: false; errors: TemplateIssue[] };

/**
 * Check a definition against the DSL (DESIGN §5) and the fonts it names.
 * Never throws for bad input: faults are returned with their JSON paths (`content[2].table.rows[0][1]`).
 */
export function validateTemplate(definition: unknown, fonts: FontLibrary = bundledFontLibrary(), maxDepth = DEFAULT_LIMITS.maxDepth): ValidationResult {
  const parsed = parseTemplate(definition, maxDepth);
  if (!parsed.ok) return parsed;
  const errors = fontIssues(parsed.template, fonts);
  return errors.length > 0 ? { ok: false, errors } : parsed;
}

// Validated templates are cached (and immutable): their font check is done once per library.
const checkedFonts = new WeakMap<Template, WeakMap<FontLibrary, TemplateIssue[]>>();

function fontIssues(template: Template, fonts: FontLibrary): TemplateIssue[] {
  let byLibrary = checkedFonts.get(template);
  if (!byLibrary) checkedFonts.set(template, (byLibrary = new WeakMap()));
  let issues = byLibrary.get(fonts);
  if (!issues) byLibrary.set(fonts, (issues = unknownFonts(template, fonts)));
  return issues;
}

/** Every `fontFamily` / `font.family` that the library does not hold, with its path. */
function unknownFonts(template: Template, fonts: FontLibrary): TemplateIssue[] {
  const errors: TemplateIssue[] = [];
  const visit = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, `${path}[${i}]`));
    } else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        const p = path ? `${path}.${key}` : key;
        if (key === 'fontFamily' || (key === 'family' && path === 'font')) {
          const families = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
          families.forEach((f, i) => {
            if (typeof f === 'string' && !fonts.hasFamily(f)) {
              errors.push({ path: typeof v === 'string' ? p : `${p}[${i}]`, message: `unknown font family "${f}"; available: ${fonts.familyNames().join(', ')}` });
            }
          });
        } else visit(v, p);
      }
    }
  };
  visit(template, '');
  return errors;
}

/**
 * The data paths a definition reads (`customer.name`, `items[].qty`) with a guessed type.
 * @throws RenderError TEMPLATE_INVALID when the definition does not validate.
 */
export function templateFields(definition: unknown): TemplateField[] {
  return fieldsOf(validOrThrow(definition));
}

/** The message of TEMPLATE_INVALID for a definition's faults: the first with its path, and how many more. */
export function invalidTemplateMessage(errors: readonly TemplateIssue[]): string {
  const first = errors[0];
  return `template is invalid: ${first.path || '(root)'}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
}

function validOrThrow(definition: unknown, fonts?: FontLibrary, maxDepth?: number): Template {
  const v = validateTemplate(definition, fonts, maxDepth);
  if (!v.ok) {
    throw new RenderError('TEMPLATE_INVALID', invalidTemplateMessage(v.errors), undefined, v.errors);
  }
  return v.template;
}

/** Options of {@link checkData}. */
export interface CheckDataOptions {
  /** Deepest nesting of the data. Default DEFAULT_LIMITS.maxDataDepth (32). */
  maxDataDepth?: number;
  /** Value of `$now` in conditions. Default: the current time. */
  now?: Date;
}

/**
 * Check data against a template before rendering it, cheaply: no layout, one pass over the data
 * and one over the template's each/if/colour placeholders per loop item (stopped after
 * DEFAULT_LIMITS.maxNodes nodes). Returns every fault (at most 100), each with its path in the
 * data: `data.items` when an `each` iterates over `items` but it is a string or an object,
 * `data.brand` when a colour placeholder binds to something that is not a colour, and `data`
 * alone when the data nests deeper than `maxDataDepth` (then nothing else is looked at). For a
 * template with `"strict": true`, also every data path that a placeholder (without a `default`
 * filter) or an `each` reads and the data lacks (`data.customer.name`, `data.items[2].sku`): what
 * a render of another template would report as DATA_MISSING warnings.
 * [] when the data fits. `renderPdf` fails with the same faults (RenderError DATA_INVALID, the
 * first fault's path, all of them in `issues`); faults that depend on `$page` in a header or
 * footer are only found by rendering.
 * @throws RenderError TEMPLATE_INVALID when the definition does not validate.
 */
export function checkData(definition: unknown, data: unknown, options: CheckDataOptions = {}): ErrorDetail[] {
  const template = validOrThrow(definition);
  return dataFaults(template, data, { maxDataDepth: options.maxDataDepth ?? DEFAULT_LIMITS.maxDataDepth, maxNodes: DEFAULT_LIMITS.maxNodes, now: options.now ?? new Date() });
}

/**
 * Render a definition with data to a PDF (DESIGN §5; spec §1).
 * @param definition a template definition (validated here).
 * @param data the JSON object whose values fill the placeholders.
 * @throws RenderError TEMPLATE_INVALID, DATA_INVALID (path `data.<path>`, as {@link checkData}
 *   reports it: for a `"strict": true` template, missing data too), LIMIT_EXCEEDED, IMAGE_INVALID,
 *   BARCODE_INVALID, FONT_NOT_FOUND, PDFA_CONFLICT or RENDER_ERROR; RangeError for a watermark
 *   that is empty or longer than 100 characters.
 */
export async function renderPdf(definition: unknown, data: unknown, options: RenderOptions = {}): Promise<RenderResult> {
  if (options.protection && options.pdfVariant) throw new RenderError('PDFA_CONFLICT', `${options.pdfVariant} forbids encryption: a protected PDF cannot be PDF/A`);
  const fonts = options.fonts ?? bundledFontLibrary();
  const template = validOrThrow(definition, fonts, options.limits?.maxDepth ?? DEFAULT_LIMITS.maxDepth);
  return renderDocument(template, data, { ...options, fonts });
}

/** Largest image {@link renderImage} makes by default, width x height in pixels (Letter and A4 at 8 pixels per point fit). */
export const DEFAULT_MAX_IMAGE_PIXELS = 36_000_000;

/** Options of {@link renderImage}: those of {@link renderPdf} but PDF/A, and the picture's. */
export interface RenderImageOptions extends Omit<RenderOptions, 'pdfVariant'> {
  /** "png" (default) or "jpeg". */
  format?: ImageFormat;
  /** Pixels per point: 1 = 72 dpi; default 2. */
  scale?: number;
  /** The page to paint, from 1; default 1. */
  page?: number;
  /** Largest width x height of the image in pixels; default {@link DEFAULT_MAX_IMAGE_PIXELS}. */
  maxPixels?: number;
  /** PNG compression: "small" (default: smaller files) or "fast" (previews: quicker, larger). */
  effort?: PngEffort;
}

/** What {@link renderImage} returns. */
export interface RenderImageResult {
  /** The PNG or JPEG file. */
  image: Buffer;
  /** Pixel size of the image. */
  width: number;
  height: number;
  /** Pages of the document the page was taken from. */
  pages: number;
  /** As {@link RenderResult.warnings}. */
  warnings: RenderWarning[];
}

/**
 * Render one page of a definition with data as a PNG or JPEG image: the same layout as
 * {@link renderPdf}, painted by the raster backend (engine/raster) from the same placed boxes,
 * glyph outlines and positions, on white.
 * @throws RenderError as {@link renderPdf} (no PDFA_CONFLICT); PAGE_OUT_OF_RANGE (path `page`)
 *   when the document has fewer pages; LIMIT_EXCEEDED (path `scale`) when the image would have
 *   more than `maxPixels` pixels; RENDER_ERROR when the canvas library cannot be loaded.
 */
export async function renderImage(definition: unknown, data: unknown, options: RenderImageOptions = {}): Promise<RenderImageResult> {
  const fonts = options.fonts ?? bundledFontLibrary();
  const template = validOrThrow(definition, fonts, options.limits?.maxDepth ?? DEFAULT_LIMITS.maxDepth);
  const result = await renderDocumentImage(template, data, {
    ...options,
    fonts,
    format: options.format ?? 'png',
    scale: options.scale ?? 2,
    page: options.page ?? 1,
    maxPixels: options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS,
  });
  return { image: result.image, width: result.width, height: result.height, pages: result.pages, warnings: result.warnings };
}

/**
 * Pixel size of a page of `definition` (every page has the template's page size) at `scale`
 * pixels per point, known before any layout: lets a caller refuse too large an image up front.
 * @throws RenderError TEMPLATE_INVALID when the definition does not validate.
 */
export function imagePixelSize(definition: unknown, scale: number): { width: number; height: number } {
  const frame = pageFrame(validOrThrow(definition));
  return pixelSize(frame, scale);
}

/**
 * The image sources a render of `definition` with `data` needs from outside the engine: every
 * distinct `image` source that is not a `data:` URI (`https://...`, `asset:<id>`), with the
 * template path of its first use, in order. Sources with placeholders, and those under an `if`
 * of the content, are bound with the data (header, footer and background as page 1 of 1); pass
 * the render's `maxNodes` and `maxDataScan`, so that what the render binds, this binds too. Fetch
 * their bytes and pass them as `options.images` of {@link renderPdf} or {@link renderImage}.
 * @throws RenderError TEMPLATE_INVALID when the definition does not validate.
 */
export function imageSources(definition: unknown, data: unknown, options: { now?: Date; maxNodes?: number; maxDataScan?: number } = {}): ImageSourceUse[] {
  return listImageSources(validOrThrow(definition), data, { now: options.now ?? new Date(), maxNodes: options.maxNodes, maxDataScan: options.maxDataScan });
}
