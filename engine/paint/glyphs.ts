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
 * The text-showing operators of a run: TJ arrays of glyph codes with position adjustments
 * (thousandths of an em, PDF sign convention) wherever our advance differs from the glyph's
 * default width (kerning, justification, letter spacing), and the shaper's mark positioning: a
 * glyph's x offset as an adjustment before it (taken back after it), its y offset as a text rise
 * (`Ts`) around it, reset to 0 at the end.
 */
export function tjArray(f: EmbeddedFace, face: FontFace, run: LineRun): string {
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
      if (!open) {
        out += '<';
        open = true;
      }
      out += f.code(g.id, piece.run.codePoints[i]);
      let adjust = (g.advanceWidth - advances[i]) * unitScale + dx;
      if (piece.space) adjust -= spaceExtra;
      adjust -= letterExtra + spread;
      if (adjust > 0.05 || adjust < -0.05) {
        out += `>${num(Math.round(adjust * 10) / 10)}`;
        open = false;
      }
    }
  }
  out += open ? '>] TJ' : '] TJ';
  return rise !== 0 ? `${out} 0 Ts` : out;
}
