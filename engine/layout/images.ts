/**
 * Image sources: `data:` URIs of PNG, JPEG and SVG images (`data:image/png;base64,...`,
 * `data:image/svg+xml;base64,...` or `data:image/svg+xml;utf8,<svg...>`), and any other source
 * (`https://...`, `asset:<id>`) whose bytes the caller fetched before the render and passed in
 * (RenderOptions.images). Decoded once per process (the engine's `images` cache, caches.ts, keyed
 * by the URI, or by the source and a digest of its bytes) and checked against the limits.
 */
import { createHash } from 'node:crypto';
import { createInflate, inflateSync } from 'node:zlib';
import { imageSize } from 'image-size';
import { caches } from '../caches.ts';
import { RenderError, type Limits } from '../errors.ts';
import type { DecodedImage } from './nodes.ts';
import { decodeSvg, DEFAULT_MAX_SVG_ELEMENTS, isSvg } from './svg.ts';

const DATA_URI = /^data:image\/(png|jpe?g);base64,/i;
const SVG_DATA_URI = /^data:image\/svg\+xml(;charset=[\w-]+)?(;base64|;utf8)?,/i;

/** Bytes of image sources fetched before the render (`https://...`, `asset:<id>`), by source. */
export type ImageBytes = ReadonlyMap<string, Uint8Array>;

/** Whether an image source is not a `data:` URI: its bytes come from outside the render (URL, asset). */
export function isExternalSource(src: string): boolean {
  return !/^data:/i.test(src);
}

/**
 * Decode an image source; `external` holds the bytes of sources that are not `data:` URIs.
 * @throws RenderError IMAGE_INVALID (not a PNG, JPEG or SVG, undecodable, or an external source
 *   whose bytes were not given) or LIMIT_EXCEEDED.
 */
export function decodeImage(src: string, limits: Limits, path: string, external?: ImageBytes): DecodedImage {
  let image: DecodedImage;
  if (isExternalSource(src)) {
    const bytes = external?.get(src);
    if (!bytes) {
      const shown = src.length > 60 ? `${src.slice(0, 60)}...` : src;
      throw new RenderError('IMAGE_INVALID', `image "${shown}" was not fetched: an image is a data URI (data:image/png;base64,...), an https:// URL or asset:<id>, and URLs and assets are fetched by the service before rendering`, path);
    }
    if (bytes.byteLength > limits.maxImageBytes) throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
    const key = `${src}\u0000${createHash('sha1').update(bytes).digest('base64')}`;
    image = caches.images.getOrCompute(key, () => decodeBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits, path)) as DecodedImage;
  } else {
    image = caches.images.getOrCompute(src, () => decodeUncached(src, limits, path)) as DecodedImage;
  }
  // Limits are per render: check them on every use, cached or not.
  if (image.data.length > limits.maxImageBytes) {
    throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
  }
  if (image.type !== 'svg' && image.width * image.height > limits.maxImagePixels) {
    throw new RenderError('LIMIT_EXCEEDED', `image has ${image.width}x${image.height} pixels, more than ${limits.maxImagePixels}`, path);
  }
  const maxElements = limits.maxSvgElements ?? DEFAULT_MAX_SVG_ELEMENTS;
  if (image.type === 'svg' && (image.elements ?? 0) > maxElements) throw new RenderError('LIMIT_EXCEEDED', `SVG image has more than ${maxElements} elements`, path);
  return image;
}

function decodeUncached(src: string, limits: Limits, path: string): DecodedImage {
  const svg = SVG_DATA_URI.exec(src);
  if (svg) {
    const body = src.slice(svg[0].length);
    if (body.length > limits.maxImageBytes * 3) throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
    let data: Buffer;
    try {
      data = svg[2]?.toLowerCase() === ';base64' ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body), 'utf8');
    } catch {
      throw new RenderError('IMAGE_INVALID', 'SVG data URI is not correctly percent-encoded', path);
    }
    if (data.length > limits.maxImageBytes) throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
    return decodeSvg(data, limits, path);
  }
  const m = DATA_URI.exec(src);
  if (!m) {
    const shown = src.length > 40 ? `${src.slice(0, 40)}...` : src;
    throw new RenderError('IMAGE_INVALID', `image must be a data URI of a PNG, JPEG or SVG (data:image/png;base64,...), got "${shown}"`, path);
  }
  const base64 = src.slice(m[0].length);
  if ((base64.length * 3) / 4 > limits.maxImageBytes) {
    throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
  }
  return decodeBytes(Buffer.from(base64, 'base64'), limits, path);
}

/**
 * An image's bytes checked and sized, all but the inflating of a PNG's pixel data: that is left
 * to the caller (`pixelData`: the joined IDAT chunks and the most bytes they may inflate to), so
 * a render inflates it at once and {@link checkImageBytes} off the caller's thread.
 */
function inspectBytes(data: Buffer, limits: ImageLimits, path: string | undefined): { image: DecodedImage; pixelData?: { compressed: Buffer; maxBytes: number; scanlines: Scanlines } } {
  if (isSvg(data)) return { image: decodeSvg(data, limits, path) };
  // The structure first: a file cut short says so, and image-size then reads only within it.
  const png = data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE);
  const structure = png ? pngChunks(data) : data.length >= 2 && data[0] === 0xff && data[1] === 0xd8 ? jpegProblem(data) : null;
  if (typeof structure === 'string') throw new RenderError('IMAGE_INVALID', structure, path);
  let size: { width?: number; height?: number; type?: string; orientation?: number };
  try {
    size = imageSize(data);
  } catch {
    throw new RenderError('IMAGE_INVALID', 'image data could not be decoded', path);
  }
  const type = size.type === 'png' ? 'png' : size.type === 'jpg' ? 'jpeg' : null;
  if (!type || !size.width || !size.height) {
    throw new RenderError('IMAGE_INVALID', `image data is not a PNG, JPEG or SVG (detected ${size.type ?? 'nothing'})`, path);
  }
  // The pixel limit before any pixel data is inflated: a small file may declare (and inflate to) gigabytes.
  if (size.width * size.height > limits.maxImagePixels) {
    throw new RenderError('LIMIT_EXCEEDED', `image has ${size.width}x${size.height} pixels, more than ${limits.maxImagePixels}`, path);
  }
  // A JPEG's EXIF orientation 5 to 8 turns it a quarter: it is shown (and laid out) with its sides
  // swapped. pdfkit turns the picture into the box it is given; Skia decodes it turned.
  const turned = type === 'jpeg' && (size.orientation ?? 1) > 4;
  const image: DecodedImage = { type, data, width: turned ? size.height : size.width, height: turned ? size.width : size.height };
  if (type !== 'png' || !structure) return { image };
  return { image, pixelData: { compressed: Buffer.concat(structure.idat), maxBytes: rawSizeBound(size.width, size.height), scanlines: pngScanlines(data) } };
}

/** What a PNG's pixel data is made of: per interlace pass (one when not interlaced), its scanlines and their length in bytes, filter byte included. */
type Scanlines = readonly { readonly rows: number; readonly bytes: number }[];

/** Adam7's passes: first column, first row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Samples a pixel has for each PNG colour type. */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** The scanlines of a PNG whose IHDR (the first chunk: pngChunks checked it) is well formed. */
function pngScanlines(png: Buffer): Scanlines {
  const [width, height, depth, color, interlace] = [png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25], png[28]];
  const bits = PNG_CHANNELS[color] * depth;
  const line = (pixels: number) => 1 + Math.ceil((pixels * bits) / 8);
  if (interlace === 0) return [{ rows: height, bytes: line(width) }];
  const passes: { rows: number; bytes: number }[] = [];
  for (const [x0, y0, dx, dy] of ADAM7) {
    const columns = Math.ceil((width - x0) / dx);
    const rows = Math.ceil((height - y0) / dy);
    if (columns > 0 && rows > 0) passes.push({ rows, bytes: line(columns) });
  }
  return passes;
}

/**
 * Checks a PNG's inflated pixel data as it comes, chunk by chunk: every scanline starts with a
 * filter type of 0 to 4, and the data holds every scanline its header declares. pdfkit's decoder
 * throws where nothing catches it on either fault (the render never ends), so both are refused.
 */
class ScanlineCheck {
  private seen = 0;
  private pass = 0;
  private row = 0;
  /** Where the next scanline starts, in the inflated data. */
  private next = 0;
  private readonly total: number;

  constructor(private readonly scanlines: Scanlines) {
    let total = 0;
    for (const p of scanlines) total += p.rows * p.bytes;
    this.total = total;
  }

  /** The next `chunk` of inflated data; a problem, or null. */
  feed(chunk: Uint8Array): string | null {
    const end = this.seen + chunk.length;
    while (this.pass < this.scanlines.length && this.next < end) {
      const filter = chunk[this.next - this.seen];
      if (filter > 4) return `PNG image data is corrupt: scanline ${this.row + 1}${this.scanlines.length > 1 ? ` of interlace pass ${this.pass + 1}` : ''} has filter type ${filter} (0 to 4 exist)`;
      this.next += this.scanlines[this.pass].bytes;
      if (++this.row === this.scanlines[this.pass].rows) {
        this.pass++;
        this.row = 0;
      }
    }
    this.seen = end;
    return null;
  }

  /** After the last chunk: a problem, or null. */
  end(): string | null {
    return this.seen < this.total ? `PNG data is truncated: its pixel data inflates to ${this.seen} bytes, fewer than the ${this.total} its header declares` : null;
  }
}

/** Decode the bytes of a PNG, JPEG or SVG image. */
function decodeBytes(data: Buffer, limits: Limits, path: string): DecodedImage {
  const { image, pixelData } = inspectBytes(data, limits, path);
  if (pixelData) {
    let problem: string | null = null;
    try {
      const check = new ScanlineCheck(pixelData.scanlines);
      problem = check.feed(inflateSync(pixelData.compressed, { maxOutputLength: pixelData.maxBytes })) ?? check.end();
    } catch (e) {
      problem = inflateProblem(e, pixelData.maxBytes);
    }
    if (problem) throw new RenderError('IMAGE_INVALID', problem, path);
  }
  return image;
}

/** The limits an image's decoding checks. */
export type ImageLimits = Pick<Limits, 'maxImageBytes' | 'maxImagePixels' | 'maxSvgElements'>;

/** What a checked image is: its type and size (pixels; an SVG's in points). */
export interface CheckedImage {
  readonly type: DecodedImage['type'];
  readonly width: number;
  readonly height: number;
}

/**
 * Check the bytes of an image as a render decodes them (the same checks, with `limits`), for a
 * caller that keeps the image to draw later (an uploaded asset): a PNG's chunks up to its IEND
 * and its whole pixel data (inflated and counted, not kept; on libuv's thread pool, so the
 * caller's thread is not held), a JPEG's segments up to its image data, an SVG's entities, size
 * and elements, and the size and pixel limits.
 * `drawSvg` (engine/index.ts passes the paint pass's): an SVG is drawn once, as a PDF would draw it.
 * @throws RenderError IMAGE_INVALID (not a PNG, JPEG or SVG; truncated or corrupt; an SVG that
 *   cannot be drawn) or LIMIT_EXCEEDED (bytes, pixels, SVG elements, path segments or size),
 *   without a path; the message says what is wrong.
 */
export async function checkImageBytes(bytes: Uint8Array, limits: ImageLimits, drawSvg?: (image: DecodedImage) => void): Promise<CheckedImage> {
  if (bytes.byteLength > limits.maxImageBytes) throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`);
  const { image, pixelData } = inspectBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits, undefined);
  if (image.type === 'svg') drawSvg?.(image);
  if (pixelData) {
    const problem = await inflatedProblem(pixelData.compressed, pixelData.maxBytes, new ScanlineCheck(pixelData.scanlines));
    if (problem) throw new RenderError('IMAGE_INVALID', problem);
  }
  return { type: image.type, width: image.width, height: image.height };
}

/** Why inflating a PNG's pixel data failed, as a sentence (zlib's error `e`; `maxBytes` the bound it passed). */
function inflateProblem(e: unknown, maxBytes: number): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'Z_BUF_ERROR') return 'PNG data is truncated: its compressed pixel data (IDAT) ends before the image does';
  if (err?.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
    return `PNG image data is corrupt: its pixel data inflates to more than its header declares (at most ${maxBytes} bytes)`;
  }
  return `PNG image data is corrupt: its compressed pixel data (IDAT) does not inflate (${err?.message ?? e})`;
}

/**
 * {@link inflateProblem} of inflating `compressed` with at most `maxBytes` out, streamed (nothing
 * kept) on libuv's thread pool, or what `scanlines` finds in what comes out; null when neither.
 */
function inflatedProblem(compressed: Buffer, maxBytes: number, scanlines: ScanlineCheck): Promise<string | null> {
  return new Promise((resolve) => {
    const inflate = createInflate({ chunkSize: 256 * 1024 });
    let out = 0;
    inflate.on('data', (chunk: Buffer) => {
      out += chunk.length;
      const problem = out > maxBytes ? inflateProblem(Object.assign(new RangeError('too large'), { code: 'ERR_BUFFER_TOO_LARGE' }), maxBytes) : scanlines.feed(chunk);
      if (problem !== null) {
        inflate.destroy();
        resolve(problem);
      }
    });
    inflate.on('error', (e) => resolve(inflateProblem(e, maxBytes)));
    inflate.on('end', () => resolve(scanlines.end()));
    inflate.end(compressed);
  });
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG's chunks, walked from its signature to its IEND chunk as pdfkit's reader walks them
 * (pdfkit refuses a file without IEND): the IDAT chunks, or why the file cannot be read. The
 * chunks before the pixel data are checked as libpng's header reader checks them
 * ({@link pngHeaderProblem}): Skia's decoder (the image output) crashes the process on any fault
 * it finds there.
 */
function pngChunks(png: Buffer): { idat: Buffer[] } | string {
  const idat: Buffer[] = [];
  let colorType = -1;
  let palette = false;
  for (let at = 8; ; ) {
    if (at + 8 > png.length) return `PNG data is truncated: the file ends after ${png.length} bytes, before its IEND chunk`;
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    // IEND holds nothing; pdfkit does not read its CRC either.
    if (type === 'IEND') return idat.length > 0 ? { idat } : 'PNG has no pixel data (no IDAT chunk)';
    if (at + 12 + length > png.length) {
      const name = /^[A-Za-z]{4}$/.test(type) ? `its ${type} chunk` : `a chunk at byte ${at}`;
      return `PNG data is truncated: ${name} (${length} bytes) runs past the end of the file (${png.length} bytes), before its IEND chunk`;
    }
    if (idat.length === 0) {
      const problem = pngHeaderProblem(png, at, length, type, colorType, palette);
      if (problem !== null) return `PNG image data is corrupt: ${problem}`;
      if (type === 'IHDR') colorType = png[at + 8 + 9];
      if (type === 'PLTE') palette = true;
    }
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
}

/** Bit depths libpng takes for each PNG colour type. */
const PNG_DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/**
 * Why the chunk at `at` (before the first IDAT; whole) is one libpng's header reader refuses, or
 * null: IHDR first, 13 bytes, with a size of 1 to 1,000,000 pixels a side (libpng's default
 * limit), a bit depth its colour type has, compression and filter method 0 and interlace 0 or
 * 1; a critical chunk before the pixel data (IHDR, PLTE) whose CRC does not match, or one libpng
 * does not know; a
 * palette of 1 to 256 colours where the colour type has one, before the pixel data of an indexed
 * image; a chunk name of letters only. `colorType`: IHDR's (-1 before it); `palette`: whether a
 * PLTE was seen.
 */
function pngHeaderProblem(png: Buffer, at: number, length: number, type: string, colorType: number, palette: boolean): string | null {
  if (!/^[A-Za-z]{4}$/.test(type)) return `a chunk at byte ${at} has no chunk name (${JSON.stringify(type)})`;
  if (length > 0x7fffffff) return `its ${type} chunk declares ${length} bytes`;
  if (colorType < 0 && type !== 'IHDR') return `its first chunk is ${type}, not IHDR`;
  const critical = type.charCodeAt(0) < 0x61;
  // (IDAT's CRC libpng checks while drawing, where a fault is no crash; pdfkit does not check it.)
  if (critical && type !== 'IDAT' && crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) return `its ${type} chunk's CRC does not match its data`;
  if (type === 'IHDR') {
    if (colorType >= 0) return 'it has a second IHDR chunk';
    if (length !== 13) return `its IHDR chunk is ${length} bytes long, not 13`;
    const d = png.subarray(at + 8, at + 21);
    const [width, height, depth, color] = [d.readUInt32BE(0), d.readUInt32BE(4), d[8], d[9]];
    if (width < 1 || height < 1 || width > 1_000_000 || height > 1_000_000) return `its size is ${width}x${height} pixels (each side 1 to 1,000,000)`;
    if (!PNG_DEPTHS[color]?.includes(depth)) return `colour type ${color} with a bit depth of ${depth} is no PNG format`;
    if (d[10] !== 0 || d[11] !== 0 || d[12] > 1) return `its compression, filter or interlace method (${d[10]}, ${d[11]}, ${d[12]}) is unknown`;
    return null;
  }
  if (type === 'PLTE') {
    if (palette) return 'it has a second PLTE chunk';
    if (colorType === 0 || colorType === 4) return 'a greyscale image has a palette (PLTE)';
    if (length === 0 || length % 3 !== 0 || length > 768) return `its palette (PLTE) is ${length} bytes long (1 to 256 colours of 3 bytes)`;
    return null;
  }
  if (type === 'IDAT') return colorType === 3 && !palette ? 'an indexed-colour image has no palette (PLTE) before its pixel data' : null;
  if (critical) return `it has a critical chunk ${type} no PNG reader knows`;
  return null;
}

/** CRC-32 (ISO 3309, as PNG's chunks have it). */
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** JPEG markers of the frame headers a render can decode (baseline, extended, progressive, lossless, arithmetic). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc9, 0xca, 0xcb]);

/** JPEG frame markers no decoder here reads (differential/hierarchical, and JPG). */
const SOF_UNSUPPORTED = new Set([0xc5, 0xc6, 0xc7, 0xc8, 0xcd, 0xce, 0xcf]);

/** Marker segments libjpeg reads or skips before the image data: DHT, DAC, DQT, DRI, DNL, APP0-APP15, COM. */
const KNOWN_SEGMENT = (marker: number): boolean => marker === 0xc4 || marker === 0xcc || marker === 0xdb || marker === 0xdd || marker === 0xdc || (marker >= 0xe0 && marker <= 0xef) || marker === 0xfe;

/**
 * Why a JPEG (starting with SOI) cannot be drawn, or null. Its header, everything up to the end of
 * its first SOS segment (the start of the image data), is read as libjpeg reads it: the marker
 * segments must be whole and each must be one libjpeg takes (a frame header of a supported kind,
 * once, before the SOS; tables with indexes in range and lengths that add up; components and
 * sampling factors within libjpeg's bounds; an SOS naming the frame's components). Skia's
 * decoder (the image output) crashes the process (SIGSEGV) on any fault libjpeg finds there, and
 * pdfkit reads the frame header's bytes without checking them. Bytes between segments are
 * skipped, as both readers skip them; image data cut short is drawn as far as it goes.
 */
function jpegProblem(jpeg: Buffer): string | null {
  const truncated = `JPEG data is truncated: the file ends after ${jpeg.length} bytes, before its image data (the SOS segment)`;
  const corrupt = (why: string) => `JPEG image data is corrupt: ${why}`;
  /** The frame's component ids (null before the SOF). */
  let components: number[] | null = null;
  for (let at = 2; ; ) {
    while (at < jpeg.length && jpeg[at] !== 0xff) at++;
    while (at + 1 < jpeg.length && jpeg[at + 1] === 0xff) at++;
    if (at + 2 > jpeg.length) return truncated;
    const marker = jpeg[at + 1];
    const name = `0xFF${marker.toString(16).toUpperCase().padStart(2, '0')}`;
    if (marker === 0xd9) return 'JPEG has no image data: it ends (EOI) before an SOS segment';
    // A stuffed 0xFF00 is no marker: skipped as libjpeg skips it. TEM and RST0-RST7 have no segment.
    if (marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd8) return corrupt(`a second SOI marker at byte ${at}`);
    if (SOF_UNSUPPORTED.has(marker)) return corrupt(`its frame type (marker ${name}) is not supported: only baseline, extended, progressive, lossless and arithmetic JPEG`);
    if (marker !== 0xda && !SOF.has(marker) && !KNOWN_SEGMENT(marker)) return corrupt(`unknown marker ${name} at byte ${at}`);
    if (at + 4 > jpeg.length) return truncated;
    const length = jpeg.readUInt16BE(at + 2);
    if (at + 2 + length > jpeg.length) return truncated;
    const seg = jpeg.subarray(at + 4, at + 2 + Math.max(2, length));
    const bad = (what: string) => corrupt(`its ${what} segment at byte ${at} is malformed`);
    if (SOF.has(marker)) {
      if (components !== null) return corrupt('it has a second frame header (SOF)');
      if (length < 8) return corrupt(`its frame header (SOF) is ${length} bytes long`);
      const [precision, height, width, count] = [seg[0], seg.readUInt16BE(1), seg.readUInt16BE(3), seg[5]];
      if (height === 0 || width === 0 || count === 0) return corrupt(`its frame header declares ${width}x${height} pixels and ${count} components`);
      if (length !== 8 + 3 * count) return bad('frame header (SOF)');
      if (width > 65500 || height > 65500) return corrupt(`it is ${width}x${height} pixels, more than the 65500 a side a JPEG decoder takes`);
      const lossless = marker === 0xc3 || marker === 0xcb;
      if (lossless ? precision < 2 || precision > 16 : precision !== 8 && precision !== 12) return corrupt(`its samples have ${precision} bits, which no decoder here reads`);
      if (count > 10) return corrupt(`it has ${count} components, more than 10`);
      components = [];
      for (let c = 0; c < count; c++) {
        const sampling = seg[6 + 3 * c + 1];
        const [h, v] = [sampling >> 4, sampling & 15];
        if (h < 1 || h > 4 || v < 1 || v > 4) return corrupt(`a component's sampling factors are ${h}x${v} (each must be 1 to 4)`);
        components.push(seg[6 + 3 * c]);
      }
    } else if (marker === 0xda) {
      if (components === null) return corrupt('it has no frame header (SOF) before its image data');
      const count = length >= 3 ? seg[0] : 0;
      if (count < 1 || count > 4 || length !== 6 + 2 * count) return bad('SOS');
      const unused = [...components];
      for (let c = 0; c < count; c++) {
        const i = unused.indexOf(seg[1 + 2 * c]);
        if (i < 0) return corrupt(`its image data (SOS) names a component (${seg[1 + 2 * c]}) its frame header does not have`);
        unused.splice(i, 1);
      }
      return null;
    } else if (marker === 0xdb) {
      // DQT: whole tables of 64 values (8 or 16 bits) each, with an index 0-3, filling the
      // segment (libjpeg reads a table cut short, and Skia crashes on it).
      let left = length - 2;
      for (let p = 0; left > 0; ) {
        const head = seg[p];
        if ((head & 15) >= 4) return corrupt(`a quantization table (DQT) has the index ${head & 15} (0 to 3)`);
        if (head >> 4 > 1) return bad('DQT');
        const size = 1 + (head >> 4 === 1 ? 128 : 64);
        if (left < size) return bad('DQT');
        left -= size;
        p += size;
      }
      if (left !== 0) return bad('DQT');
    } else if (marker === 0xc4) {
      // DHT: each table a class and index (0-3), 16 counts and as many values as they add up to.
      let left = length - 2;
      for (let p = 0; left > 16; ) {
        const index = seg[p];
        let count = 0;
        for (let i = 1; i <= 16; i++) count += seg[p + i];
        left -= 17;
        if (count > 256 || count > left) return bad('DHT');
        if ((index & ~0x10) >= 4) return corrupt(`a Huffman table (DHT) has the index ${index & ~0x10} (0 to 3)`);
        left -= count;
        p += 17 + count;
      }
      if (left !== 0) return bad('DHT');
    } else if (marker === 0xdd) {
      if (length !== 4) return bad('DRI');
    } else if (marker === 0xcc) {
      // DAC: pairs of a table index (0-31) and a value (DC: low nibble at most the high one; AC: 1-63).
      let left = length - 2;
      for (let p = 0; left > 0; p += 2) {
        if (left < 2) return bad('DAC');
        const [index, value] = [seg[p], seg[p + 1]];
        left -= 2;
        if (index >= 32 || (index >= 16 ? value < 1 || value > 63 : (value & 15) > value >> 4)) return bad('DAC');
      }
    }
    at += 2 + length;
  }
}

/**
 * The most bytes a PNG of `width` x `height` pixels inflates to: 8 bytes a pixel (16-bit RGBA)
 * and a filter byte per scanline of each of the 7 interlace passes, with room to spare.
 */
function rawSizeBound(width: number, height: number): number {
  return width * height * 8 + 8 * height + 4096;
}
