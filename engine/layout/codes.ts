/**
 * QR codes and barcodes, kept as vectors: a module matrix (2D symbols) or bar/space widths
 * (linear ones) becomes a list of filled rectangles. QR codes through qrcode-generator (MIT):
 * bwip-js took some 10 ms a code even when warm, and 20-40 ms on its first call in a process;
 * every other symbology through bwip-js's raw encoding.
 */
import { createRequire } from 'node:module';
import qrcode from 'qrcode-generator';
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

type Bwip = { raw: typeof import('bwip-js').raw };
let bwip: Bwip | null = null;

/**
 * Load bwip-js, the encoder of every symbology but QR codes, before a layout that needs it.
 * It is not imported with the engine: its 2 MB of source and the tables it builds cost about 3 MB
 * of heap and 6 MB of RSS in every process and render thread, and most documents have no
 * barcode. The pipeline calls this before laying out a template with a barcode node; a layout
 * reached otherwise loads it synchronously on its first barcode.
 */
export async function loadBarcodeEncoder(): Promise<void> {
  if (!bwip) bwip = (await import('bwip-js')).default as Bwip;
}

function barcodeEncoder(): Bwip {
  if (!bwip) bwip = createRequire(import.meta.url)('bwip-js') as Bwip;
  return bwip;
}

/** The most characters any symbology encodes: a version 40 QR code of digits at level L. */
export const MAX_CODE_CHARACTERS = 7089;

/**
 * Encode `value` in symbology `bcid` (a bwip-js id: qrcode, code128, ean13, datamatrix, ...).
 * @throws RenderError BARCODE_INVALID when bwip-js refuses the value or the symbology.
 */
export function encodeCode(bcid: string, value: string, options: Record<string, string | number | boolean>, path: string): VectorCode {
  // No symbology holds more (a QR code's numeric mode at its largest): refused before an encoder
  // spends seconds on megabytes, and before the value becomes a cache key.
  if (value.length > MAX_CODE_CHARACTERS) {
    throw new RenderError('BARCODE_INVALID', `cannot encode ${shortly(value)} as ${bcid}: no ${bcid === 'qrcode' ? 'QR code' : 'barcode'} holds more than ${MAX_CODE_CHARACTERS} characters`, path);
  }
  // Encoding a QR code takes milliseconds; the same value recurs across documents (and pages).
  const key = `${bcid}\u0000${JSON.stringify(options)}\u0000${value}`;
  return caches.codes.getOrCompute(key, () => encodeUncached(bcid, value, options, path)) as VectorCode;
}

/** Encode one QR code, uncached and thrown away: the encoder's code compiled before a render needs it. */
export function warmUpCodes(): void {
  encodeQr('https://example.com/warm-up/0123456789', 'M', 'warmUp');
}

function encodeUncached(bcid: string, value: string, options: Record<string, string | number | boolean>, path: string): VectorCode {
  if (bcid === 'qrcode') return encodeQr(value, String(options.eclevel ?? 'M'), path);
  let raw: (Raw2D | RawLinear)[];
  try {
    raw = barcodeEncoder().raw(bcid, value, options as never) as unknown as (Raw2D | RawLinear)[];
  } catch (e) {
    const message = (e as Error).message.replace(/^bwipp\.\w+#\d+:\s*/, '');
    throw new RenderError('BARCODE_INVALID', `cannot encode ${shortly(value)} as ${bcid}: ${message.length > 200 ? `${message.slice(0, 197)}...` : message}`, path);
  }
  const sym = raw[0];
  return 'pixs' in sym ? matrix(sym) : bars(sym);
}

/** A value as an error message names it: whole when short, else its start and its length. */
function shortly(value: string): string {
  return value.length > 40 ? `"${value.slice(0, 37)}..." (${value.length} characters)` : `"${value}"`;
}

type QrLevel = 'L' | 'M' | 'Q' | 'H';
const QR_LEVELS: readonly string[] = ['L', 'M', 'Q', 'H'];
// The text as UTF-8 (the library's default keeps only the low byte of each UTF-16 unit).
qrcode.stringToBytes = (text: string) => Array.from(Buffer.from(text, 'utf8'));

/**
 * A QR code of `value` at error correction `level` (L, M, Q or H; others are M): the smallest
 * version that holds it, in numeric, alphanumeric or byte (UTF-8) mode, the mask the library
 * scores best. The matrix has no quiet zone.
 * @throws RenderError BARCODE_INVALID for an empty value or one too long for a QR code.
 */
function encodeQr(value: string, level: string, path: string): VectorCode {
  if (value === '') throw new RenderError('BARCODE_INVALID', 'cannot encode an empty value as qrcode', path);
  const qr = qrcode(0, (QR_LEVELS.includes(level) ? level : 'M') as QrLevel);
  try {
    qr.addData(value, /^[0-9]+$/.test(value) ? 'Numeric' : /^[0-9A-Z $%*+\-./:]+$/.test(value) ? 'Alphanumeric' : 'Byte');
    qr.make();
  } catch {
    throw new RenderError('BARCODE_INVALID', `cannot encode ${value.length} characters as qrcode at error correction ${level}: too long for a QR code`, path);
  }
  const n = qr.getModuleCount();
  const rects: number[] = [];
  for (let y = 0; y < n; y++) {
    let x = 0;
    while (x < n) {
      if (!qr.isDark(y, x)) {
        x++;
        continue;
      }
      const start = x;
      while (x < n && qr.isDark(y, x)) x++;
      rects.push(start, y, x - start, 1);
    }
  }
  return { rects, unitsWide: n, unitsHigh: n };
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
