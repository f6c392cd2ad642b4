/**
 * PDF/A-1 forbids transparency (6.4): a PNG with an alpha channel (or a transparent palette entry)
 * is composited onto white and drawn as an opaque RGB PNG (paint/images.ts keeps the result, once
 * per image).
 */
import { PNG } from 'pngjs';
import type { DecodedImage } from '../layout/nodes.ts';

/** The image's bytes with no transparency left (JPEGs and opaque PNGs unchanged). */
export function opaqueImage(image: DecodedImage): Buffer {
  if (image.type !== 'png') return image.data;
  const png = PNG.sync.read(image.data);
  let transparent = false;
  for (let i = 3; i < png.data.length; i += 4) {
    if (png.data[i] !== 255) {
      transparent = true;
      break;
    }
  }
  let out = image.data;
  if (transparent) {
    const rgb = new PNG({ width: png.width, height: png.height, colorType: 2, inputColorType: 6, inputHasAlpha: true });
    const src = png.data;
    const dst = rgb.data;
    for (let i = 0; i < src.length; i += 4) {
      const a = src[i + 3] / 255;
      dst[i] = Math.round(src[i] * a + 255 * (1 - a));
      dst[i + 1] = Math.round(src[i + 1] * a + 255 * (1 - a));
      dst[i + 2] = Math.round(src[i + 2] * a + 255 * (1 - a));
      dst[i + 3] = 255;
    }
    out = PNG.sync.write(rgb, { colorType: 2 });
  }
  return out;
}
