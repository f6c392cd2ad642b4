/**
 * Glyph runs to PDF text operators: the glyphs we shaped ourselves (pdfkit's text() would shape and
 * wrap again) as TJ arrays with the kerning and justification adjustments, in fonts embedded by
 * fonts.ts.
 */
import type PDFDocument from 'pdfkit';
import type { FontFace } from '../text/fonts.ts';
import { spacedAdvance, type Line, type LineRun, type Piece } from '../text/paragraph.ts';
import { EmbeddedFace } from './fonts.ts';
import bidiModule from 'bidi-js';

const bidi = (bidiModule as unknown as typeof import('bidi-js').default)();

/**
 * The character a right-to-left glyph stands for when shaping drew its mirror image (UAX #9 L4:
 * "(" is drawn with the glyph of ")"): the glyph's ToUnicode says ")", so extraction, which puts
 * right-to-left glyphs back in logical order, would flip the bracket. Null for other glyphs.
 */
const RTL_LETTER = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;

/** Mirrored glyphs of a line, by piece and glyph index (see {@link mirroredBrackets}). */
export type MirroredGlyphs = Map<Piece, Set<number>>;

/**
 * The mirrored brackets of a line that enclose right-to-left letters (a word in brackets):
 * extraction reads those back reversed with the letters, so they get their character as
 * ActualText. A bracket around left-to-right text is read with that text, as it looks, and keeps
 * its glyph's character. Null when the line has none.
 */
export function mirroredBrackets(line: Line): MirroredGlyphs | null {
  const glyphs: { piece: Piece; i: number; cps: readonly number[] }[] = [];
  for (const run of line.runs) for (const piece of run.pieces) for (let i = 0; i < piece.run.glyphs.length; i++) glyphs.push({ piece, i, cps: piece.run.codePoints[i] });
  let out: MirroredGlyphs | null = null;
  glyphs.forEach((g, k) => {
    if (g.piece.level % 2 === 0 || mirroredFrom(g.cps) === null) return;
    const ch = String.fromCodePoint(g.cps[0]);
    // A glyph that looks like an opening bracket has what it encloses on its right.
    const step = bidi.openingToClosingBracket(ch) ? 1 : -1;
    let n = k + step;
    while (n >= 0 && n < glyphs.length && glyphs[n].cps.length > 0 && /\s/.test(String.fromCodePoint(glyphs[n].cps[0]))) n += step;
    const inner = glyphs[n];
    if (!inner || inner.cps.length === 0 || !RTL_LETTER.test(String.fromCodePoint(inner.cps[0]))) return;
    out ??= new Map();
    let set = out.get(g.piece);
    if (!set) out.set(g.piece, (set = new Set()));
    set.add(g.i);
  });
  return out;
}

function mirroredFrom(codePoints: readonly number[]): string | null {
  if (codePoints.length !== 1) return null;
  return bidi.getMirroredCharacter(String.fromCodePoint(codePoints[0])) ?? null;
}

type Doc = InstanceType<typeof PDFDocument>;

/** Open `face` in `doc` once; later calls return the same embedded face. */
export function pdfFont(doc: Doc, fonts: Map<FontFace, EmbeddedFace>, face: FontFace): EmbeddedFace {
  let f = fonts.get(face);
  if (!f) fonts.set(face, (f = new EmbeddedFace(doc, face, `F${fonts.size + 1}`)));
  return f;
}

/** Format a number for a content stream: at most 3 decimals, no exponent. */
export function num(n: number): string {
  const r = Math.round(n * 1000) / 1000;
  return Object.is(r, -0) ? '0' : String(r);
}

/**
 * The text-showing operators of a run: TJ arrays of glyph codes with position adjustments
 * (thousandths of an em, PDF sign convention) wherever our advance differs from the glyph's
 * default width (kerning, justification, letter spacing), and the shaper's mark positioning: a
 * glyph's x offset as an adjustment before it (taken back after it), its y offset as a text rise
 * (`Ts`) around it, reset to 0 at the end.
 */
export function tjArray(f: EmbeddedFace, face: FontFace, run: LineRun, mirrored?: MirroredGlyphs | null): string {
  const unitScale = 1000 / face.unitsPerEm;
  const spaceExtra = run.wordSpacing > 0 ? (run.wordSpacing * 1000) / run.style.size : 0;
  const letterExtra = run.style.letterSpacing !== 0 ? (run.style.letterSpacing * 1000) / run.style.size : 0;
  const charExtra = run.charSpacing > 0 ? (run.charSpacing * 1000) / run.style.size : 0;
  const riseScale = run.style.size / face.unitsPerEm;
  let out = '[<';
  let open = true;
  let rise = 0;
  for (const piece of run.pieces) {
    const glyphs = piece.run.glyphs;
    const advances = piece.run.advances;
    const offsets = piece.run.offsets;
    const spread = charExtra > 0 && !piece.space ? charExtra : 0;
    for (let i = 0; i < glyphs.length; i++) {
      const g = glyphs[i];
      const dx = offsets ? offsets[i][0] * unitScale : 0;
      const dy = offsets ? offsets[i][1] * riseScale : 0;
      if (dy !== rise) {
        out += `${open ? '>' : ''}] TJ ${num(dy)} Ts [`;
        open = false;
        rise = dy;
      }
      if (dx > 0.05 || dx < -0.05) {
        // After a number (not a string) a space keeps two numbers apart.
        out += `${open ? '>' : ' '}${num(Math.round(-dx * 10) / 10)}`;
        open = false;
      }
      // A mirrored glyph of right-to-left text: its own TJ, marked with the character it stands for.
      const original = piece.level % 2 === 1 && mirrored?.get(piece)?.has(i) ? mirroredFrom(piece.run.codePoints[i]) : null;
      if (original !== null) {
        const hex = Buffer.from(original, 'utf16le').swap16().toString('hex').toUpperCase();
        out += `${open ? '>' : ''}] TJ /Span <</ActualText <FEFF${hex}>>> BDC [<`;
        open = true;
      } else if (!open) {
        out += '<';
        open = true;
      }
      out += f.code(g.id, piece.run.codePoints[i]);
      let adjust = (g.advanceWidth - advances[i]) * unitScale + dx;
      if (piece.space) adjust -= spaceExtra;
      const advance = advances[i] * unitScale;
      adjust -= spacedAdvance(advance, letterExtra) - advance + spread;
      if (original !== null) {
        out += `>${adjust > 0.05 || adjust < -0.05 ? num(Math.round(adjust * 10) / 10) : ''}] TJ EMC [`;
        open = false;
      } else if (adjust > 0.05 || adjust < -0.05) {
        out += `>${num(Math.round(adjust * 10) / 10)}`;
        open = false;
      }
    }
  }
  out += open ? '>] TJ' : '] TJ';
  return rise !== 0 ? `${out} 0 Ts` : out;
}
