/**
 * Images that can never be drawn fail where they are decoded, with IMAGE_INVALID or
 * LIMIT_EXCEEDED at the image's path and a message saying what is wrong, in the PDF and in the
 * image output alike: a PNG cut before its IEND chunk (pdfkit refused it later, without a code), a
 * JPEG cut before its image data (Skia's decoder crashed the process), an SVG whose size no PDF
 * can draw (pdfkit refused its numbers later; the image output drew "Infinity"). The same checks,
 * with the same messages, are what checkImageBytes (asset uploads) runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkImageBytes, DEFAULT_LIMITS, RenderError, renderImage, renderPdf } from '../../engine/index.ts';
import { deflateSync } from 'node:zlib';
import { encodePng, JPEG_16, pngChunk } from '../helpers/images.ts';

const PNG = encodePng(40, 30, (x, y) => [x * 6, y * 8, 90, 255]);
const JPEG = Buffer.from(JPEG_16.base64, 'base64');
const SRC = `asset:${'0'.repeat(32)}`;

/** The RenderError of a PDF and of a PNG render of one image with `bytes`; both must fail alike. */
async function failures(bytes: Buffer): Promise<RenderError[]> {
  const definition = { content: [{ text: 'logo' }, { image: SRC }] };
  const images = new Map([[SRC, bytes]]);
  const out: RenderError[] = [];
  for (const render of [() => renderPdf(definition, {}, { images }), () => renderImage(definition, {}, { images, format: 'png' })]) {
    try {
      await render();
      assert.fail('expected the render to fail');
    } catch (e) {
      assert.ok(e instanceof RenderError, `expected a RenderError, got ${(e as Error)?.stack ?? String(e)}`);
      assert.equal(e.path, 'content[1].image');
      out.push(e);
    }
  }
  return out;
}

test('a PNG cut before its IEND chunk is IMAGE_INVALID "truncated", at render and at checkImageBytes', async () => {
  for (const e of await failures(PNG.subarray(0, PNG.length - 12))) {
    assert.equal(e.code, 'IMAGE_INVALID');
    assert.match(e.message, /PNG data is truncated: the file ends after \d+ bytes, before its IEND chunk/);
  }
  await assert.rejects(checkImageBytes(PNG.subarray(0, PNG.length - 12), DEFAULT_LIMITS), /PNG data is truncated/);
  await assert.rejects(checkImageBytes(PNG.subarray(0, 100), DEFAULT_LIMITS), /PNG data is truncated: its IDAT chunk/);
});

test('a JPEG cut before its image data is IMAGE_INVALID "truncated" (the image output no longer crashes on it)', async () => {
  for (const cut of [160, 200, 305]) {
    for (const e of await failures(JPEG.subarray(0, cut))) {
      assert.equal(e.code, 'IMAGE_INVALID');
      assert.match(e.message, /JPEG data is truncated: the file ends after \d+ bytes, before its image data/);
    }
  }
  // Cut inside its image data: drawn as far as it goes, as before.
  const partial = JPEG.subarray(0, 400);
  assert.equal((await checkImageBytes(partial, DEFAULT_LIMITS)).type, 'jpeg');
  assert.ok((await renderImage({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, partial]]), format: 'png' })).image.length > 0);
});

test('an SVG whose width or viewBox no PDF can draw is LIMIT_EXCEEDED naming it; a world map in metres still draws', async () => {
  const wide = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1e308" height="10"><rect width="10" height="10"/></svg>');
  for (const e of await failures(wide)) {
    assert.equal(e.code, 'LIMIT_EXCEEDED');
    assert.match(e.message, /SVG width "1e308" exceeds 1,000,000 pt/);
  }
  const box = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 1e30 10"/>');
  for (const e of await failures(box)) assert.match(e.message, /SVG viewBox "0 0 1e30 10" has a number past 1,000,000,000/);
  const map = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="400" viewBox="-20037508 -20037508 40075016 40075016"><circle r="6000000" fill="teal"/></svg>');
  const r = await renderPdf({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, map]]) });
  assert.equal(r.pages, 1);
});

test('images within the limits pass checkImageBytes with their type and size', async () => {
  assert.deepEqual(await checkImageBytes(PNG, DEFAULT_LIMITS), { type: 'png', width: 40, height: 30 });
  assert.deepEqual(await checkImageBytes(JPEG, DEFAULT_LIMITS), { type: 'jpeg', width: 16, height: 16 });
  const svg = await checkImageBytes(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm"/>'), DEFAULT_LIMITS);
  assert.deepEqual([svg.type, Math.round(svg.width * 100) / 100, Math.round(svg.height * 100) / 100], ['svg', 56.69, 28.35]);
});

/** JPEG_16 with its bytes at `at` set, or a segment put in after SOI (`insert`), or one replaced. */
function jpegWith(edit: { set?: Record<number, number>; insert?: number[]; replace?: [number, number, Buffer] }): Buffer {
  let v = Buffer.from(JPEG);
  for (const [at, byte] of Object.entries(edit.set ?? {})) v[Number(at)] = byte;
  if (edit.insert) v = Buffer.concat([v.subarray(0, 2), Buffer.from(edit.insert), v.subarray(2)]);
  if (edit.replace) v = Buffer.concat([v.subarray(0, edit.replace[0]), edit.replace[2], v.subarray(edit.replace[1])]);
  return v;
}

test('a JPEG whose header libjpeg refuses is IMAGE_INVALID "corrupt" (Skia crashed the process on each of these)', async () => {
  // JPEG_16: APP0 at 2, DQT at 20 and 89, SOF0 at 158, DHT at 177..299, SOS at 299.
  const SOF = 158;
  const cases: [string, Buffer, RegExp][] = [
    ['16-bit samples', jpegWith({ set: { [SOF + 4]: 16 } }), /samples have 16 bits/],
    ['no components', jpegWith({ set: { [SOF + 9]: 0 } }), /16x16 pixels and 0 components/],
    ['a component count the length does not hold', jpegWith({ set: { [SOF + 9]: 4 } }), /frame header \(SOF\) segment at byte 158 is malformed/],
    ['sampling factors 0', jpegWith({ set: { [SOF + 11]: 0 } }), /sampling factors are 0x0/],
    ['wider than libjpeg takes', jpegWith({ set: { [SOF + 7]: 0xff, [SOF + 8]: 0xff, [SOF + 5]: 0, [SOF + 6]: 1 } }), /65535x1 pixels, more than the 65500/],
    ['an SOS naming no component of the frame', jpegWith({ set: { [299 + 5]: 9 } }), /names a component \(9\)/],
    ['an SOS of no components', jpegWith({ set: { [299 + 4]: 0 } }), /SOS segment at byte 299 is malformed/],
    ['a quantization table index past 3', jpegWith({ set: { 24: 9 } }), /quantization table \(DQT\) has the index 9/],
    ['a quantization table cut short', jpegWith({ replace: [20, 89, Buffer.concat([Buffer.from([0xff, 0xdb, 0x00, 0x23, 0x00]), JPEG.subarray(25, 57)])] }), /DQT segment at byte 20 is malformed/],
    ['a 16-bit quantization table in 8-bit room', jpegWith({ set: { 24: 0x10 } }), /DQT segment at byte 20 is malformed/],
    ['a Huffman table index past 3', jpegWith({ set: { [177 + 4]: 9 } }), /Huffman table \(DHT\) has the index 9/],
    ['an unknown marker', jpegWith({ insert: [0xff, 0x02, 0x00, 0x04, 0, 0] }), /unknown marker 0xFF02 at byte 2/],
    ['a DRI of the wrong length', jpegWith({ insert: [0xff, 0xdd, 0x00, 0x05, 0, 0, 0] }), /DRI segment at byte 2 is malformed/],
    ['two frame headers', jpegWith({ replace: [177, 177, JPEG.subarray(SOF, 177)] }), /second frame header/],
    ['a hierarchical frame', jpegWith({ set: { [SOF + 1]: 0xc5 } }), /frame type \(marker 0xFFC5\) is not supported|could not be decoded/],
  ];
  for (const [what, bytes, message] of cases) {
    for (const e of await failures(bytes)) {
      assert.equal(e.code, 'IMAGE_INVALID', what);
      assert.match(e.message, message, what);
    }
    await assert.rejects(checkImageBytes(bytes, DEFAULT_LIMITS), message, what);
  }
});

test('JPEG headers libjpeg takes still draw: a whole 16-bit quantization table, 12-bit samples, no Huffman tables (the standard ones)', async () => {
  const table = Buffer.alloc(128);
  for (let i = 0; i < 64; i++) table.writeUInt16BE(JPEG[25 + i], 2 * i);
  const cases = [
    jpegWith({ replace: [20, 89, Buffer.concat([Buffer.from([0xff, 0xdb, 0x00, 0x83, 0x10]), table])] }),
    jpegWith({ set: { [158 + 4]: 12 } }),
    jpegWith({ replace: [177, 299, Buffer.alloc(0)] }),
    jpegWith({ insert: [0xff, 0xdd, 0x00, 0x04, 0, 0] }),
  ];
  for (const bytes of cases) {
    assert.equal((await checkImageBytes(bytes, DEFAULT_LIMITS)).type, 'jpeg');
    assert.ok((await renderImage({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, bytes]]), format: 'png' })).image.length > 0);
    assert.equal((await renderPdf({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, bytes]]) })).pages, 1);
  }
});

test('a PNG whose header chunks libpng refuses is IMAGE_INVALID "corrupt" (Skia crashed the process on them)', async () => {
  // PNG: signature, IHDR at 8 (data 16..28, CRC 29..32), IDAT at 33.
  const withIhdr = (edit: (d: Buffer) => void): Buffer => {
    const v = Buffer.from(PNG);
    edit(v.subarray(16, 29));
    pngChunk('IHDR', v.subarray(16, 29)).copy(v, 8);
    return v;
  };
  const badCrc = Buffer.from(PNG);
  badCrc[31] ^= 1;
  const cases: [string, Buffer, RegExp][] = [
    ['an IHDR whose CRC does not match', badCrc, /its IHDR chunk's CRC does not match/],
    ['a bit depth of 7', withIhdr((d) => (d[8] = 7)), /colour type 6 with a bit depth of 7/],
    ['interlace method 2', withIhdr((d) => (d[12] = 2)), /interlace method \(0, 0, 2\)/],
    ['wider than libpng takes', withIhdr((d) => (d.writeUInt32BE(1_000_001, 0), d.writeUInt32BE(1, 4))), /1000001x1 pixels/],
    ['an unknown critical chunk', Buffer.concat([PNG.subarray(0, 33), pngChunk('ABCD', Buffer.from('x')), PNG.subarray(33)]), /critical chunk ABCD/],
    ['an indexed image without a palette', withIhdr((d) => (d[9] = 3, d[8] = 8)), /no palette \(PLTE\)/],
  ];
  for (const [what, bytes, message] of cases) {
    for (const e of await failures(bytes)) {
      assert.equal(e.code, 'IMAGE_INVALID', what);
      assert.match(e.message, message, what);
    }
    await assert.rejects(checkImageBytes(bytes, DEFAULT_LIMITS), message, what);
  }
  // What libpng only warns of still draws: an ancillary chunk's or IDAT's CRC.
  const text = pngChunk('tEXt', Buffer.from('a\0b'));
  text[text.length - 1] ^= 1;
  const idatCrc = Buffer.from(PNG);
  idatCrc[33 + 8 + PNG.readUInt32BE(33) + 3] ^= 1;
  for (const bytes of [Buffer.concat([PNG.subarray(0, 33), text, PNG.subarray(33)]), idatCrc]) {
    assert.equal((await checkImageBytes(bytes, DEFAULT_LIMITS)).type, 'png');
    assert.ok((await renderImage({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, bytes]]), format: 'png' })).image.length > 0);
  }
});

/** An RGBA PNG from `raw` (its scanlines, filter bytes included, as the test writes them) and an IHDR of `width` x `height`, `interlace` 0 or 1. */
function pngOf(width: number, height: number, raw: Buffer, interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  ihdr[12] = interlace;
  return Buffer.concat([PNG.subarray(0, 8), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', new Uint8Array(0))]);
}

/** Scanlines of a `width` x `height` RGBA picture (filter 0), Adam7-interlaced when `interlaced`. */
function scanlines(width: number, height: number, interlaced: boolean): Buffer {
  const passes = interlaced ? [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]] : [[0, 0, 1, 1]];
  const out: number[] = [];
  for (const [x0, y0, dx, dy] of passes) {
    if (x0 >= width || y0 >= height) continue;
    for (let y = y0; y < height; y += dy) {
      out.push(0);
      for (let x = x0; x < width; x += dx) out.push(x * 6, y * 8, 90, 255);
    }
  }
  return Buffer.from(out);
}

test('PNG pixel data that does not hold its header\'s scanlines is IMAGE_INVALID (pdfkit threw where nothing caught it: the render never ended)', { timeout: 60_000 }, async () => {
  const raw = scanlines(40, 30, false);
  const short = pngOf(40, 30, raw.subarray(0, raw.length - 161));
  const badFilter = Buffer.from(raw);
  badFilter[2 * 161] = 7;
  const cases: [string, Buffer, RegExp][] = [
    ['a scanline short', short, /PNG data is truncated: its pixel data inflates to 4669 bytes, fewer than the 4830 its header declares$/],
    ['a filter type of 7 on the third scanline', pngOf(40, 30, badFilter), /PNG image data is corrupt: scanline 3 has filter type 7 \(0 to 4 exist\)$/],
    ['an interlaced header over plain scanlines', pngOf(40, 30, raw, 1), /PNG (data is truncated|image data is corrupt)/],
  ];
  for (const [what, bytes, message] of cases) {
    await assert.rejects(checkImageBytes(bytes, DEFAULT_LIMITS), message, what);
    for (const e of await failures(bytes)) {
      assert.equal(e.code, 'IMAGE_INVALID', what);
      assert.match(e.message, message, what);
    }
  }
  // Whole scanlines still draw, interlaced or not.
  for (const interlaced of [false, true]) {
    const bytes = pngOf(37, 23, scanlines(37, 23, interlaced), interlaced ? 1 : 0);
    assert.deepEqual(await checkImageBytes(bytes, DEFAULT_LIMITS), { type: 'png', width: 37, height: 23 });
    const pdf = await renderPdf({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, bytes]]) });
    assert.ok(pdf.pdf.length > 0);
    assert.ok((await renderImage({ content: [{ image: SRC }] }, {}, { images: new Map([[SRC, bytes]]), format: 'png' })).image.length > 0);
  }
});
