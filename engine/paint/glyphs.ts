/**
 * Glyph runs to PDF text operators: the glyphs we shaped ourselves (pdfkit's text() would shape and
 * wrap again) as TJ arrays with the kerning and justification adjustments, in fonts embedded by
 * fonts.ts.
 */
import type PDFDocument from 'pdfkit';
import type { FontFace } from '../text/fonts.ts';
import type { LineRun } from '../text/paragraph.ts';
import { EmbeddedFace } from './fonts.ts';

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
 * The TJ array of a run: glyph codes with position adjustments (thousandths of an em, PDF sign
 * convention) wherever our advance differs from the glyph's default width.
 */
export function tjArray(f: EmbeddedFace, face: FontFace, run: LineRun): string {
  const unitScale = 1000 / face.unitsPerEm;
  const spaceExtra = run.wordSpacing > 0 ? (run.wordSpacing * 1000) / run.style.size : 0;
  const letterExtra = run.style.letterSpacing !== 0 ? (run.style.letterSpacing * 1000) / run.style.size : 0;
  let out = '[<';
  let open = true;
  for (const piece of run.pieces) {
    const glyphs = piece.run.glyphs;
    const advances = piece.run.advances;
    for (let i = 0; i < glyphs.length; i++) {
      const g = glyphs[i];
      if (!open) {
        out += '<';
        open = true;
      }
      out += f.code(g.id, piece.run.codePoints[i]);
      let adjust = (g.advanceWidth - advances[i]) * unitScale;
      if (piece.space) adjust -= spaceExtra;
      adjust -= letterExtra;
      if (adjust > 0.05 || adjust < -0.05) {
        out += `>${num(Math.round(adjust * 10) / 10)}`;
        open = false;
      }
    }
  }
  return open ? `${out}>] TJ` : `${out}] TJ`;
}
