/**
 * The font subsets written by glyf-subset.ts are the very bytes hb-subset makes for the same
 * glyphs (so a PDF is the same whichever made them), for any glyph set of the bundled faces:
 * composite glyphs and their components, short and long loca, trailing equal advances.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { hbSubset, subsetGlyphs } from '../../engine/paint/subset.ts';
import { bundledFontLibrary } from '../../engine/text/fonts.ts';

const fonts = bundledFontLibrary();
const faces = [
  fonts.resolveStack(['Noto Sans'], 400, 'normal')[0]!,
  fonts.resolveStack(['Noto Serif'], 700, 'italic')[0]!,
  fonts.resolveStack(['Noto Sans Arabic'], 400, 'normal')[0]!,
  fonts.resolveStack(['Noto Sans Devanagari'], 700, 'normal')[0]!,
];

test('glyf-subset writes the bytes hb-subset makes, for any glyph set', () => {
  for (const face of faces) {
    const glyphCount = face.font.numGlyphs;
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: glyphCount - 1 }), { minLength: 0, maxLength: 300 }), (glyphs) => {
        const ours = subsetGlyphs(face, glyphs)!;
        const theirs = hbSubset(face, glyphs)!;
        assert.deepEqual(ours.glyphs, theirs.glyphs);
        assert.equal(Buffer.compare(Buffer.from(ours.data), Buffer.from(theirs.data)), 0, `${face.key}: ${glyphs.length} glyphs`);
      }),
      { numRuns: 25 },
    );
  }
});

test('glyf-subset takes every glyph of a face (long loca)', () => {
  const face = faces[0]!;
  const all = Array.from({ length: face.font.numGlyphs }, (_, i) => i);
  const ours = subsetGlyphs(face, all)!;
  const theirs = hbSubset(face, all)!;
  assert.equal(ours.glyphs.length, face.font.numGlyphs);
  assert.equal(Buffer.compare(Buffer.from(ours.data), Buffer.from(theirs.data)), 0);
});
