/**
 * The plain-word fast path (engine/text/plain-shape.ts) gives the very glyph runs HarfBuzz gives:
 * for random words over each bundled face's Latin repertoire (letters, digits, punctuation and
 * symbols of the Latin blocks, with the characters that take part in substitutions such as the f
 * ligatures and the soft-dotted i j among them), the same glyphs (the same fontkit objects), the
 * same advances, offsets, characters per glyph and width, whichever path the word takes. Words
 * the fast path must not take (marks, other scripts, right-to-left, features) go to HarfBuzz.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { warmUpHarfBuzz } from '../../engine/text/harfbuzz.ts';
import { BUNDLED_FONT_DIR, bundledFontLibrary, type FontFace } from '../../engine/text/fonts.ts';
import { isPlainWord, shapeDirect, type GlyphRun } from '../../engine/text/shape.ts';

const fonts = bundledFontLibrary();
const manifest = JSON.parse(readFileSync(`${BUNDLED_FONT_DIR}/manifest.json`, 'utf8')) as { faces: { family: string; weight: number; style: 'normal' | 'italic' }[] };
const faces: FontFace[] = manifest.faces.map((f) => fonts.resolveStack([f.family], f.weight, f.style)[0]!);

/** Characters of the Latin and Common scripts up to U+214F that `face` has (marks and controls too: they must fall back). */
function repertoire(face: FontFace): string[] {
  const out: string[] = [];
  for (let c = 0x20; c < 0x2150; c++) {
    const ch = String.fromCharCode(c);
    if (/^[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]$/u.test(ch) && face.font.hasGlyphForCodePoint(c)) out.push(ch);
  }
  return out;
}

function comparable(run: GlyphRun) {
  return { ids: run.glyphs.map((g) => g.id), advances: [...run.advances], offsets: run.offsets?.map((o) => [...o]), codePoints: run.codePoints.map((c) => [...c]), width: run.width };
}

function assertSameRun(face: FontFace, word: string): boolean {
  const fast = shapeDirect(face, word, true);
  const hb = shapeDirect(face, word, false);
  assert.deepEqual(comparable(fast), comparable(hb), `${face.key}: ${JSON.stringify(word)}`);
  fast.glyphs.forEach((g, i) => assert.equal(g, hb.glyphs[i], 'the same fontkit glyph objects'));
  return isPlainWord(face, word);
}

test('plain words shape as HarfBuzz shapes them, in every bundled face', async () => {
  assert.ok(await warmUpHarfBuzz([]), 'HarfBuzz is available');
  for (const face of faces) {
    const all = repertoire(face);
    if (all.length === 0) continue;
    const basic = all.filter((ch) => /[A-Za-z0-9.,'-]/.test(ch));
    const char = basic.length > 0 ? fc.oneof(fc.constantFrom(...basic), fc.constantFrom(...all)) : fc.constantFrom(...all);
    let plain = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 14 }), (chars) => {
        runs++;
        if (assertSameRun(face, chars.join(''))) plain++;
      }),
      { numRuns: 150 },
    );
    // Faces whose Latin is their own (not the Arabic or Thai faces' few digits) take the fast path for most words.
    if (/^Noto (Sans|Serif)( Mono)?\|/.test(face.key)) assert.ok(plain > runs / 4, `${face.key}: ${plain} of ${runs} words plain`);
  }
});

test('dense words of the whole repertoire (every pair of neighbours checked) shape as HarfBuzz does', async () => {
  await warmUpHarfBuzz([]);
  for (const face of [faces[0]!, faces[5]!, faces[9]!]) {
    const all = repertoire(face);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...all), { minLength: 2, maxLength: 40 }), (chars) => {
        assertSameRun(face, chars.join(''));
      }),
      { numRuns: 400 },
    );
  }
});

test('known cases: kerning pairs, ligatures, marks, other scripts and features', async () => {
  await warmUpHarfBuzz([]);
  const sans = faces[0]!;
  // Kerned pairs are plain words with adjusted advances.
  for (const word of ['AV', 'To', 'Wa', 'Yo', 'L\'', '1.234,56', 'Müller', 'Straße', 'Ångström', 'Åsa', 'Øre', 'Łódź']) {
    assert.equal(assertSameRun(sans, word), true, `${word} takes the fast path`);
  }
  const av = shapeDirect(sans, 'AV', true);
  assert.ok(av.advances[0]! < sans.font.glyphForCodePoint(0x41).advanceWidth, 'A before V is kerned');
  // Words with a character that can start a substitution, or a mark, are HarfBuzz's.
  // The Catalan l·l lookup (locl) is not HarfBuzz's unless the language is Catalan: either way, the same run.
  for (const word of ['l·l', 'L·L', 'col·lecció', 'Il·lustració']) assertSameRun(sans, word);
  for (const word of ['office', 'fi', 'i\u0301', 'e\u0301', 'x\u0300y', 'a\u2044b', '\u00ad', 'ab\u200dc']) {
    assert.equal(isPlainWord(sans, word), false, `${JSON.stringify(word)} is not plain`);
    assertSameRun(sans, word);
  }
  // Other scripts fall back.
  const arabic = fonts.resolveStack(['Noto Sans Arabic'], 400, 'normal')[0]!;
  assert.equal(isPlainWord(arabic, 'سلام'), false);
  // Features and right-to-left never take the fast path (shapeUncached checks before asking).
  const tnum = shapeDirect(sans, '1111', true, ['tnum']);
  assert.deepEqual(comparable(tnum), comparable(shapeDirect(sans, '1111', false, ['tnum'])));
  const rtl = shapeDirect(sans, 'abc', true, undefined, 'rtl');
  assert.deepEqual(comparable(rtl), comparable(shapeDirect(sans, 'abc', false, undefined, 'rtl')));
  const spaced = shapeDirect(sans, 'Tower', true, undefined, 'ltr', false);
  assert.deepEqual(comparable(spaced), comparable(shapeDirect(sans, 'Tower', false, undefined, 'ltr', false)));
});
