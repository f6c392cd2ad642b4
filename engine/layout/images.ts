/**
 * Image sources: `data:image/png;base64,...` and `data:image/jpeg;base64,...` URIs, decoded once
 * per process (the engine's `images` cache, caches.ts, keyed by the URI) and checked against the
 * limits.
 */
import { inflateSync } from 'node:zlib';
import { imageSize } from 'image-size';
import { caches } from '../caches.ts';
import { RenderError, type Limits } from '../errors.ts';
import type { DecodedImage } from './nodes.ts';

const DATA_URI = /^data:image\/(png|jpe?g);base64,/i;

/**
 * Decode an image source.
 * @throws RenderError IMAGE_INVALID (not a PNG/JPEG data URI, or undecodable) or LIMIT_EXCEEDED.
 */
export function decodeImage(src: string, limits: Limits, path: string): DecodedImage {
  const image = caches.images.getOrCompute(src, () => decodeUncached(src, limits, path)) as DecodedImage;
  // Limits are per render: check them on every use, cached or not.
  if (image.data.length > limits.maxImageBytes) {
    throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
  }
  if (image.width * image.height > limits.maxImagePixels) {
    throw new RenderError('LIMIT_EXCEEDED', `image has ${image.width}x${image.height} pixels, more than ${limits.maxImagePixels}`, path);
  }
  return image;
}

function decodeUncached(src: string, limits: Limits, path: string): DecodedImage {
  const m = DATA_URI.exec(src);
  if (!m) {
    const shown = src.length > 40 ? `${src.slice(0, 40)}...` : src;
    throw new RenderError('IMAGE_INVALID', `image must be a data URI of a PNG or JPEG (data:image/png;base64,...), got "${shown}"`, path);
  }
  const base64 = src.slice(m[0].length);
  if ((base64.length * 3) / 4 > limits.maxImageBytes) {
    throw new RenderError('LIMIT_EXCEEDED', `image is larger than ${limits.maxImageBytes} bytes`, path);
  }
  const data = Buffer.from(base64, 'base64');
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(data);
  } catch {
    throw new RenderError('IMAGE_INVALID', 'image data could not be decoded', path);
  }
  const type = size.type === 'png' ? 'png' : size.type === 'jpg' ? 'jpeg' : null;
  if (!type || !size.width || !size.height) {
    throw new RenderError('IMAGE_INVALID', `image data is not a PNG or JPEG (detected ${size.type ?? 'nothing'})`, path);
  }
  if (type === 'png' && !pixelDataInflates(data)) throw new RenderError('IMAGE_INVALID', 'PNG image data is corrupt (its IDAT chunks do not inflate)', path);
  return { type, data, width: size.width, height: size.height };
}

/**
 * Whether a PNG's compressed pixel data (its IDAT chunks, joined) inflates. pdfkit inflates it
 * only when painting, in a callback whose error nobody can catch; a corrupt image must fail here.
 */
function pixelDataInflates(png: Buffer): boolean {
  const parts: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  try {
    inflateSync(Buffer.concat(parts));
    return parts.length > 0;
  } catch {
    return false;
  }
}
