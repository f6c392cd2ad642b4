/**
 * SVG images drawn as vectors into the PDF with svg-to-pdfkit (paths, fills, strokes, gradients,
 * clip paths, text with the bundled Noto Sans). The document was cleaned by layout/svg.ts (no
 * references outside it); here nothing is read from disk or the network either: embedded raster
 * images are not drawn, fonts are the bundled ones, links are not kept. Drawing is bounded: an
 * SVG whose `<use>` references multiply its content past a budget of content-stream operators
 * fails instead of filling the page stream.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { RenderError } from '../errors.ts';
import type { DecodedImage } from '../layout/nodes.ts';
import { svgOperatorBudget } from '../layout/svg.ts';
import { BUNDLED_FONT_DIR } from '../text/fonts.ts';

type Doc = InstanceType<typeof PDFDocument>;

type SvgToPdf = typeof import('svg-to-pdfkit').default;
let svgToPdf: SvgToPdf | null = null;

/**
 * Load svg-to-pdfkit before painting pages with SVG images. It is not imported with the engine
 * (most documents have no SVG image, and every process and render thread would hold its code):
 * paintPdf calls this when a page has one; a drawing reached otherwise loads it synchronously.
 */
export async function loadSvgPainter(): Promise<void> {
  if (!svgToPdf) svgToPdf = (await import('svg-to-pdfkit')).default;
}

function svgPainter(): SvgToPdf {
  if (!svgToPdf) svgToPdf = createRequire(import.meta.url)('svg-to-pdfkit') as SvgToPdf;
  return svgToPdf;
}

/** Where pdfkit's own font resource names (for SVG text) start: F100001, ... */
const FONT_NAMES_FROM = 100_000;

/** The bundled font file svg-to-pdfkit uses for SVG text of a weight and slant. */
function bundledFont(_family: string, bold: boolean, italic: boolean): string {
  const face = bold && italic ? 'BoldItalic' : bold ? 'Bold' : italic ? 'Italic' : 'Regular';
  return join(BUNDLED_FONT_DIR, `NotoSans-${face}.ttf`);
}

/** A source svg-to-pdfkit would open as an image: never anything (an empty buffer pdfkit refuses). */
const noImage = () => Buffer.alloc(0);

/**
 * Draw an SVG image (type "svg") into the box x, y, w, h (points, top-left based), stretched to
 * it: the layout already kept its aspect ratio where the template asked for that.
 * @param path the image's template path (`content[2].image`), named by the errors
 * @throws RenderError LIMIT_EXCEEDED when drawing it writes more operators than its budget
 *   (element count x 200, at least 200,000), IMAGE_INVALID when svg-to-pdfkit fails on it.
 */
export function drawSvg(doc: Doc, image: DecodedImage, x: number, y: number, w: number, h: number, path?: string): void {
  const budget = svgOperatorBudget(image.elements ?? 0);
  const d = doc as unknown as { addContent(s: string): unknown; page: { annotations: unknown[] }; _fontCount: number };
  // pdfkit names the fonts it embeds for SVG text F1, F2, ...: the names paint's own faces use
  // (glyphs.ts). Its count starts far above them, so the two never share a resource name.
  d._fontCount = Math.max(d._fontCount, FONT_NAMES_FROM);
  const addContent = d.addContent;
  let written = 0;
  d.addContent = function (this: unknown, s: string) {
    if (++written > budget) throw new RenderError('LIMIT_EXCEEDED', `an SVG image draws more than ${budget} operators (200 for each of its elements, at least 200,000): its <use> references repeat its content too many times`, path);
    return addContent.call(this, s);
  };
  const annotations = d.page.annotations.length;
  doc.save();
  try {
    doc.translate(x, y).scale(w / image.width, h / image.height);
    svgPainter()(doc, image.data.toString('utf8'), 0, 0, {
      width: image.width,
      height: image.height,
      assumePt: true,
      preserveAspectRatio: 'none',
      fontCallback: bundledFont,
      imageCallback: noImage,
      warningCallback: () => {},
    });
  } catch (e) {
    if (e instanceof RenderError) throw e;
    // What svg-to-pdfkit or pdfkit refuse comes from the drawing (a number of 1e21 or more, as
    // written or as its transforms multiply out, is one a PDF cannot hold).
    const why = (e as Error)?.message ?? String(e);
    const hint = /unsupported number/.test(why) ? ' (a coordinate, size or transform of 1e21 or more, as written or multiplied out, which a PDF cannot hold)' : '';
    throw new RenderError('IMAGE_INVALID', `the SVG image cannot be drawn into a PDF: ${why}${hint}`, path);
  } finally {
    d.addContent = addContent;
    // Links inside the SVG (<a>) are not kept: their targets were removed with every other reference.
    d.page.annotations.length = annotations;
    doc.restore();
  }
}

/**
 * Draw an SVG image (decoded by layout/svg.ts) into a document that is never written, to learn
 * before any render whether a PDF can hold it: an uploaded image is refused when a render could
 * never draw it.
 * @throws RenderError IMAGE_INVALID or LIMIT_EXCEEDED, as {@link drawSvg}.
 */
export function checkSvgDraws(image: DecodedImage): void {
  const doc = new PDFDocument({ autoFirstPage: false, font: null } as unknown as PDFKit.PDFDocumentOptions);
  doc.addPage({ size: [Math.max(1, image.width), Math.max(1, image.height)], margin: 0 });
  drawSvg(doc, image, 0, 0, image.width, image.height);
}
