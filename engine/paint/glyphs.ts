/**
 * Glyph runs to PDF text operators. Every face becomes one Type0/CIDFontType2 font, subset and
 * embedded by pdfkit's EmbeddedFont; we hand it the glyphs we shaped ourselves (pdfkit's text()
 * would shape and wrap again) and write TJ arrays with the kerning and justification adjustments.
 */
import type PDFDocument from 'pdfkit';
import type { FontFace } from '../text/fonts.ts';
import type { LineRun } from '../text/paragraph.ts';

/** The parts of pdfkit's EmbeddedFont we use (it is not exported; shapes from pdfkit 0.20). */
interface EmbeddedFont {
  id: string;
  subset: { includeGlyph(id: number): number };
  widths: number[];
  unicode: number[][];
  ref(): unknown;
}

/** Per-document state of one face: the pdfkit font and the hex code of every glyph used so far. */
export interface PdfFont {
  readonly id: string;
  readonly embedded: EmbeddedFont;
  readonly codes: Map<number, string>;
}

type Doc = InstanceType<typeof PDFDocument>;

/** Open `face` in `doc` once; later calls return the same PdfFont. */
export function pdfFont(doc: Doc, fonts: Map<FontFace, PdfFont>, face: FontFace): PdfFont {
  let f = fonts.get(face);
  if (f) return f;
  doc.registerFont(face.key, face.font as never);
  doc.font(face.key);
  const embedded = (doc as unknown as { _font: EmbeddedFont })._font;
  f = { id: embedded.id, embedded, codes: new Map() };
  fonts.set(face, f);
  return f;
}

function code(f: PdfFont, glyph: { id: number; advanceWidth: number }, codePoints: readonly number[], scale: number): string {
  let hex = f.codes.get(glyph.id);
  if (hex === undefined) {
    const gid = f.embedded.subset.includeGlyph(glyph.id);
    hex = gid.toString(16).padStart(4, '0');
    f.embedded.widths[gid] ??= glyph.advanceWidth * scale;
    f.embedded.unicode[gid] ??= codePoints as number[];
    f.codes.set(glyph.id, hex);
  }
  return hex;
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
export function tjArray(f: PdfFont, face: FontFace, run: LineRun): string {
  const unitScale = 1000 / face.unitsPerEm;
  const spaceExtra = run.wordSpacing > 0 ? (run.wordSpacing * 1000) / run.style.size : 0;
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
      out += code(f, g, piece.run.codePoints[i], unitScale);
      let adjust = (g.advanceWidth - advances[i]) * unitScale;
      if (piece.space) adjust -= spaceExtra;
      if (adjust > 0.05 || adjust < -0.05) {
        out += `>${num(Math.round(adjust * 10) / 10)}`;
        open = false;
      }
    }
  }
  return open ? `${out}>] TJ` : `${out}] TJ`;
}
