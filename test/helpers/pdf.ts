/**
 * Reading produced PDFs back in tests: text with positions (pdfjs-dist), fonts (poppler's
 * pdffonts), page images (pdftoppm). Positions are in points from the page's top-left corner.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface TextRun {
  str: string;
  /** Left edge of the run. */
  x: number;
  /** Baseline, from the top of the page. */
  y: number;
  width: number;
  /** Font size (points). */
  size: number;
  fontName: string;
}

export interface PdfPage {
  width: number;
  height: number;
  runs: TextRun[];
  /** All text of the page, runs joined in reading order (top to bottom, left to right); lines split by \n. */
  text: string;
}

export interface ReadPdf {
  pages: PdfPage[];
  info: Record<string, unknown>;
}

/** Parse a PDF and extract every page's text runs. */
export async function readPdf(pdf: Buffer | Uint8Array): Promise<ReadPdf> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0, useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: PdfPage[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const [, , width, height] = page.view;
    const content = await page.getTextContent();
    const runs: TextRun[] = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str === '') continue;
      const t = item.transform as number[];
      runs.push({ str: item.str, x: t[4], y: height - t[5], width: item.width, size: Math.hypot(t[2], t[3]), fontName: item.fontName });
    }
    pages.push({ width, height, runs, text: linesOf(runs).join('\n') });
  }
  const meta = await doc.getMetadata();
  await doc.destroy();
  return { pages, info: (meta.info ?? {}) as Record<string, unknown> };
}

/** Group runs into lines by baseline (within 1pt) and join each line's runs left to right. */
export function linesOf(runs: TextRun[]): string[] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: TextRun[][] = [];
  for (const r of sorted) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(last[0].y - r.y) < 1) last.push(r);
    else lines.push([r]);
  }
  return lines.map((l) => l.sort((a, b) => a.x - b.x).map((r) => r.str).join('').replace(/\s+/g, ' ').trim());
}

/** Runs whose text contains `needle`, on one page. */
export function find(page: PdfPage, needle: string): TextRun[] {
  return page.runs.filter((r) => r.str.includes(needle));
}

function withFile<T>(pdf: Buffer, fn: (path: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'platen-test-'));
  const path = join(dir, 'doc.pdf');
  writeFileSync(path, pdf);
  try {
    return fn(path, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface PdfFontRow {
  name: string;
  type: string;
  embedded: boolean;
  subset: boolean;
}

/** The font table poppler's pdffonts prints. */
export function pdfFonts(pdf: Buffer): PdfFontRow[] {
  return withFile(pdf, (path) => {
    const out = execFileSync('pdffonts', [path], { encoding: 'utf8' });
    return out
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => {
        const cols = l.trim().split(/\s+/);
        // name type [type2] encoding emb sub uni object ID: read emb/sub/uni from the end.
        const n = cols.length;
        return { name: cols[0], type: cols.slice(1, n - 6).join(' '), embedded: cols[n - 5] === 'yes', subset: cols[n - 4] === 'yes' };
      });
  });
}

/** Text of the PDF as poppler extracts it (layout mode). */
export function pdfToText(pdf: Buffer): string {
  return withFile(pdf, (path) => execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' }));
}
