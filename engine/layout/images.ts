/**
 * Image sources: `data:` URIs of PNG, JPEG and SVG images (`data:image/png;base64,...`,
 * `data:image/svg+xml;base64,...` or `data:image/svg+xml;utf8,<svg...>`), and any other source
 * (`https://...`, `asset:<id>`) whose bytes the caller fetched before the render and passed in
 * (RenderOptions.images). Decoded once per process (the engine's `images` cache, caches.ts, keyed
 * by the URI, or by the source and a digest of its bytes) and checked against the limits.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
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

/** Decode the bytes of a PNG, JPEG or SVG image. */
function decodeBytes(data: Buffer, limits: Limits, path: string): DecodedImage {
  if (isSvg(data)) return decodeSvg(data, limits, path);
  let size: { width?: number; height?: number; type?: string };
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
  if (type === 'png' && !pixelDataInflates(data, rawSizeBound(size.width, size.height))) {
    throw new RenderError('IMAGE_INVALID', 'PNG image data is corrupt (its IDAT chunks do not inflate to the size its header declares)', path);
  }
  return { type, data, width: size.width, height: size.height };
}

/**
 * The most bytes a PNG of `width` x `height` pixels inflates to: 8 bytes a pixel (16-bit RGBA)
 * and a filter byte per scanline of each of the 7 interlace passes, with room to spare.
 */
function rawSizeBound(width: number, height: number): number {
  return width * height * 8 + 8 * height + 4096;
}

/**
 * Whether a PNG's compressed pixel data (its IDAT chunks, joined) inflates to at most `maxBytes`
 * (more is a decompression bomb, never a real image of that size). pdfkit inflates it
 * only when painting, in a callback whose error nobody can catch; a corrupt image must fail here.
 */
function pixelDataInflates(png: Buffer, maxBytes: number): boolean {
  const parts: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  try {
    inflateSync(Buffer.concat(parts), { maxOutputLength: maxBytes });
    return parts.length > 0;
  } catch {
    return false;
  }
}
