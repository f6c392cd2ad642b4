/**
 * QR codes read back: the engine's module matrix, drawn as a picture with its quiet zone, decoded
 * by a QR reader (jsQR) gives the value back, at every error correction level and in every mode.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { encodeCode } from '../../engine/layout/codes.ts';
import type { RenderError } from '../../engine/index.ts';
import { renderError } from '../helpers/render.ts';

// jsqr is CommonJS: its module is the reader function.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

/** The value a QR reader finds in the engine's QR code of `value` (null when none). */
function readBack(value: string, level: string): string | null {
  const code = encodeCode('qrcode', value, { eclevel: level }, 'qrcode');
  const scale = 4;
  const quiet = 4;
  const size = (code.unitsWide + 2 * quiet) * scale;
  const rgba = new Uint8ClampedArray(size * size * 4).fill(255);
  for (let i = 0; i < code.rects.length; i += 4) {
    const [x, y, w, h] = code.rects.slice(i, i + 4) as [number, number, number, number];
    for (let py = (y + quiet) * scale; py < (y + h + quiet) * scale; py++) {
      for (let px = (x + quiet) * scale; px < (x + w + quiet) * scale; px++) rgba.fill(0, (py * size + px) * 4, (py * size + px) * 4 + 3);
    }
  }
  const found = jsQR(rgba, size, size, { inversionAttempts: 'dontInvert' });
  return found ? (found.binaryData.length > 0 ? Buffer.from(found.binaryData).toString('utf8') : found.data) : null;
}

test('QR codes of URLs, numbers, upper-case text and UTF-8 text read back at L, M, Q and H', () => {
  const values = [
    'https://pay.kestrel-print.example/i/INV-2025-0042',
    'hello',
    '012345678901234567890',
    'INV-2025 0042: $12.50',
    'Grüße aus Köln, 1.234,56 € — 東京',
    'x'.repeat(1000),
  ];
  for (const value of values) {
    for (const level of ['L', 'M', 'Q', 'H']) {
      assert.equal(readBack(value, level), value, `${JSON.stringify(value.slice(0, 30))} at ${level}`);
    }
  }
});

test('any short text reads back from its QR code', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 120, unit: 'grapheme' }), fc.constantFrom('L', 'M', 'Q', 'H'), (value, level) => {
      assert.equal(readBack(value, level), value);
    }),
    { numRuns: 60 },
  );
});

test('a higher error correction level makes a larger symbol for the same value', () => {
  const value = 'https://pay.kestrel-print.example/i/INV-2025-0042';
  const sizes = ['L', 'M', 'Q', 'H'].map((level) => encodeCode('qrcode', value, { eclevel: level }, 'qrcode').unitsWide);
  assert.deepEqual(sizes, [29, 33, 37, 41]);
});

test('a QR value too long for any QR code fails the render with BARCODE_INVALID at the node; an empty one is refused', async () => {
  const long = await renderError({ content: [{ text: 'a' }, { qrcode: '{{v}}', size: 80, errorCorrection: 'H' }] }, { v: 'x'.repeat(2000) });
  assert.equal(long.code, 'BARCODE_INVALID');
  assert.equal(long.path, 'content[1].qrcode');
  assert.match(long.message, /2000 characters .* too long/);
  assert.throws(() => encodeCode('qrcode', '', { eclevel: 'M' }, 'qrcode'), (e: RenderError) => e.code === 'BARCODE_INVALID');
});

test('a code value longer than any symbology holds is refused at once, before it is encoded', async () => {
  const huge = 'x'.repeat(5_000_000);
  const start = performance.now();
  assert.throws(() => encodeCode('qrcode', huge, { eclevel: 'L' }, 'content[0].qrcode'), (e: RenderError) => e.code === 'BARCODE_INVALID' && e.path === 'content[0].qrcode' && /7089 characters/.test(e.message) && e.message.length < 200);
  assert.throws(() => encodeCode('code128', huge, {}, 'content[1].barcode'), (e: RenderError) => e.code === 'BARCODE_INVALID' && e.path === 'content[1].barcode');
  assert.ok(performance.now() - start < 1000, `refused after ${performance.now() - start} ms`);
  // The longest a QR code holds still encodes.
  assert.ok(encodeCode('qrcode', '1'.repeat(7089), { eclevel: 'L' }, 'p').unitsWide === 177);
});
