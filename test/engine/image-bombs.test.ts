/**
 * Decompression bombs in images: a PNG whose pixel data inflates to far more than its header
 * declares is refused without inflating it all, and the pixel limit is checked before any pixel
 * data is inflated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { DEFAULT_LIMITS } from '../../engine/errors.ts';
import { decodeSvg } from '../../engine/layout/svg.ts';
import { encodePng, pngChunk } from '../helpers/images.ts';
import { render, renderError } from '../helpers/render.ts';

/** A PNG (RGBA, 8 bits) declaring `width` x `height` whose IDAT is `raw` deflated. */
function png(width: number, height: number, raw: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND', Buffer.alloc(0))]);
}

const uri = (b: Buffer) => `data:image/png;base64,${b.toString('base64')}`;

test('a 100x100 PNG whose pixel data inflates to 64 MB is IMAGE_INVALID at its path', async () => {
  const bomb = png(100, 100, Buffer.alloc(64 * 1024 * 1024));
  assert.ok(bomb.length < 200_000, `the bomb is ${bomb.length} bytes`);
  const e = await renderError({ content: [{ text: 'x' }, { image: uri(bomb) }] });
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.match(e.message, /header declares/);
  assert.match(e.path ?? '', /^content\[1\]/);
});

test('a PNG over the pixel limit is LIMIT_EXCEEDED before its data is looked at (even when that data is garbage)', async () => {
  const big = png(5000, 5000, Buffer.from('not deflate'));
  const e = await renderError({ content: [{ image: uri(big) }] }, {}, { maxImagePixels: 1_000_000 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.match(e.message, /5000x5000/);
});

test('a real PNG (and a 16-bit-sized bound) still renders', async () => {
  const ok = encodePng(64, 48, (x, y) => [x * 4, y * 5, 128, 255]);
  const r = await render({ content: [{ image: uri(ok), width: 64 }] });
  assert.ok(r.pdf.length > 0);
});

test('SVG references under any namespace prefix (xmlns:xl bound to XLink), or right after a quote, are dropped like xlink:href', () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xl="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><image xl:href="https://evil.example/a.png" width="5" height="5"/><use xl:href="#r"/><image width="5"href="file:///etc/passwd" height="5"/><rect id="r" width="1" height="1"/></svg>`;
  const out = decodeSvg(Buffer.from(svg), DEFAULT_LIMITS, 'content[0].image').data.toString();
  assert.ok(!out.includes('evil.example') && !out.includes('passwd'), out);
  assert.ok(out.includes('xl:href="#r"'), 'a reference inside the document stays');
});
