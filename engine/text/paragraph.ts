/**
 * Paragraph text in two steps, after Typst's text passes:
 * - `prepareParagraph`: width-independent. Finds UAX #14 break opportunities over the whole
 *   paragraph (the `linebreak` package), cuts the text into segments between them, splits each
 *   segment at span boundaries into pieces and shapes every piece once.
 * - `breakLines`: for a given width, fills lines greedily with segments, breaks a segment wider
 *   than a line between grapheme clusters, and aligns (left, right, center, justify).
 *
 * All lengths are points.
 */
import LineBreaker from 'linebreak';
import type { FontFace } from './fonts.ts';
import { shape, type GlyphRun } from './shape.ts';

/** An sRGB colour, components 0-255. */
export type RGB = readonly [number, number, number];

/** The resolved style of a piece of text. */
export interface TextStyle {
  readonly face: FontFace;
  /** Font size in points. */
  readonly size: number;
  readonly color: RGB;
  /** Line height as a multiple of the size. */
  readonly lineHeight: number;
  readonly decoration: 'none' | 'underline' | 'line-through';
  readonly link?: string;
  readonly features?: readonly string[];
}

/** Input: a run of text in one style. */
export interface StyledText {
  readonly text: string;
  readonly style: TextStyle;
}

/** A shaped piece: part of one segment in one style. `space` marks the segment's trailing white space. */
export interface Piece {
  readonly text: string;
  readonly style: TextStyle;
  readonly run: GlyphRun;
  readonly width: number;
  readonly space: boolean;
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
}

/** A run of pieces in one style on a line, positioned from the line's left edge. */
export interface LineRun {
  readonly style: TextStyle;
  readonly pieces: readonly Piece[];
  readonly x: number;
  readonly width: number;
  /** Extra advance (points) added after each glyph of a trailing-space piece, for justification. */
  readonly wordSpacing: number;
}

/** One laid-out line. `baseline` is measured from the line's top. */
export interface Line {
  readonly runs: readonly LineRun[];
  readonly width: number;
  readonly height: number;
  readonly baseline: number;
}

export type Align = 'left' | 'right' | 'center' | 'justify';

const TRAILING_SPACE = /[ \t\n\r\u2028\u2029]+$/;
const CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/;
const CONTROL_GLOBAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const NEWLINES = /[\n\r\u2028\u2029]/g;

function makePiece(text: string, style: TextStyle, space: boolean): Piece {
  const run = shape(style.face, text, style.features);
  return { text, style, run, width: (run.width / style.face.unitsPerEm) * style.size, space };
}

/**
 * Shape a paragraph's styled runs into segments. Width-independent: do it once, break many times.
 * @param spans the paragraph's text in document order; must not be empty.
 */
export function prepareParagraph(input: readonly StyledText[]): PreparedParagraph {
  // Tabs become spaces and other control characters go: no font has glyphs for them.
  const spans = input.map((s) => (CONTROL.test(s.text) ? { text: s.text.replace(/\t/g, ' ').replace(CONTROL_GLOBAL, ''), style: s.style } : s));
  const baseStyle = spans[0].style;
  let full = '';
  for (const s of spans) full += s.text;
  const segments: Segment[] = [];
  let minContentWidth = 0;
  let maxContentWidth = 0;
  let hardLine = 0;

  const breaker = new LineBreaker(full);
  let start = 0;
  let spanIndex = 0;
  let spanStart = 0;
  for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) {
    const end: number = bk.position;
    const raw = full.slice(start, end);
    const trail = TRAILING_SPACE.exec(raw);
    const contentEnd = trail ? end - trail[0].length : end;
    const pieces: Piece[] = [];
    let width = 0;
    let trailing = 0;
    // Walk the spans covering [start, end): content pieces, then white-space pieces.
    let pos = start;
    while (pos < end) {
      while (spanStart + spans[spanIndex].text.length <= pos) {
        spanStart += spans[spanIndex].text.length;
        spanIndex++;
      }
      const span = spans[spanIndex];
      const spanEnd = spanStart + span.text.length;
      const isSpace = pos >= contentEnd;
      const stop = Math.min(spanEnd, isSpace ? end : contentEnd);
      let text = full.slice(pos, stop);
      if (isSpace) text = text.replace(NEWLINES, '');
      if (text.length > 0) {
        const piece = makePiece(text, span.style, isSpace);
        pieces.push(piece);
        if (isSpace) trailing += piece.width;
        else width += piece.width;
      }
      pos = stop;
    }
    segments.push({ pieces, width, trailing, required: bk.required });
    if (width > minContentWidth) minContentWidth = width;
    hardLine += width;
    if (bk.required) {
      if (hardLine > maxContentWidth) maxContentWidth = hardLine;
      hardLine = 0;
    } else {
      if (hardLine > maxContentWidth) maxContentWidth = hardLine;
      hardLine += trailing;
    }
    start = end;
  }
  return { segments, minContentWidth, maxContentWidth, baseStyle };
}

/** Break a segment wider than `maxWidth` between grapheme clusters into segments that fit. */
function splitSegment(seg: Segment, maxWidth: number): Segment[] {
  const out: Segment[] = [];
  let pieces: Piece[] = [];
  let width = 0;
  const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const piece of seg.pieces) {
    if (piece.space) continue;
    let chunk = '';
    let chunkWidth = 0;
    for (const { segment: g } of graphemes.segment(piece.text)) {
      const gw = makePiece(g, piece.style, false).width;
      if (width + chunkWidth + gw > maxWidth && width + chunkWidth > 0) {
        if (chunk) pieces.push(makePiece(chunk, piece.style, false));
        out.push({ pieces, width: width + chunkWidth, trailing: 0, required: false });
        pieces = [];
        width = 0;
        chunk = '';
        chunkWidth = 0;
      }
      chunk += g;
      chunkWidth += gw;
    }
    if (chunk) {
      const p = makePiece(chunk, piece.style, false);
      pieces.push(p);
      width += p.width;
    }
  }
  const spaces = seg.pieces.filter((p) => p.space);
  out.push({ pieces: pieces.concat(spaces), width, trailing: seg.trailing, required: seg.required });
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
    private readonly base: TextStyle,
  ) {}

  flush(last: boolean): void {
    this.lines.push(finishLine(this.current, this.width, this.maxWidth, this.align, last, this.base));
    this.current = [];
    this.width = 0;
    this.pendingTrailing = 0;
  }

  place(seg: Segment): void {
    const max = this.maxWidth + 1e-6;
    if (this.current.length > 0 && this.width + this.pendingTrailing + seg.width > max) this.flush(false);
    if (this.current.length === 0 && seg.width > max) {
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
    return this.lines;
  }
}

/**
 * Fill lines of at most `maxWidth` points. A paragraph with no text yields one empty line of the
 * base style's height, so an empty cell keeps its row height.
 */
export function breakLines(p: PreparedParagraph, maxWidth: number, align: Align): Line[] {
  const filler = new LineFiller(maxWidth, align, p.baseStyle);
  for (const seg of p.segments) filler.place(seg);
  return filler.end();
}

function finishLine(segs: Segment[], width: number, maxWidth: number, align: Align, last: boolean, base: TextStyle): Line {
  // Pieces in order, without the white space that ends the line.
  const pieces: Piece[] = [];
  for (const s of segs) for (const piece of s.pieces) pieces.push(piece);
  while (pieces.length > 0 && pieces[pieces.length - 1].space) pieces.pop();

  let spaceGlyphs = 0;
  if (align === 'justify' && !last) {
    for (const piece of pieces) if (piece.space) spaceGlyphs += piece.run.glyphs.length;
  }
  const wordSpacing = spaceGlyphs > 0 ? Math.max(0, maxWidth - width) / spaceGlyphs : 0;
  const lineWidth = wordSpacing > 0 ? maxWidth : width;
  let x = 0;
  if (align === 'right') x = maxWidth - width;
  else if (align === 'center') x = (maxWidth - width) / 2;

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
    const style = pieces[i].style;
    ascent = Math.max(ascent, style.face.ascent * style.size);
    descent = Math.max(descent, style.face.descent * style.size);
    height = Math.max(height, style.size * style.lineHeight);
    let j = i;
    let runWidth = 0;
    while (j < pieces.length && pieces[j].style === style) {
      runWidth += pieces[j].width + (pieces[j].space ? wordSpacing * pieces[j].run.glyphs.length : 0);
      j++;
    }
    runs.push({ style, pieces: pieces.slice(i, j), x, width: runWidth, wordSpacing });
    x += runWidth;
    i = j;
  }
  const baseline = (height - (ascent + descent)) / 2 + ascent;
  return { runs, width: lineWidth, height, baseline };
}
