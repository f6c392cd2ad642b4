/**
 * The raster paint pass: a page of absolute draw items (the same Page the PDF paint draws) becomes
 * a PNG or JPEG through Skia (@napi-rs/canvas). Text is drawn from the very glyph outlines the PDF
 * embeds (fontkit's paths of the same font files, glyph ids and positions of the shaped runs), so
 * the image and the PDF page agree to the pixel's antialiasing.
 *
 * Each draw item kind has one small function in {@link DRAWERS}; a kind without one fails the
 * render with a clear RENDER_ERROR instead of being left out of the picture.
 *
 * Coordinates arrive in points, top-left based (y grows downwards), as for the PDF paint; the
 * canvas is `scale` pixels per point, white behind the page.
 */
import type { Glyph } from 'fontkit';
import { RenderError } from '../errors.ts';
import type { ClipRect, DecodedImage, DrawItem, Page } from '../layout/nodes.ts';
import { spacedAdvance, type LineRun, type RGB } from '../text/paragraph.ts';
import { canvasModule, type Canvas, type Ctx, type SkiaImage, type SkiaPath } from './canvas.ts';
import { encodeOpaquePng, type PngEffort } from './png.ts';

/** Output formats of {@link paintImage}. */
export type ImageFormat = 'png' | 'jpeg';

/** Options of {@link paintImage}. */
export interface RasterOptions {
  readonly format: ImageFormat;
  /** Pixels per point (1 = 72 dpi). */
  readonly scale: number;
  /** Largest width x height in pixels; a larger image fails with LIMIT_EXCEEDED. */
  readonly maxPixels: number;
  /** JPEG quality, 1 to 100. Default 90. */
  readonly quality?: number;
  /** PNG: "small" (default) or "fast" (previews: about half the time, larger files). */
  readonly effort?: PngEffort;
}

/** An encoded page image. */
export interface PaintedImage {
  readonly bytes: Buffer;
  /** Pixel size. */
  readonly width: number;
  readonly height: number;
}

/** An affine transform [a, b, c, d, e, f] (canvas and PDF `cm` order). */
type Matrix = readonly [number, number, number, number, number, number];

/** `outer` after `inner`: points go through `inner` first. */
function multiply(outer: Matrix, inner: Matrix): Matrix {
  const [a, b, c, d, e, f] = outer;
  const [A, B, C, D, E, F] = inner;
  return [a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f];
}

/** Pixel size of a page at `scale` pixels per point (at least 1 x 1). */
export function pixelSize(page: Pick<Page, 'width' | 'height'>, scale: number): { width: number; height: number } {
  // Rounded up (a part-covered pixel column is still paper), as pdftoppm does.
  return { width: Math.max(1, Math.ceil(page.width * scale - 0.01)), height: Math.max(1, Math.ceil(page.height * scale - 0.01)) };
}

// Glyph outlines as Skia paths in font units, made once per glyph (fontkit keeps one Glyph per id).
const glyphPaths = new WeakMap<Glyph, SkiaPath>();
// Code rectangles as one path in module units, once per code (one path: no seams between bars).
const barPaths = new WeakMap<readonly number[], SkiaPath>();
// Small decoded raster images, kept per source image (see KEEP_PIXELS).
const decoded = new WeakMap<DecodedImage, SkiaImage>();

function cssColor(c: RGB): string {
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/** Paint state of one page: the current transform (points to pixels) and opacity. */
export class RasterPainter {
  private ctm: Matrix;
  private alpha = 1;

  constructor(
    readonly ctx: Ctx,
    scale: number,
    /** The render's decoded images. */
    readonly pictures: Pictures,
  ) {
    this.ctm = [scale, 0, 0, scale, 0, 0];
  }

  /** The current transform, points to pixels. */
  get matrix(): Matrix {
    return this.ctm;
  }

  /** Set the canvas transform to the current one, followed by `local` when given. */
  use(local?: Matrix): void {
    const m = local ? multiply(this.ctm, local) : this.ctm;
    this.ctx.setTransform(m[0], m[1], m[2], m[3], m[4], m[5]);
  }

  /**
   * Draw `items` through `matrix` (after the current transform) at `opacity` (times the current
   * one, for every fill and stroke), inside `clip` (in the items' coordinates) when given.
   */
  within(matrix: Matrix | null, opacity: number | null, items: readonly DrawItem[], clip?: ClipRect | null): void {
    const saved = this.ctm;
    const savedAlpha = this.alpha;
    if (matrix) this.ctm = multiply(this.ctm, matrix);
    if (opacity !== null) this.alpha = savedAlpha * opacity;
    if (clip) {
      this.ctx.save();
      this.use();
      rectPath(this.ctx, clip.x, clip.y, clip.w, clip.h, clip.radius);
      this.ctx.clip();
    }
    this.ctx.globalAlpha = this.alpha;
    try {
      for (const item of items) this.draw(item);
    } finally {
      if (clip) this.ctx.restore();
      this.ctm = saved;
      this.alpha = savedAlpha;
      this.ctx.globalAlpha = savedAlpha;
    }
  }

  draw(item: DrawItem): void {
    const drawer = (DRAWERS as Record<string, ((p: RasterPainter, item: never) => void) | undefined>)[item.kind];
    if (!drawer) throw new RenderError('RENDER_ERROR', `the image output cannot draw "${(item as { kind: string }).kind}" items yet; render a PDF instead`);
    drawer(this, item as never);
  }

  /**
   * Fill a rectangle (points). Without rotation or skew its edges are snapped to whole pixels, as
   * PDF rasterizers do: cells filled side by side then meet without a lighter seam between them.
   */
  fillRect(x: number, y: number, w: number, h: number): void {
    const [a, b, c, d, e, f] = this.ctm;
    if (b === 0 && c === 0) {
      const x0 = Math.round(a * x + e);
      const x1 = Math.round(a * (x + w) + e);
      const y0 = Math.round(d * y + f);
      const y1 = Math.round(d * (y + h) + f);
      this.ctx.setTransform(1, 0, 0, 1, 0, 0);
      // A sliver thinner than a pixel keeps one pixel (a hairline fill must not vanish).
      const left = Math.min(x0, x1);
      const top = Math.min(y0, y1);
      const width = Math.max(Math.abs(x1 - x0), w > 0 ? 1 : 0);
      const height = Math.max(Math.abs(y1 - y0), h > 0 ? 1 : 0);
      this.ctx.fillRect(left, top, width, height);
      return;
    }
    this.use();
    this.ctx.fillRect(x, y, w, h);
  }

  fill(color: RGB): void {
    this.ctx.fillStyle = cssColor(color);
  }

  stroke(color: RGB, width: number, dash?: readonly number[]): void {
    this.ctx.strokeStyle = cssColor(color);
    this.ctx.lineWidth = width;
    this.ctx.setLineDash(dash && dash.length ? [...dash] : []);
  }
}

/** One function per draw item kind: a new kind is one more entry here. */
type Drawers = { readonly [K in DrawItem['kind']]: (p: RasterPainter, item: Extract<DrawItem, { kind: K }>) => void };

const DRAWERS: Drawers = {
  text: (p, item) => drawText(p, item.x, item.y, item.run),

  rect: (p, item) => {
    if (item.radius && item.radius > 0) {
      p.use();
      rectPath(p.ctx, item.x, item.y, item.w, item.h, item.radius);
      if (item.fill) {
        p.fill(item.fill);
        p.ctx.fill();
      }
      if (item.stroke) {
        p.stroke(item.stroke, item.lineWidth);
        p.ctx.stroke();
      }
      return;
    }
    if (item.fill) {
      p.fill(item.fill);
      p.fillRect(item.x, item.y, item.w, item.h);
    }
    p.use();
    if (item.stroke) {
      p.stroke(item.stroke, item.lineWidth);
      p.ctx.strokeRect(item.x, item.y, item.w, item.h);
    }
  },

  line: (p, item) => {
    p.use();
    p.stroke(item.color, item.width, item.dash);
    const ctx = p.ctx;
    ctx.beginPath();
    ctx.moveTo(item.x1, item.y1);
    ctx.lineTo(item.x2, item.y2);
    ctx.stroke();
  },

  bars: (p, item) => {
    let path = barPaths.get(item.rects);
    if (!path) {
      const { Path2D } = canvasModule();
      path = new Path2D();
      const r = item.rects;
      for (let i = 0; i < r.length; i += 4) path.rect(r[i], r[i + 1], r[i + 2], r[i + 3]);
      barPaths.set(item.rects, path);
    }
    p.use([item.sx, 0, 0, item.sy, item.x, item.y]);
    p.fill(item.color);
    p.ctx.fill(path, 'nonzero');
  },

  shape: (p, item) => {
    const { cx, cy, size } = item;
    const r = size / 2;
    const ctx = p.ctx;
    p.use();
    if (item.shape === 'square') {
      p.fill(item.color);
      ctx.fillRect(cx - r, cy - r, size, size);
      return;
    }
    ctx.beginPath();
    ctx.arc(cx, cy, r, 0, Math.PI * 2);
    if (item.shape === 'disc') {
      p.fill(item.color);
      ctx.fill();
    } else {
      p.stroke(item.color, size * 0.16);
      ctx.stroke();
    }
  },

  image: (p, item) => {
    const img = p.pictures.of(item, p.matrix);
    const ctx = p.ctx;
    p.use();
    if (item.clip) {
      ctx.save();
      rectPath(ctx, item.clip.x, item.clip.y, item.clip.w, item.clip.h, item.clip.radius);
      ctx.clip();
    }
    // Enlarged images show their pixels, as PDF viewers draw them (no /Interpolate); reduced ones are filtered.
    const [a, b] = p.matrix;
    const enlarged = Math.hypot(a, b) * item.w > img.width;
    ctx.imageSmoothingEnabled = !enlarged;
    if (!enlarged) ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(img, item.x, item.y, item.w, item.h);
    if (item.clip) ctx.restore();
  },

  group: (p, item) => p.within(item.matrix, item.opacity, item.items, item.clip),

  // A link destination and outline entry: nothing to draw.
  anchor: () => {},
};

/** Largest side of an SVG image rasterized for one use, pixels. */
const MAX_SVG_SIDE = 8192;
/**
 * Decoded pictures of at most this many pixels (4 MB each) are kept for later renders; larger
 * ones are decoded for the render that draws them and let go after it, so the native memory
 * they hold (outside the engine's cache budgets) does not pile up in a long-lived thread.
 */
const KEEP_PIXELS = 1_000_000;

/**
 * Pixel size at which an SVG image is rasterized for one use: its box through the transform, so
 * the vectors are drawn sharp at the output's resolution rather than scaled up; at most
 * `maxArea` pixels (the output's) and MAX_SVG_SIDE a side.
 */
function svgPixels(item: Extract<DrawItem, { kind: 'image' }>, m: Matrix, maxArea: number): { w: number; h: number } {
  let w = Math.max(1, item.w * Math.hypot(m[0], m[1]));
  let h = Math.max(1, item.h * Math.hypot(m[2], m[3]));
  const shrink = Math.min(1, Math.sqrt(maxArea / (w * h)), MAX_SVG_SIDE / w, MAX_SVG_SIDE / h);
  w = Math.max(1, Math.ceil(w * shrink));
  h = Math.max(1, Math.ceil(h * shrink));
  return { w, h };
}

function svgKey(size: { w: number; h: number }): string {
  return `${size.w}x${size.h}`;
}

/** The decoded pictures one render draws: raster images by source, SVG images by source and pixel size. */
export class Pictures {
  readonly raster = new Map<DecodedImage, SkiaImage>();
  readonly svg = new Map<DecodedImage, Map<string, SkiaImage>>();
  constructor(
    /** Pixels of the output: the most an SVG image is rasterized at. */
    readonly maxArea: number,
  ) {}

  /** The picture of an image item drawn through `m`. */
  of(item: Extract<DrawItem, { kind: 'image' }>, m: Matrix): SkiaImage {
    const img = item.image.type === 'svg' ? this.svg.get(item.image)?.get(svgKey(svgPixels(item, m, this.maxArea))) : this.raster.get(item.image);
    if (!img) throw new RenderError('RENDER_ERROR', 'an image was drawn before it was decoded');
    return img;
  }
}

// Small SVG images rasterized by Skia, kept per image and pixel size.
const svgDecoded = new WeakMap<DecodedImage, Map<string, SkiaImage>>();

/** Every image use of the items (inside groups too), with the transform it is drawn through. */
function imageUses(items: readonly DrawItem[], m: Matrix, into: { item: Extract<DrawItem, { kind: 'image' }>; m: Matrix }[]): typeof into {
  for (const item of items) {
    if (item.kind === 'image') into.push({ item, m });
    else if (item.kind === 'group') imageUses(item.items, multiply(m, item.matrix), into);
  }
  return into;
}

/** Skia's decoding of `bytes`. @throws RenderError IMAGE_INVALID */
async function decode(bytes: Buffer, type: string): Promise<SkiaImage> {
  const { loadImage } = canvasModule();
  let img: SkiaImage;
  try {
    img = await loadImage(bytes);
  } catch (e) {
    throw new RenderError('IMAGE_INVALID', `a ${type.toUpperCase()} image could not be decoded for the image output: ${(e as Error)?.message ?? e}`);
  }
  if (img.width === 0 || img.height === 0) throw new RenderError('IMAGE_INVALID', `a ${type.toUpperCase()} image could not be decoded for the image output`);
  return img;
}

/** An SVG document with its root's width and height set to `size` pixels (the viewBox scales the drawing to them). */
function sizedSvg(data: Buffer, size: { w: number; h: number }): Buffer {
  const text = data.toString('utf8');
  const root = /<((?:[A-Za-z_][\w.-]*:)?svg)(\s[^>]*?)?(\/?)>/.exec(text);
  if (!root) return data;
  const attrs = (root[2] ?? '').replace(/\s(width|height|preserveAspectRatio)\s*=\s*("[^"]*"|'[^']*')/g, '');
  // The box is filled as the PDF paint fills it: the layout gave it the image's aspect.
  return Buffer.from(`${text.slice(0, root.index)}<${root[1]}${attrs} width="${size.w}" height="${size.h}" preserveAspectRatio="none"${root[3]}>${text.slice(root.index + root[0].length)}`, 'utf8');
}

/**
 * Decode the page's images with Skia (decoding is asynchronous): a raster image once per source,
 * an SVG document once per source and pixel size it is drawn at (written by layout/svg.ts with
 * width and height in points and a viewBox); small pictures are kept for later renders.
 * @throws RenderError IMAGE_INVALID for bytes Skia cannot decode.
 */
async function decodeImages(page: Page, scale: number, maxArea: number): Promise<Pictures> {
  const pictures = new Pictures(maxArea);
  for (const { item, m } of imageUses(page.items, [scale, 0, 0, scale, 0, 0], [])) {
    const image = item.image;
    if (image.type !== 'svg') {
      if (pictures.raster.has(image)) continue;
      let img = decoded.get(image);
      if (!img) {
        img = await decode(image.data, image.type);
        if (img.width * img.height <= KEEP_PIXELS) decoded.set(image, img);
      }
      pictures.raster.set(image, img);
      continue;
    }
    const size = svgPixels(item, m, maxArea);
    const key = svgKey(size);
    let sizes = pictures.svg.get(image);
    if (!sizes) pictures.svg.set(image, (sizes = new Map()));
    if (sizes.has(key)) continue;
    let kept = svgDecoded.get(image);
    let img = kept?.get(key);
    if (!img) {
      img = await decode(sizedSvg(image.data, size), 'svg');
      if (size.w * size.h <= KEEP_PIXELS) {
        if (!kept) svgDecoded.set(image, (kept = new Map()));
        if (kept.size >= 8) kept.clear();
        kept.set(key, img);
      }
    }
    sizes.set(key, img);
  }
  return pictures;
}

/** A rectangle's path (points), its corners rounded by `radius` (at most half the shorter side), as the PDF paint draws it. */
function rectPath(ctx: Ctx, x: number, y: number, w: number, h: number, radius?: number): void {
  ctx.beginPath();
  const r = Math.min(radius ?? 0, w / 2, h / 2);
  if (!(r > 0)) {
    ctx.rect(x, y, w, h);
    return;
  }
  const k = r * (1 - 0.5522847498);
  const x2 = x + w;
  const y2 = y + h;
  ctx.moveTo(x + r, y);
  ctx.lineTo(x2 - r, y);
  ctx.bezierCurveTo(x2 - k, y, x2, y + k, x2, y + r);
  ctx.lineTo(x2, y2 - r);
  ctx.bezierCurveTo(x2, y2 - k, x2 - k, y2, x2 - r, y2);
  ctx.lineTo(x + r, y2);
  ctx.bezierCurveTo(x + k, y2, x, y2 - k, x, y2 - r);
  ctx.lineTo(x, y + r);
  ctx.bezierCurveTo(x, y + k, x + k, y, x + r, y);
  ctx.closePath();
}

function glyphPath(glyph: Glyph): SkiaPath {
  let path = glyphPaths.get(glyph);
  if (!path) {
    const { Path2D } = canvasModule();
    const d = glyph.path.toSVG();
    path = d ? new Path2D(d) : new Path2D();
    glyphPaths.set(glyph, path);
  }
  return path;
}

/**
 * A glyph run at baseline `y`, pen starting at `x`: each glyph's outline filled where the PDF's
 * TJ array puts it (advance with kerning, word, letter and character spacing; mark offsets), then
 * the underline or strike-through. Link areas have no picture.
 */
function drawText(p: RasterPainter, x: number, y: number, run: LineRun): void {
  const st = run.style;
  const face = run.face;
  const k = st.size / face.unitsPerEm;
  const ctx = p.ctx;
  p.fill(st.color);
  let pen = x;
  for (const piece of run.pieces) {
    const { glyphs, advances, offsets } = piece.run;
    const extra = piece.space ? run.wordSpacing : run.charSpacing;
    for (let i = 0; i < glyphs.length; i++) {
      const dx = offsets ? offsets[i][0] * k : 0;
      const dy = offsets ? offsets[i][1] * k : 0;
      const path = glyphPath(glyphs[i]);
      p.use([k, 0, 0, -k, pen + dx, y - dy]);
      ctx.fill(path, 'nonzero');
      pen += spacedAdvance(advances[i] * k, st.letterSpacing) + extra;
    }
  }
  if (st.decoration !== 'none') {
    const thickness = face.underlineThickness * st.size;
    const ly = st.decoration === 'underline' ? y + face.underlinePosition * st.size : y - (face.xHeight * st.size) / 2;
    p.use();
    p.stroke(st.color, thickness);
    ctx.beginPath();
    ctx.moveTo(x, ly);
    ctx.lineTo(x + run.width, ly);
    ctx.stroke();
  }
}

// The last canvas, kept for the next render of the same pixel size: allocating megabytes per
// render showed in previews' latency. Safe to share: from the canvas's creation to the encoded
// bytes, painting is synchronous (images are decoded before), so no other render interleaves.
let lastCanvas: Canvas | null = null;

function canvasOf(width: number, height: number, create: (w: number, h: number) => Canvas): Canvas {
  if (lastCanvas && lastCanvas.width === width && lastCanvas.height === height) return lastCanvas;
  lastCanvas = null; // the old one goes before the new one is made
  const canvas = create(width, height);
  // Large canvases are not kept: their pixels would stay in memory between renders.
  if (width * height <= 4_000_000) lastCanvas = canvas;
  return canvas;
}

/**
 * Paint one page into an image: white paper, then the page's items in order.
 * @throws RenderError LIMIT_EXCEEDED when the image would have more than `maxPixels` pixels
 *   (path `scale`), IMAGE_INVALID for an image Skia cannot decode, RENDER_ERROR for a draw item
 *   kind the image output cannot draw, or when the canvas library is not available.
 */
export async function paintImage(page: Page, options: RasterOptions): Promise<PaintedImage> {
  const { width, height } = pixelSize(page, options.scale);
  if (width * height > options.maxPixels) {
    throw new RenderError(
      'LIMIT_EXCEEDED',
      `the image would be ${width} x ${height} pixels (${(width * height).toLocaleString('en')}), more than the ${options.maxPixels.toLocaleString('en')} allowed; use a smaller scale`,
      'scale',
    );
  }
  const { createCanvas } = canvasModule();
  const pictures = await decodeImages(page, options.scale, width * height);
  const canvas: Canvas = canvasOf(width, height, createCanvas);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const painter = new RasterPainter(ctx, options.scale, pictures);
  painter.within(null, null, page.items);
  // The page is opaque (white paper): an RGB PNG from the raw pixels, faster and smaller than Skia's RGBA one.
  const bytes = options.format === 'jpeg' ? canvas.encodeSync('jpeg', options.quality ?? 90) : encodeOpaquePng(canvas.data(), width, height, options.effort);
  return { bytes, width, height };
}
