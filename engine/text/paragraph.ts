/**
 * Paragraph text in two steps, after Typst's text passes:
 * - `prepareParagraph`: width-independent. Finds UAX #14 break opportunities over the whole
 *   paragraph (the `linebreak` package; word boundaries from Intl.Segmenter inside Thai, Lao,
 *   Khmer and Myanmar, which have no spaces), resolves UAX #9 embedding levels (bidi-js), and cuts
 *   the text into segments between break opportunities and pieces of one style, one font (the
 *   first face of the style's stack that has the characters) and one bidi level; every piece is
 *   shaped once (right-to-left pieces with mirrored brackets).
 * - `breakLines`: for a given width, fills lines greedily with segments, breaks a segment wider
 *   than a line between grapheme clusters, shows a hyphen where a line ends at a soft hyphen,
 *   orders each line's pieces visually (UAX #9 L2) and aligns (start, end, left, right, center,
 *   justify).
 *
 * All lengths are points.
 */
import bidiModule from 'bidi-js';
import LineBreaker from 'linebreak';
import { coverageTable, hasGlyph, type FontFace } from './fonts.ts';
import { graphemeRanges, segmentRanges } from './segments.ts';
import { shape, sliceRun, type GlyphRun } from './shape.ts';

/** An sRGB colour, components 0-255. */
export type RGB = readonly [number, number, number];

/** The resolved style of a piece of text. */
export interface TextStyle {
  /** The first face of the stack: metrics of empty lines, decorations' fallback. */
  readonly face: FontFace;
  /** Faces tried in order for each character (the style's families, then the fallbacks). */
  readonly stack: readonly FontFace[];
  /** Font size in points. */
  readonly size: number;
  readonly color: RGB;
  /** Line height as a multiple of the size. */
  readonly lineHeight: number;
  readonly decoration: 'none' | 'underline' | 'line-through';
  readonly link?: string;
  readonly features?: readonly string[];
  /** Extra advance after every glyph, in points. */
  readonly letterSpacing: number;
}

/** Input: a run of text in one style. */
export interface StyledText {
  readonly text: string;
  readonly style: TextStyle;
  /** Inserts soft hyphens into this run's words (its language's patterns); else the paragraph's. */
  readonly hyphenate?: (word: string) => string;
}

/** A shaped piece: part of one segment in one style, one face and one bidi level. */
export interface Piece {
  readonly text: string;
  readonly style: TextStyle;
  readonly face: FontFace;
  /** UAX #9 embedding level: odd is right-to-left. */
  readonly level: number;
  readonly run: GlyphRun;
  readonly width: number;
  /** Part of the white space that ends a segment. */
  readonly space: boolean;
  /**
   * The segments this (shared) piece starts, shared too (set by prepareParagraph): the piece
   * alone, and the piece followed by the space piece `spaceAfter`. Null until made.
   */
  alone: Segment | null;
  spaceAfter: Piece | null;
  spaced: Segment | null;
}

/** The text between two break opportunities. */
interface Segment {
  readonly pieces: Piece[];
  /** Width without the trailing white space. */
  readonly width: number;
  /** Width of the trailing white space (dropped at a line end). */
  readonly trailing: number;
  /** A mandatory break (newline) follows. */
  readonly required: boolean;
  /** The segment ends at a soft hyphen: a line ending here shows this hyphen piece. */
  readonly hyphen: Piece | null;
}

/** Options of {@link prepareParagraph}. */
export interface ParagraphOptions {
  /** Base direction (UAX #9 P2-P3 for "auto"). Default "ltr". */
  direction?: 'ltr' | 'rtl' | 'auto';
  /** Inserts soft hyphens (U+00AD) into a word where it may break; used for justified text. */
  hyphenate?: (word: string) => string;
}

/** Output of {@link prepareParagraph}. */
export interface PreparedParagraph {
  readonly segments: readonly Segment[];
  /** Widest unbreakable segment: the narrowest width the paragraph can take without breaking words. */
  readonly minContentWidth: number;
  /** Widest hard line (between newlines) unbroken: the width the paragraph wants. */
  readonly maxContentWidth: number;
  /** Style used for the metrics of an empty paragraph. */
  readonly baseStyle: TextStyle;
  /** Paragraph embedding level: 0 left-to-right, 1 right-to-left. */
  readonly baseLevel: number;
  /** Characters no face of their stack has (drawn as the first face's missing glyph). */
  readonly missing: readonly string[];
  /** Lines the paragraph has at any width: one more than its hard line breaks (one when empty). */
  readonly hardLines: number;
  /** The smallest height a line of it can have (points): size times lineHeight of its smallest style. */
  readonly minLineHeight: number;
}

/** A run of pieces in one style and face on a line, positioned from the line's left edge. */
export interface LineRun {
  readonly style: TextStyle;
  readonly face: FontFace;
  readonly pieces: readonly Piece[];
  readonly x: number;
  readonly width: number;
  /** Extra advance (points) added after each glyph of a trailing-space piece, for justification. */
  readonly wordSpacing: number;
  /** Extra advance (points) added after each glyph of the other pieces: justified CJK lines. */
  readonly charSpacing: number;
}

/** One laid-out line. `baseline` is measured from the line's top. */
export interface Line {
  readonly runs: readonly LineRun[];
  readonly width: number;
  readonly height: number;
  readonly baseline: number;
}

/** Alignment; start and end follow the paragraph's direction. */
export type Align = 'start' | 'end' | 'left' | 'right' | 'center' | 'justify';

const TRAILING_SPACE = /[ \t\n\r\u2028\u2029]+$/;
const NEWLINES = /[\n\r\u2028\u2029]/g;
const NEWLINE = /[\n\r\u2028\u2029]/;
const CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/;
const CONTROL_GLOBAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const SOFT_HYPHEN = '\u00ad';
/** Strong right-to-left characters (Hebrew, Arabic, Syriac, Thaana, NKo, ... and their presentation forms). */
const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|\ud802[\udc00-\udfff]|\ud83a[\udc00-\udfff]/;
/** Scripts written without spaces between words (UAX #14 class SA): Thai, Lao, Myanmar, Khmer. */
const SA_RUN = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff]+/g;
/** Combining marks, joiners and variation selectors stay in the face of the character before them. */
const CLINGS = /[\p{M}\u200c\u200d\ufe00-\ufe0f]/u;
const WORD = /[\p{L}\p{M}]{5,}/gu;
/** Han ideographs, kana, CJK punctuation and full-width forms: text justified between characters. */
const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]|[\ud840-\ud87f][\udc00-\udfff]/;

// bidi-js is CommonJS: its default import is the factory, whatever its declaration file says.
const bidi = (bidiModule as unknown as typeof import('bidi-js').default)();

const HAS_SA = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff]/;

/** Word boundaries inside runs of scripts without spaces, from Intl.Segmenter. */
function dictionaryBreaks(full: string): Set<number> | null {
  if (!HAS_SA.test(full)) return null;
  let breaks: Set<number> | null = null;
  const segmenter = new Intl.Segmenter('th', { granularity: 'word' });
  for (const m of full.matchAll(SA_RUN)) {
    for (const [start] of segmentRanges(m[0], segmenter)) {
      if (start > 0) (breaks ??= new Set()).add(m.index! + start);
    }
  }
  return breaks;
}

/**
 * A glyph's advance with `letterSpacing` added (both in one unit: points, or thousandths of an
 * em). Negative spacing tightens it down to 0 and no further: the pen never moves back, so
 * tightened text stays inside the width it is measured at. Measuring, PDF paint and raster all
 * use this.
 */
export function spacedAdvance(advance: number, letterSpacing: number): number {
  const spaced = advance + letterSpacing;
  return letterSpacing < 0 && spaced < 0 ? 0 : spaced;
}

/** Width in points of glyphs [from, to) of `run` at `size` with `letterSpacing` (points) after each ({@link spacedAdvance}). */
export function spacedWidth(run: GlyphRun, from: number, to: number, unitsPerEm: number, size: number, letterSpacing: number): number {
  const k = size / unitsPerEm;
  if (letterSpacing >= 0) {
    let units = 0;
    for (let g = from; g < to; g++) units += run.advances[g];
    return units * k + letterSpacing * (to - from);
  }
  let width = 0;
  for (let g = from; g < to; g++) width += spacedAdvance(run.advances[g] * k, letterSpacing);
  return width;
}

/**
 * Points a line ending with `piece` reaches past its width: with negative letter spacing every
 * advance is shortened, the last one too, but the last glyph's ink still takes its own advance
 * (right-aligned, it ended up to a glyph's width past the box).
 */
function inkGain(piece: Piece | null | undefined): number {
  if (!piece || piece.style.letterSpacing >= 0) return 0;
  const n = piece.run.glyphs.length;
  if (n === 0) return 0;
  const advance = (piece.run.advances[n - 1] * piece.style.size) / piece.face.unitsPerEm;
  return advance - spacedAdvance(advance, piece.style.letterSpacing);
}

/** The last piece of a segment that is not white space. */
function lastInk(seg: Segment): Piece | undefined {
  for (let i = seg.pieces.length - 1; i >= 0; i--) if (!seg.pieces[i].space) return seg.pieces[i];
  return undefined;
}

/** Shape `text` as one piece. */
function makePiece(text: string, style: TextStyle, face: FontFace, level: number, space: boolean): Piece {
  const rtl = level % 2 === 1;
  // Letter-spaced text is shaped without optional ligatures: the spacing would split them.
  const run = shape(face, rtl ? mirror(text) : text, style.features, rtl ? 'rtl' : 'ltr', style.letterSpacing === 0);
  const width = style.letterSpacing === 0 ? (run.width / face.unitsPerEm) * style.size : spacedWidth(run, 0, run.glyphs.length, face.unitsPerEm, style.size, style.letterSpacing);
  return { text, style, face, level, run, width, space, alone: null, spaceAfter: null, spaced: null };
}

/**
 * Pieces and segments are immutable, so equal ones are shared: the same word in the same style
 * (and face) is one piece, and a segment of one word and its space is one segment, however many
 * paragraphs hold them. Keyed by the style object, which lives as long as the render that
 * interned it (layout/style.ts TextStyles), so nothing outlives a render. Left-to-right only.
 */
const wordsByStyle = new WeakMap<TextStyle, Map<FontFace, Map<string, Piece>>>();
const spacesByStyle = new WeakMap<TextStyle, Map<FontFace, Map<string, Piece>>>();

/** The piece of `text` in `style` and `face` at level 0, shared (see above). */
function sharedPiece(text: string, style: TextStyle, face: FontFace, space: boolean): Piece {
  const byStyle = space ? spacesByStyle : wordsByStyle;
  let byFace = byStyle.get(style);
  if (!byFace) byStyle.set(style, (byFace = new Map()));
  let byText = byFace.get(face);
  if (!byText) byFace.set(face, (byText = new Map()));
  let piece = byText.get(text);
  if (!piece) byText.set(text, (piece = makePiece(text, style, face, 0, space)));
  return piece;
}

/**
 * A segment of `pieces` (built with push: spare capacity), shared when it is a shared word alone
 * or followed by its usual space piece; else new, its pieces in an array of their exact size.
 */
function segmentOf(pieces: Piece[], width: number, trailing: number, required: boolean, hyphen: Piece | null): Segment {
  const first = pieces[0];
  if (!required && hyphen === null && first !== undefined && first.level === 0 && pieces.length <= 2) {
    if (pieces.length === 1) return (first.alone ??= { pieces: [first], width, trailing, required, hyphen });
    const space = pieces[1];
    if (!first.space && space.space) {
      if (first.spaceAfter === null) first.spaceAfter = space;
      if (first.spaceAfter === space) return (first.spaced ??= { pieces: [first, space], width, trailing, required, hyphen });
    }
  }
  return { pieces: pieces.length <= 2 ? pieces.slice() : pieces, width, trailing, required, hyphen };
}

const NOTHING_MISSING: readonly string[] = Object.freeze([]);

/** Brackets and other mirrored characters swapped, for right-to-left runs (UAX #9 L4). */
function mirror(text: string): string {
  let out = '';
  for (const ch of text) out += bidi.getMirroredCharacter(ch) ?? ch;
  return out;
}

/** The face of `style`'s stack for code point `cp`, or null when none has it. */
function faceFor(style: TextStyle, cp: number): FontFace | null {
  for (const face of style.stack) if (hasGlyph(face, cp)) return face;
  return null;
}

/** Where `pieces` is in the text, and what it has cut so far. */
interface Cut {
  start: number;
  face: FontFace | null;
  level: number;
  width: number;
}

/**
 * Scripts whose letters join (cursive): letter spacing would pull the joins apart, so their words
 * are not letter-spaced (as browsers do; CSS Text 3 on cursive scripts).
 */
const CURSIVE = /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}\p{Script=Phags_Pa}]/u;

/** `style` without its letter spacing, one object per style (pieces and runs compare styles by identity). */
const unspacedStyles = new WeakMap<TextStyle, TextStyle>();
function unspaced(style: TextStyle): TextStyle {
  let s = unspacedStyles.get(style);
  if (!s) unspacedStyles.set(style, (s = { ...style, letterSpacing: 0 }));
  return s;
}

function flushPiece(full: string, cut: Cut, end: number, spaced: TextStyle, space: boolean, out: Piece[]): void {
  if (end <= cut.start) return;
  let text = full.slice(cut.start, end);
  if (space) text = text.replace(NEWLINES, '');
  if (text.includes(SOFT_HYPHEN)) text = text.replaceAll(SOFT_HYPHEN, '');
  if (text.length > 0) {
    const style = spaced.letterSpacing !== 0 && !space && CURSIVE.test(text) ? unspaced(spaced) : spaced;
    const face = cut.face ?? style.face;
    const piece = cut.level === 0 ? sharedPiece(text, style, face, space) : makePiece(text, style, face, cut.level, space);
    out.push(piece);
    cut.width += piece.width;
  }
  cut.start = end;
}

/**
 * Cut [from, to) of `full` (one span's share of a segment) into pieces of one face and one level.
 * White space and clinging characters stay with the piece before them. @returns the pieces' width.
 */
function pieces(full: string, from: number, to: number, style: TextStyle, levels: Uint8Array | null, space: boolean, missing: Set<string>, out: Piece[]): number {
  const cut: Cut = { start: from, face: null, level: levels ? levels[from] : 0, width: 0 };
  // Fast path (most text): one level, and the first face has every character.
  if (!levels) {
    const primary = style.face;
    const table = coverageTable(primary);
    let all = true;
    for (let i = from; i < to && all; i++) {
      const c = full.charCodeAt(i);
      const known = table[c];
      all = c < 0xd800 && (known === 1 || c === 0x0a || c === 0x0d || c === 0xad || (known === 0 && hasGlyph(primary, c)));
    }
    if (all) {
      cut.face = primary;
      flushPiece(full, cut, to, style, space, out);
      return cut.width;
    }
  }
  for (let i = from; i < to; ) {
    const cp = full.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    let face = cut.face;
    const ch = full.slice(i, i + size);
    if (!(face && (cp === 0x20 || cp === 0xa0 || CLINGS.test(ch))) && cp !== 0xad && !NEWLINE.test(ch)) {
      face = faceFor(style, cp);
      if (!face) {
        if (!/\s/.test(ch)) missing.add(ch);
        face = cut.face ?? style.face;
      }
    }
    const level = levels ? levels[i] : 0;
    if (i > cut.start && (face !== cut.face || level !== cut.level)) flushPiece(full, cut, i, style, space, out);
    cut.face = face;
    cut.level = level;
    i += size;
  }
  flushPiece(full, cut, to, style, space, out);
  return cut.width;
}

function hasControlOrHyphenation(s: StyledText): boolean {
  return s.hyphenate !== undefined || CONTROL.test(s.text);
}

interface Opportunity {
  position: number;
  required: boolean;
}

/** UAX #14 break opportunities, plus dictionary word breaks in Thai-like scripts. */
function breakOpportunities(full: string): Opportunity[] {
  const breaker = new LineBreaker(full);
  const extra = dictionaryBreaks(full);
  const all: Opportunity[] = [];
  if (!extra) {
    for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) all.push(bk);
    return all;
  }
  for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) {
    all.push({ position: bk.position, required: bk.required });
    extra.delete(bk.position);
  }
  for (const position of extra) all.push({ position, required: false });
  return all.sort((a, b) => a.position - b.position);
}

/**
 * Shape a paragraph's styled runs into segments. Width-independent: do it once, break many times.
 * @param input the paragraph's text in document order; must not be empty.
 */
export function prepareParagraph(input: readonly StyledText[], options: ParagraphOptions = {}): PreparedParagraph {
  const hyphenate = options.hyphenate;
  // Tabs become spaces and other control characters go: no font has glyphs for them.
  let spans = input;
  if (hyphenate || input.some(hasControlOrHyphenation)) {
    spans = input.map((s) => {
      let text = CONTROL.test(s.text) ? s.text.replace(/\t/g, ' ').replace(CONTROL_GLOBAL, '') : s.text;
      const h = s.hyphenate ?? hyphenate;
      if (h) text = text.replace(WORD, (w) => h(w));
      return text === s.text ? s : { text, style: s.style };
    });
  }
  const baseStyle = spans[0].style;
  let full = '';
  for (const s of spans) full += s.text;

  let levels: Uint8Array | null = null;
  let baseLevel = options.direction === 'rtl' ? 1 : 0;
  if (options.direction === 'rtl' || RTL_CHAR.test(full)) {
    const embedding = bidi.getEmbeddingLevels(full, options.direction === 'auto' ? undefined : (options.direction ?? 'ltr'));
    levels = embedding.levels;
    baseLevel = embedding.paragraphs[0]?.level ?? baseLevel;
  }

  const boundaries = breakOpportunities(full);

  const segments: Segment[] = [];
  const missing = new Set<string>();
  let minLineHeight = baseStyle.size * baseStyle.lineHeight;
  let hardBreaks = 0;
  let minContentWidth = 0;
  let maxContentWidth = 0;
  let hardLine = 0;
  let start = 0;
  let spanIndex = 0;
  let spanStart = 0;
  for (const bk of boundaries) {
    const end = bk.position;
    const raw = full.slice(start, end);
    const trail = TRAILING_SPACE.exec(raw);
    const contentEnd = trail ? end - trail[0].length : end;
    const segPieces: Piece[] = [];
    let width = 0;
    let trailing = 0;
    let pos = start;
    let lastStyle = baseStyle;
    while (pos < end) {
      while (spanStart + spans[spanIndex].text.length <= pos) {
        spanStart += spans[spanIndex].text.length;
        spanIndex++;
      }
      const span = spans[spanIndex];
      const isSpace = pos >= contentEnd;
      const stop = Math.min(spanStart + span.text.length, isSpace ? end : contentEnd);
      const w = pieces(full, pos, stop, span.style, levels, isSpace, missing, segPieces);
      if (span.style.size * span.style.lineHeight < minLineHeight) minLineHeight = span.style.size * span.style.lineHeight;
      if (isSpace) trailing += w;
      else {
        width += w;
        lastStyle = span.style;
      }
      pos = stop;
    }
    let hyphen: Piece | null = null;
    // Only a segment that ends at its soft hyphen breaks there: one followed by white space breaks at the space.
    if (contentEnd === end && contentEnd > start && full.charCodeAt(contentEnd - 1) === 0xad) {
      let last: Piece | undefined;
      for (const p of segPieces) if (!p.space) last = p;
      // The hyphen belongs to the word it breaks: its bidi level (an English word in a Hebrew
      // paragraph is at level 2; level 0 there put the hyphen at the line's far right end).
      hyphen = makePiece('-', lastStyle, last?.face ?? lastStyle.face, last?.level ?? baseLevel, false);
    }
    segments.push(segmentOf(segPieces, width, trailing, bk.required, hyphen));
    if (bk.required) hardBreaks++;
    if (width + (hyphen?.width ?? 0) > minContentWidth) minContentWidth = width + (hyphen?.width ?? 0);
    hardLine += width;
    if (hardLine > maxContentWidth) maxContentWidth = hardLine;
    hardLine = bk.required ? 0 : hardLine + trailing;
    start = end;
  }
  const hardLines = hardBreaks + (segments.length === 0 || !segments[segments.length - 1].required ? 1 : 0);
  return { segments: exact(segments), minContentWidth, maxContentWidth, baseStyle, baseLevel, missing: missing.size === 0 ? NOTHING_MISSING : [...missing], hardLines, minLineHeight };
}

/**
 * `a` without room to grow: an array filled by push keeps room for 16 elements (about 150 bytes)
 * however few it holds, and a 1,000-row report's cells each keep three such arrays of one element
 * (segments, lines, a line's runs): 2.7 MB of heap. Large arrays are left as they are.
 */
function exact<T>(a: T[]): T[] {
  return a.length < 16 ? a.slice() : a;
}

/**
 * True when `piece`'s glyphs pair one to one, in order, with its characters (most left-to-right
 * text): then a part of it is a slice of its run, not a string to shape again.
 */
function glyphsFollowText(piece: Piece): boolean {
  if (piece.level % 2 === 1) return false;
  const { text, run } = piece;
  let g = 0;
  for (let i = 0; i < text.length; g++) {
    const cp = text.codePointAt(i)!;
    const cps = run.codePoints[g];
    if (g >= run.glyphs.length || cps.length !== 1 || cps[0] !== cp) return false;
    i += cp > 0xffff ? 2 : 1;
  }
  return g === run.glyphs.length;
}

/** `run` with its last glyph's advance its own (no kerning against a glyph after it). */
function endOfLine(run: GlyphRun): GlyphRun {
  const n = run.glyphs.length;
  if (n === 0) return run;
  const own = run.glyphs[n - 1].advanceWidth;
  if (own === run.advances[n - 1]) return run;
  const advances = run.advances.slice();
  advances[n - 1] = own;
  return { ...run, advances, width: run.width - run.advances[n - 1] + own };
}

/** Width in points of glyphs [from, to) of a piece's run. */
function glyphsWidth(piece: Piece, from: number, to: number): number {
  return spacedWidth(piece.run, from, to, piece.face.unitsPerEm, piece.style.size, piece.style.letterSpacing);
}

/** Code points in text[start, end). */
function codePointCount(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/**
 * Break a segment wider than `maxWidth` between grapheme clusters into segments that fit. Linear
 * in the segment's length: grapheme clusters come from bounded windows (segments.ts), and a piece
 * whose glyphs follow its text is cut into slices of its run instead of being shaped again.
 */
function splitSegment(seg: Segment, maxWidth: number): Segment[] {
  const out: Segment[] = [];
  let chunkPieces: Piece[] = [];
  let width = 0;
  for (const piece of seg.pieces) {
    if (piece.space) continue;
    const text = piece.text;
    const sliced = glyphsFollowText(piece);
    // A slice cut before the word's end ends a line: its last glyph takes its own advance, not
    // the one kerned against the next glyph (on the next line). Right-aligned, the kerned advance
    // left the glyph up to a kerning pair's amount past the margin.
    const part = (start: number, end: number, g0: number, g1: number): Piece => {
      if (!sliced) return makePiece(text.slice(start, end), piece.style, piece.face, piece.level, false);
      const run = g1 < piece.run.glyphs.length ? endOfLine(sliceRun(piece.run, g0, g1)) : sliceRun(piece.run, g0, g1);
      return { ...piece, text: text.slice(start, end), run, width: spacedWidth(run, 0, run.glyphs.length, piece.face.unitsPerEm, piece.style.size, piece.style.letterSpacing), alone: null, spaceAfter: null, spaced: null };
    };
    /**
     * Points the glyph before `g` gains (or loses) when a line ends after it: its own advance
     * instead of the kerned one, and its ink under negative letter spacing (inkGain).
     */
    const endGain = (g: number) => {
      if (!sliced || g <= 0) return 0;
      const k = piece.style.size / piece.face.unitsPerEm;
      const own = (g < piece.run.glyphs.length ? piece.run.glyphs[g - 1].advanceWidth : piece.run.advances[g - 1]) * k;
      const ls = piece.style.letterSpacing;
      return (ls < 0 ? own : spacedAdvance(own, ls)) - spacedAdvance(piece.run.advances[g - 1] * k, ls);
    };
    let chunkStart = 0;
    let chunkGlyph = 0;
    let chunkWidth = 0;
    let glyph = 0;
    for (const [start, end] of graphemeRanges(text)) {
      const glyphEnd = sliced ? glyph + codePointCount(text, start, end) : 0;
      const gw = sliced ? glyphsWidth(piece, glyph, glyphEnd) : makePiece(text.slice(start, end), piece.style, piece.face, piece.level, false).width;
      if (width + chunkWidth + gw + endGain(glyphEnd) > maxWidth && width + chunkWidth > 0) {
        // The line's width as drawn: its pieces' (the cut one with its last glyph's own advance).
        if (start > chunkStart) {
          const cut = part(chunkStart, start, chunkGlyph, glyph);
          chunkPieces.push(cut);
          width += cut.width;
        }
        out.push({ pieces: chunkPieces, width, trailing: 0, required: false, hyphen: null });
        chunkPieces = [];
        width = 0;
        chunkStart = start;
        chunkGlyph = glyph;
        chunkWidth = 0;
      }
      chunkWidth += gw;
      glyph = glyphEnd;
    }
    if (text.length > chunkStart) {
      const p = part(chunkStart, text.length, chunkGlyph, glyph);
      chunkPieces.push(p);
      width += p.width;
    }
  }
  const spaces = seg.pieces.filter((p) => p.space);
  out.push({ pieces: chunkPieces.concat(spaces), width, trailing: seg.trailing, required: seg.required, hyphen: seg.hyphen });
  return out;
}

/** Greedy line filling state for one call of breakLines (a class: no closures on the hot path). */
class LineFiller {
  readonly lines: Line[] = [];
  private current: Segment[] = [];
  /** Content width including interior trailing spaces, excluding the last segment's. */
  private width = 0;
  private pendingTrailing = 0;
  constructor(
    private readonly maxWidth: number,
    private readonly align: Align,
    private readonly p: PreparedParagraph,
  ) {}

  flush(last: boolean): void {
    this.lines.push(finishLine(this.current, this.width, this.maxWidth, this.align, last, this.p));
    this.current = [];
    this.width = 0;
    this.pendingTrailing = 0;
  }

  place(seg: Segment): void {
    const max = this.maxWidth + 1e-6;
    // A segment ending at a soft hyphen needs room for the hyphen if the line ends after it, and
    // the line's last glyph room for its ink (inkGain).
    const ink = inkGain(lastInk(seg));
    const need = seg.width + (seg.hyphen ? seg.hyphen.width + inkGain(seg.hyphen) : ink);
    if (this.current.length > 0 && this.width + this.pendingTrailing + need > max) {
      this.flush(false);
    }
    if (this.current.length === 0 && seg.width + ink > max) {
      const parts = splitSegment(seg, this.maxWidth);
      for (let i = 0; i < parts.length - 1; i++) {
        this.current.push(parts[i]);
        this.width = parts[i].width;
        this.flush(false);
      }
      seg = parts[parts.length - 1];
    }
    this.width += (this.current.length > 0 ? this.pendingTrailing : 0) + seg.width;
    this.pendingTrailing = seg.trailing;
    this.current.push(seg);
    if (seg.required) this.flush(true);
  }

  end(): Line[] {
    if (this.current.length > 0 || this.lines.length === 0) this.flush(true);
    return exact(this.lines);
  }
}

/**
 * Fill lines of at most `maxWidth` points. A paragraph with no text yields one empty line of the
 * base style's height, so an empty cell keeps its row height.
 */
export function breakLines(p: PreparedParagraph, maxWidth: number, align: Align): Line[] {
  const filler = new LineFiller(maxWidth, align, p);
  for (const seg of p.segments) filler.place(seg);
  return filler.end();
}

/**
 * UAX #9 L2: from the highest level on the line down to its lowest odd level, reverse every
 * maximal run of pieces at or above that level. (A line all at level 2, English in a
 * right-to-left paragraph, has no odd level to reach: it stays in logical order.)
 */
function visualOrder(pieces: Piece[]): Piece[] {
  let max = 0;
  let min = Infinity;
  for (const p of pieces) {
    if (p.level > max) max = p.level;
    if (p.level < min) min = p.level;
  }
  const lowestOdd = min % 2 === 1 ? min : min + 1;
  if (max < lowestOdd) return pieces;
  const out = pieces.slice();
  for (let level = max; level >= lowestOdd; level--) {
    let i = 0;
    while (i < out.length) {
      if (out[i].level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < out.length && out[j].level >= level) j++;
      const reversed = out.slice(i, j).reverse();
      for (let k = i; k < j; k++) out[k] = reversed[k - i];
      i = j;
    }
  }
  return out;
}

function finishLine(segs: Segment[], width: number, maxWidth: number, align: Align, last: boolean, p: PreparedParagraph): Line {
  const base = p.baseStyle;
  // Pieces in logical order, without the white space that ends the line; a hyphen where a soft one broke it.
  const logical: Piece[] = [];
  let joins: number[] | null = null; // indexes in `logical` after which a soft hyphen did not break the line
  let bidiLine = false;
  for (let k = 0; k < segs.length; k++) {
    for (const piece of segs[k].pieces) {
      logical.push(piece);
      if (piece.level > 0) bidiLine = true;
    }
    // A soft hyphen with nothing before it on the line (it starts the text, or a wrapped line) joins nothing.
    if (k < segs.length - 1 && segs[k].hyphen && segs[k].trailing === 0 && logical.length > 0) (joins ??= []).push(logical.length - 1);
  }
  // A word whose soft hyphen did not end the line is shaped whole again, keeping its kerning.
  for (let j = (joins?.length ?? 0) - 1; j >= 0; j--) {
    const at = joins![j];
    const a = logical[at];
    const b = logical[at + 1];
    if (!b || a.space || b.space || a.style !== b.style || a.face !== b.face || a.level !== b.level) continue;
    const whole = makePiece(a.text + b.text, a.style, a.face, a.level, false);
    width += whole.width - a.width - b.width;
    logical.splice(at, 2, whole);
  }
  while (logical.length > 0 && logical[logical.length - 1].space) logical.pop();
  const lastSeg = segs[segs.length - 1];
  if (!last && lastSeg?.hyphen) {
    logical.push(lastSeg.hyphen);
    width += lastSeg.hyphen.width;
  }
  width += inkGain(logical[logical.length - 1]);
  // Trailing white space takes the paragraph level (UAX #9 L1) before reordering.
  const pieces = bidiLine ? visualOrder(logical) : logical;

  const rtl = p.baseLevel % 2 === 1;
  const resolved = align === 'start' ? (rtl ? 'right' : 'left') : align === 'end' ? (rtl ? 'left' : 'right') : align;
  // Justification: the extra space goes to the spaces between words and, on a line with CJK
  // ideographs or kana (written without spaces), to the gaps between all its characters.
  let spaceGlyphs = 0;
  let charGaps = 0;
  if (resolved === 'justify' && !last) {
    let cjk = false;
    let glyphs = 0;
    for (const piece of pieces) {
      if (piece.space) spaceGlyphs += piece.run.glyphs.length;
      else {
        glyphs += piece.run.glyphs.length;
        if (!cjk && CJK.test(piece.text)) cjk = true;
      }
    }
    if (cjk) charGaps = Math.max(0, glyphs - 1);
  }
  const gaps = spaceGlyphs + charGaps;
  const extra = gaps > 0 ? Math.max(0, maxWidth - width) / gaps : 0;
  const wordSpacing = spaceGlyphs > 0 ? extra : 0;
  const charSpacing = charGaps > 0 ? extra : 0;
  const lineWidth = extra > 0 ? maxWidth : width;
  let x = 0;
  // A justified paragraph's last line sits at the start side.
  if (resolved === 'right' || (resolved === 'justify' && rtl && extra === 0)) x = maxWidth - width;
  else if (resolved === 'center') x = (maxWidth - width) / 2;

  let ascent = 0;
  let descent = 0;
  let height = 0;
  if (pieces.length === 0) {
    ascent = base.face.ascent * base.size;
    descent = base.face.descent * base.size;
    height = base.size * base.lineHeight;
  }

  const runs: LineRun[] = [];
  let i = 0;
  while (i < pieces.length) {
    const { style, face } = pieces[i];
    ascent = Math.max(ascent, face.ascent * style.size);
    descent = Math.max(descent, face.descent * style.size);
    height = Math.max(height, style.size * style.lineHeight);
    let j = i;
    let runWidth = 0;
    while (j < pieces.length && pieces[j].style === style && pieces[j].face === face) {
      runWidth += pieces[j].width + (pieces[j].space ? wordSpacing : charSpacing) * pieces[j].run.glyphs.length;
      j++;
    }
    // The line's last glyph gets no gap after it (the painter adds it, past the line's end).
    if (j === pieces.length && charSpacing > 0 && !pieces[j - 1].space) runWidth -= charSpacing;
    runs.push({ style, face, pieces: pieces.slice(i, j), x, width: runWidth, wordSpacing, charSpacing });
    x += runWidth;
    i = j;
  }
  const baseline = (height - (ascent + descent)) / 2 + ascent;
  return { runs: exact(runs), width: lineWidth, height, baseline };
}
