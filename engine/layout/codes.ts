/**
 * QR codes and barcodes through bwip-js, kept as vectors: bwip-js's raw encoding (a module matrix
 * for 2D symbols, bar/space widths for linear ones) becomes a list of filled rectangles.
 */
import bwipjs from 'bwip-js';
import { caches } from '../caches.ts';
import { RenderError } from '../errors.ts';
import type { VectorCode } from './nodes.ts';

interface Raw2D {
  pixs: number[];
  pixx: number;
  pixy: number;
}
interface RawLinear {
  sbs: number[];
  bhs: number[];
  bbs: number[];
}

/**
 * Encode `value` in symbology `bcid` (a bwip-js id: qrcode, code128, ean13, datamatrix, ...).
 * @throws RenderError BARCODE_INVALID when bwip-js refuses the value or the symbology.
 */
export function encodeCode(bcid: string, value: string, options: Record<string, string | number | boolean>, path: string): VectorCode {
  // Encoding a QR code takes milliseconds; the same value recurs across documents (and pages).
  const key = `${bcid}\u0000${JSON.stringify(options)}\u0000${value}`;
  return caches.codes.getOrCompute(key, () => encodeUncached(bcid, value, options, path)) as VectorCode;
}

/**
 * Encode one QR code, uncached and thrown away: bwip-js's first call is slow (its encoder is a
 * large translation of PostScript that V8 compiles on first use, some 20-40 ms), so a render
 * thread calls this before taking work.
 */
export function warmUpCodes(): void {
  bwipjs.raw('qrcode', 'https://example.com/warm-up/0123456789', { eclevel: 'M' } as never);
}

function encodeUncached(bcid: string, value: string, options: Record<string, string | number | boolean>, path: string): VectorCode {
  let raw: (Raw2D | RawLinear)[];
  try {
    raw = bwipjs.raw(bcid, value, options as never) as unknown as (Raw2D | RawLinear)[];
  } catch (e) {
    const message = (e as Error).message.replace(/^bwipp\.\w+#\d+:\s*/, '');
    const shown = value.length > 40 ? `"${value.slice(0, 37)}..." (${value.length} characters)` : `"${value}"`;
    throw new RenderError('BARCODE_INVALID', `cannot encode ${shown} as ${bcid}: ${message.length > 200 ? `${message.slice(0, 197)}...` : message}`, path);
  }
  const sym = raw[0];
  return 'pixs' in sym ? matrix(sym) : bars(sym);
}

function matrix(sym: Raw2D): VectorCode {
  const rects: number[] = [];
  for (let y = 0; y < sym.pixy; y++) {
    let x = 0;
    while (x < sym.pixx) {
      if (!sym.pixs[y * sym.pixx + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < sym.pixx && sym.pixs[y * sym.pixx + x]) x++;
      rects.push(start, y, x - start, 1);
    }
  }
  return { rects, unitsWide: sym.pixx, unitsHigh: sym.pixy };
}

function bars(sym: RawLinear): VectorCode {
  // bhs/bbs are bar heights and bottoms in inches; normalise to the tallest bar = 1 unit high...
  // expressed in width units so the caller scales both axes separately.
  let top = 0;
  for (let i = 0; i < sym.bhs.length; i++) top = Math.max(top, sym.bhs[i] + sym.bbs[i]);
  const rects: number[] = [];
  let x = 0;
  for (let i = 0; i < sym.sbs.length; i++) {
    const w = sym.sbs[i];
    if (i % 2 === 0) {
      const b = i / 2;
      const h = (sym.bhs[b] ?? top) / top;
      const bottom = (sym.bbs[b] ?? 0) / top;
      rects.push(x, 1 - bottom - h, w, h);
    }
    x += w;
  }
  return { rects, unitsWide: x, unitsHigh: 1 };
}
