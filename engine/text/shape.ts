/**
 * Shaping: a string in one face becomes a glyph run (glyphs + advances with kerning and ligatures
 * applied by fontkit's OpenType shaper).
 *
 * fontkit's layout costs tens of microseconds per word, so runs are cached per face and string for
 * the life of the process (DESIGN §6: never shape the same string twice). Measuring and painting
 * use the very same run.
 */
import type { Glyph } from 'fontkit';
import type { FontFace } from './fonts.ts';

/** A shaped string. Advances and offsets are in font units (divide by unitsPerEm, times the size). */
export interface GlyphRun {
  readonly glyphs: readonly Glyph[];
  /** The characters each glyph stands for (the PDF's ToUnicode map), copied at shaping time. */
  readonly codePoints: readonly (readonly number[])[];
  /** Horizontal advance of each glyph, kerning included. */
  readonly advances: readonly number[];
  /** Per-glyph [xOffset, yOffset] for marks; undefined when every offset is zero. */
  readonly offsets?: readonly (readonly [number, number])[];
  /** Sum of advances. */
  readonly width: number;
}

const MAX_ENTRIES_PER_FACE = 50_000;
const caches = new Map<string, Map<string, GlyphRun>>();

/** Shape `text` in `face`, through the cache. `features` are OpenType tags such as `["tnum"]`. */
export function shape(face: FontFace, text: string, features?: readonly string[], direction: 'ltr' | 'rtl' = 'ltr'): GlyphRun {
  const base = direction === 'rtl' ? `${face.key}|rtl` : face.key;
  const cacheKey = features && features.length > 0 ? `${base}|${features.join(',')}` : base;
  let cache = caches.get(cacheKey);
  if (!cache) caches.set(cacheKey, (cache = new Map()));
  let run = cache.get(text);
  if (run) return run;
  run = shapeUncached(face, text, features, direction);
  if (cache.size >= MAX_ENTRIES_PER_FACE) cache.clear();
  cache.set(text, run);
  return run;
}

/**
 * Right-to-left text comes back in visual order (fontkit reverses it), so the one-to-one
 * character pairing below reads the text backwards.
 */
function shapeUncached(face: FontFace, text: string, features: readonly string[] | undefined, direction: 'ltr' | 'rtl'): GlyphRun {
  const result = face.font.layout(text, features ? [...features] : undefined, undefined, undefined, direction);
  const advances: number[] = new Array(result.glyphs.length);
  const codePoints: number[][] = new Array(result.glyphs.length);
  // When characters and glyphs pair one to one (most runs), the text itself says what each glyph shows.
  const chars = direction === 'rtl' ? [...text].reverse() : [...text];
  const oneToOne = chars.length === result.glyphs.length;
  let offsets: [number, number][] | undefined;
  let width = 0;
  for (let i = 0; i < result.glyphs.length; i++) {
    const p = result.positions[i];
    advances[i] = p.xAdvance;
    codePoints[i] = codePointsOf(face, result.glyphs[i], oneToOne ? chars[i].codePointAt(0) : undefined);
    // Extractors read right-to-left text in visual order and reverse it, a ligature's characters
    // too (lam-alef would come out alef-lam): store them reversed so they come out as written.
    if (direction === 'rtl' && codePoints[i].length > 1) codePoints[i] = codePoints[i].slice().reverse();
    width += p.xAdvance;
    if (p.xOffset !== 0 || p.yOffset !== 0) {
      offsets ??= result.glyphs.map(() => [0, 0] as [number, number]);
      offsets[i] = [p.xOffset, p.yOffset];
    }
  }
  return { glyphs: result.glyphs, codePoints, advances, offsets, width };
}

/**
 * fontkit caches one Glyph object per id for the life of the font. Subsetting a composite glyph
 * (Ö) creates its components (O) without code points, and a later layout of "O" returns that
 * cached object with an empty list; .notdef (glyph 0, in every subset) likewise. Fall back to the
 * character at the same position, then to the font's reverse cmap.
 */
function codePointsOf(face: FontFace, glyph: Glyph, sameIndexChar: number | undefined): number[] {
  if (glyph.id === 0 && sameIndexChar !== undefined) return [sameIndexChar];
  if (glyph.codePoints.length > 0) return [...glyph.codePoints];
  if (sameIndexChar !== undefined) return [sameIndexChar];
  const strings = face.font.stringsForGlyph(glyph.id);
  if (strings.length === 0) return [];
  return [...strings[0]].map((c) => c.codePointAt(0)!);
}
