/**
 * Shaping: a string in one face becomes a glyph run (glyphs + advances with kerning and ligatures
 * applied by HarfBuzz, harfbuzz.ts; fontkit's OpenType shaper where HarfBuzz cannot be loaded).
 * The glyphs are fontkit's Glyph objects of the same face (outlines for the raster backend).
 *
 * Shaping costs microseconds per word, so runs are cached per face and string for
 * the life of the process (DESIGN §6: never shape the same string twice). Measuring and painting
 * use the very same run. The cache is the engine's `runs` cache (caches.ts: least recently used
 * strings go first when its budget is full); a string longer than 1,024 characters (a long
 * unbreakable word) is shaped every time instead of being kept.
 */
import bidiModule from 'bidi-js';
import type { Glyph } from 'fontkit';
import { caches } from '../caches.ts';
import type { FontFace } from './fonts.ts';
import { harfbuzzAvailable, hbShape } from './harfbuzz.ts';
import { shapePlain } from './plain-shape.ts';

// bidi-js is CommonJS: its default import is the factory, whatever its declaration file says.
const bidi = (bidiModule as unknown as typeof import('bidi-js').default)();

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

/** Longer strings (long unbreakable words) are shaped every time instead of being kept. */
const MAX_CACHED_LENGTH = 1024;

/** Optional ligatures, turned off in letter-spaced text (as CSS does): spacing would split them. */
const NO_LIGATURES: Readonly<Record<string, boolean>> = Object.freeze({ liga: false, clig: false, dlig: false, hlig: false });

/**
 * Shape `text` in `face`, through the cache. `features` are OpenType tags such as `["tnum"]`;
 * `ligatures` false turns off the optional ligatures (liga, clig, dlig, hlig; required ones such
 * as Arabic lam-alef stay).
 */
export function shape(face: FontFace, text: string, features?: readonly string[], direction: 'ltr' | 'rtl' = 'ltr', ligatures = true): GlyphRun {
  const base = direction === 'rtl' ? `${face.key}|rtl` : face.key;
  const withFeatures = features && features.length > 0 ? `${base}|${features.join(',')}` : base;
  const cacheKey = ligatures ? withFeatures : `${withFeatures}|noliga`;
  if (text.length > MAX_CACHED_LENGTH) return shapeUncached(face, text, features, direction, ligatures);
  return caches.runs.getOrCompute(`${cacheKey}\u0000${text}`, () => shapeUncached(face, text, features, direction, ligatures)) as GlyphRun;
}

/** Glyphs [from, to) of a run as a run of their own (a line's share of a word too long for one line). */
export function sliceRun(run: GlyphRun, from: number, to: number): GlyphRun {
  const advances = run.advances.slice(from, to);
  let width = 0;
  for (const a of advances) width += a;
  return { glyphs: run.glyphs.slice(from, to), codePoints: run.codePoints.slice(from, to), advances, offsets: run.offsets?.slice(from, to), width };
}

/** HarfBuzz's feature strings for `features` and the ligature switch. */
function hbFeatures(features: readonly string[] | undefined, ligatures: boolean): string[] {
  const out: string[] = [];
  if (!ligatures) for (const tag of Object.keys(NO_LIGATURES)) if (!features?.includes(tag)) out.push(`-${tag}`);
  for (const tag of features ?? []) out.push(`+${tag}`);
  return out;
}

function shapeUncached(face: FontFace, text: string, features: readonly string[] | undefined, direction: 'ltr' | 'rtl', ligatures: boolean): GlyphRun {
  if (!harfbuzzAvailable()) return shapeFontkit(face, text, features, direction, ligatures);
  if (direction === 'ltr' && (!features || features.length === 0)) {
    const plain = shapePlainRun(face, text, false);
    if (plain) return plain;
  }
  return shapeHarfBuzz(face, text, features, direction, ligatures);
}

/**
 * `text` shaped without the cache: by the plain-word tables (plain-shape.ts, from the face's
 * first word on) when it is a plain word of `face` and `plain` is true, else by HarfBuzz (fontkit
 * without it). For tests comparing the two paths.
 */
export function shapeDirect(face: FontFace, text: string, plain: boolean, features?: readonly string[], direction: 'ltr' | 'rtl' = 'ltr', ligatures = true): GlyphRun {
  if (plain && harfbuzzAvailable() && direction === 'ltr' && (!features || features.length === 0)) {
    const run = shapePlainRun(face, text, true);
    if (run) return run;
  }
  if (plain) return shapeUncached(face, text, features, direction, ligatures);
  return harfbuzzAvailable() ? shapeHarfBuzz(face, text, features, direction, ligatures) : shapeFontkit(face, text, features, direction, ligatures);
}

/** Whether `text` takes the plain-word fast path in `face` (left to right, no features asked for). */
export function isPlainWord(face: FontFace, text: string): boolean {
  return harfbuzzAvailable() && shapePlain(face, text, true) !== undefined;
}

/** fontkit's Glyph objects of a face by id, kept in an array (getGlyph's lookup costs more). */
const glyphObjects = new WeakMap<FontFace, Glyph[]>();

/** A plain word's run from the plain-word tables: one glyph per character, no offsets. */
function shapePlainRun(face: FontFace, text: string, now: boolean): GlyphRun | undefined {
  const shaped = shapePlain(face, text, now);
  if (!shaped) return undefined;
  let objects = glyphObjects.get(face);
  if (!objects) glyphObjects.set(face, (objects = []));
  const n = text.length;
  const glyphs: Glyph[] = new Array(n);
  const advances: number[] = new Array(n);
  const codePoints: (readonly number[])[] = new Array(n);
  let width = 0;
  for (let i = 0; i < n; i++) {
    const id = shaped.ids[i]!;
    glyphs[i] = objects[id] ??= face.font.getGlyph(id);
    const advance = shaped.advances[i]!;
    advances[i] = advance;
    width += advance;
    codePoints[i] = single(text.charCodeAt(i));
  }
  return { glyphs, codePoints, advances, offsets: undefined, width };
}

/**
 * Right-to-left text comes back in visual order. Callers pass it with brackets already mirrored
 * (as fontkit wants it); HarfBuzz mirrors them itself, so they are mirrored back first. Each
 * glyph shows the characters of its cluster (the first glyph of a cluster; the others none).
 */
function shapeHarfBuzz(face: FontFace, text: string, features: readonly string[] | undefined, direction: 'ltr' | 'rtl', ligatures: boolean): GlyphRun {
  const rtl = direction === 'rtl';
  const source = rtl ? unmirror(text) : text;
  const shaped = hbShape(face, source, hbFeatures(features, ligatures), rtl);
  const n = shaped.ids.length;
  const glyphs: Glyph[] = new Array(n);
  const advances: number[] = new Array(n);
  const codePoints: (readonly number[])[] = new Array(n);
  let offsets: [number, number][] | undefined;
  let width = 0;
  for (let i = 0; i < n; i++) {
    glyphs[i] = face.font.getGlyph(shaped.ids[i]!);
    const advance = shaped.xAdvances[i]!;
    advances[i] = advance;
    width += advance;
    const x = shaped.xOffsets[i]!;
    const y = shaped.yOffsets[i]!;
    if (x !== 0 || y !== 0) {
      offsets ??= Array.from({ length: n }, () => [0, 0] as [number, number]);
      offsets[i] = [x, y];
    }
  }
  // Each cluster's text (from its start to the next cluster's start) goes to its glyphs: all of it
  // to a cluster's only glyph (a letter, a ligature); spread over several glyphs by the font's
  // character map where one glyph is a character's own (Devanagari ि drawn before its
  // consonant), what is left to the cluster's first glyph, a glyph of no character of the
  // cluster showing its own (Thai ำ drawn as a mark and า's glyph). Paint marks runs whose
  // glyphs, read in order, do not spell their text with the text as written.
  for (let i = 0; i < n; ) {
    const cluster = shaped.clusters[i]!;
    let j = i + 1;
    while (j < n && shaped.clusters[j] === cluster) j++;
    // Logical order: the cluster after this one is the next glyph's (LTR) or the previous one's (RTL).
    const next = rtl ? (i > 0 ? shaped.clusters[i - 1]! : text.length) : j < n ? shaped.clusters[j]! : text.length;
    const chars = clusterCodePoints(text, cluster, next);
    if (j - i === 1) codePoints[i] = chars;
    else spreadCluster(face, glyphs, codePoints, i, j, chars);
    i = j;
  }
  // Extractors read right-to-left text in visual order and reverse it, a ligature's characters
  // too (lam-alef would come out alef-lam): store them reversed so they come out as written.
  if (rtl) for (let i = 0; i < n; i++) if (codePoints[i]!.length > 1) codePoints[i] = codePoints[i]!.slice().reverse();
  return { glyphs, codePoints, advances, offsets, width };
}

const NONE: readonly number[] = Object.freeze([]);

/** The code points of text[start, end) (UTF-16 indices), as written (mirrored for RTL callers). */
function clusterCodePoints(text: string, start: number, end: number): readonly number[] {
  const first = text.codePointAt(start)!;
  if (end - start === (first > 0xffff ? 2 : 1)) return single(first);
  const out: number[] = [];
  for (let k = start; k < end; ) {
    const cp = text.codePointAt(k)!;
    out.push(cp);
    k += cp > 0xffff ? 2 : 1;
  }
  return out;
}

/** Glyphs [from, to) of one cluster share its characters `chars` (see shapeHarfBuzz). */
function spreadCluster(face: FontFace, glyphs: readonly Glyph[], codePoints: (readonly number[])[], from: number, to: number, chars: readonly number[]): void {
  const left = [...chars];
  const own: (number | undefined)[] = [];
  for (let g = from; g < to; g++) {
    const k = left.findIndex((cp) => face.font.glyphForCodePoint(cp).id === glyphs[g]!.id);
    own.push(k >= 0 ? left.splice(k, 1)[0] : undefined);
  }
  for (let g = from; g < to; g++) {
    const cp = own[g - from];
    if (cp !== undefined) codePoints[g] = single(cp);
    else if (g === from && left.length > 0) codePoints[g] = left.splice(0);
    else {
      const strings = face.font.stringsForGlyph(glyphs[g]!.id);
      codePoints[g] = strings.length > 0 ? [...strings[0]!].map((c) => c.codePointAt(0)!) : NONE;
    }
  }
  // Characters no glyph took (the first glyph had one of its own): to the first glyph too.
  if (left.length > 0) codePoints[from] = [...codePoints[from]!, ...left];
}

/** Mirrored characters swapped back (the caller mirrored them for fontkit). */
function unmirror(text: string): string {
  let out = '';
  for (const ch of text) out += bidi.getMirroredCharacter(ch) ?? ch;
  return out;
}

/**
 * Right-to-left text comes back in visual order (fontkit reverses it), so the one-to-one
 * character pairing below reads the text backwards.
 */
function shapeFontkit(face: FontFace, text: string, features: readonly string[] | undefined, direction: 'ltr' | 'rtl', ligatures: boolean): GlyphRun {
  let requested: string[] | Record<string, boolean> | undefined = features ? [...features] : undefined;
  if (!ligatures) {
    const overrides: Record<string, boolean> = { ...NO_LIGATURES };
    for (const tag of features ?? []) overrides[tag] = true;
    requested = overrides;
  }
  const result = face.font.layout(text, requested as string[] | undefined, undefined, undefined, direction);
  const advances: number[] = new Array(result.glyphs.length);
  const codePoints: (readonly number[])[] = new Array(result.glyphs.length);
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

/** One frozen [cp] per code point, shared by every run (most glyphs show one character). */
const singles = new Map<number, readonly number[]>();
function single(cp: number): readonly number[] {
  let a = singles.get(cp);
  if (!a) singles.set(cp, (a = Object.freeze([cp])));
  return a;
}

/**
 * fontkit caches one Glyph object per id for the life of the font. Subsetting a composite glyph
 * (Ö) creates its components (O) without code points, and a later layout of "O" returns that
 * cached object with an empty list; .notdef (glyph 0, in every subset) likewise. Fall back to the
 * character at the same position, then to the font's reverse cmap.
 */
function codePointsOf(face: FontFace, glyph: Glyph, sameIndexChar: number | undefined): readonly number[] {
  if (glyph.id === 0 && sameIndexChar !== undefined) return single(sameIndexChar);
  if (glyph.codePoints.length === 1) return single(glyph.codePoints[0]);
  if (glyph.codePoints.length > 0) return [...glyph.codePoints];
  if (sameIndexChar !== undefined) return single(sameIndexChar);
  const strings = face.font.stringsForGlyph(glyph.id);
  if (strings.length === 0) return [];
  return [...strings[0]].map((c) => c.codePointAt(0)!);
}
