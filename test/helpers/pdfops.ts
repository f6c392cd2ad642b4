/**
 * More ways to read produced PDFs back in tests (pdfjs-dist): link annotations, drawing operators
 * and image placements, and text grouped into lines. Positions are in points from the page's
 * top-left corner, like test/helpers/pdf.ts.
 */
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PdfPage, TextRun } from './pdf.ts';

export { OPS };

export interface Annotation {
  subtype: string;
  url?: string;
  /** [x1, y1, x2, y2] from the page's top-left corner (y1 < y2). */
  rect: [number, number, number, number];
}

/** Where an image was painted: its box on the page (top-left based) from the CTM at the Do. */
export interface ImagePlacement {
  op: 'paintImageXObject' | 'paintInlineImageXObject' | 'paintImageMaskXObject';
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PageOps {
  width: number;
  height: number;
  /** Operator names, in order (pdfjs OPS names). */
  names: string[];
  images: ImagePlacement[];
  /** Number of fill operators (fill, eoFill, fillStroke, eoFillStroke and pdfjs' combined path-fill forms). */
  fills: number;
  /** Bounding box (top-left based) of every filled path, in order. */
  filledBoxes: Box[];
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The smallest box holding all `boxes`. */
export function unionBox(boxes: readonly Box[]): Box {
  const x1 = Math.min(...boxes.map((b) => b.x));
  const y1 = Math.min(...boxes.map((b) => b.y));
  const x2 = Math.max(...boxes.map((b) => b.x + b.width));
  const y2 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

const OP_NAME: Record<number, string> = Object.fromEntries(Object.entries(OPS).map(([k, v]) => [v as number, k]));

type Matrix = [number, number, number, number, number, number];
const mul = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

async function open(pdf: Buffer | Uint8Array) {
  return getDocument({ data: new Uint8Array(pdf), verbosity: 0, useSystemFonts: false, isEvalSupported: false }).promise;
}

/** Annotations of every page (Link annotations carry `url`). */
export async function pdfAnnotations(pdf: Buffer | Uint8Array): Promise<Annotation[][]> {
  const doc = await open(pdf);
  const out: Annotation[][] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const height = page.view[3];
      const annots = (await page.getAnnotations()) as Array<{ subtype: string; url?: string; rect: number[] }>;
      out.push(
        annots.map((a) => ({
          subtype: a.subtype,
          url: a.url,
          rect: [a.rect[0], height - a.rect[3], a.rect[2], height - a.rect[1]],
        })),
      );
    }
  } finally {
    await doc.destroy();
  }
  return out;
}

/** Operators of every page, with image placements computed from the transformation matrix. */
export async function pdfOperators(pdf: Buffer | Uint8Array): Promise<PageOps[]> {
  const doc = await open(pdf);
  const out: PageOps[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const [, , width, height] = page.view;
      const list = await page.getOperatorList();
      const names: string[] = [];
      const images: ImagePlacement[] = [];
      let fills = 0;
      const filledBoxes: Box[] = [];
      let pathBox: Box | null = null;
      let ctm: Matrix = [1, 0, 0, 1, 0, 0];
      const stack: Matrix[] = [];
      for (let i = 0; i < list.fnArray.length; i++) {
        const fn = list.fnArray[i];
        const args = list.argsArray[i] as unknown[];
        const name = OP_NAME[fn] ?? String(fn);
        names.push(name);
        if (fn === OPS.save) stack.push(ctm);
        else if (fn === OPS.restore) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
        else if (fn === OPS.transform) ctm = mul(args as Matrix, ctm);
        else if (fn === OPS.paintFormXObjectBegin) {
          stack.push(ctm);
          const m = args[0] as Matrix | null;
          if (m) ctm = mul(m, ctm);
        } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
        else if (fn === OPS.fill || fn === OPS.eoFill || fn === OPS.fillStroke || fn === OPS.eoFillStroke) {
          fills++;
          if (pathBox) filledBoxes.push(pathBox);
          pathBox = null;
        } else if (fn === OPS.constructPath) {
          // pdfjs 4.x: [ops, coordinates, minMax = [minX, minY, maxX, maxY]] in user space.
          const minMax = args[2] as number[] | undefined;
          if (minMax && minMax.length === 4 && minMax.every(Number.isFinite)) {
            const corners = [apply(ctm, minMax[0], minMax[1]), apply(ctm, minMax[2], minMax[1]), apply(ctm, minMax[0], minMax[3]), apply(ctm, minMax[2], minMax[3])];
            const xs = corners.map((c) => c[0]);
            const ys = corners.map((c) => height - c[1]);
            const b = { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
            pathBox = pathBox ? unionBox([pathBox, b]) : b;
          }
        } else if (fn === OPS.stroke || fn === OPS.closeStroke || fn === OPS.endPath) pathBox = null; else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject || fn === OPS.paintImageMaskXObject) {
          // The image is the unit square mapped by the CTM.
          const corners = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)];
          const xs = corners.map((c) => c[0]);
          const ys = corners.map((c) => height - c[1]);
          images.push({
            op: name as ImagePlacement['op'],
            x: Math.min(...xs),
            y: Math.min(...ys),
            width: Math.max(...xs) - Math.min(...xs),
            height: Math.max(...ys) - Math.min(...ys),
          });
        }
      }
      out.push({ width, height, names, images, fills, filledBoxes });
    }
  } finally {
    await doc.destroy();
  }
  return out;
}

export interface TextLine {
  /** Baseline from the top of the page. */
  y: number;
  /** Left edge of the first non-blank run. */
  left: number;
  /** Right edge (x + width) of the last non-blank run. */
  right: number;
  /** Runs joined left to right, whitespace collapsed, trimmed. */
  text: string;
  runs: TextRun[];
}

/** The runs of a page grouped into lines by baseline (within 1 pt), top to bottom. */
export function textLines(page: PdfPage | { runs: TextRun[] }): TextLine[] {
  const sorted = [...page.runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const groups: TextRun[][] = [];
  for (const r of sorted) {
    const last = groups[groups.length - 1];
    if (last && Math.abs(last[0].y - r.y) < 1) last.push(r);
    else groups.push([r]);
  }
  const lines: TextLine[] = [];
  for (const g of groups) {
    g.sort((a, b) => a.x - b.x);
    const inked = g.filter((r) => r.str.trim() !== '');
    if (inked.length === 0) continue;
    lines.push({
      y: inked[0].y,
      left: Math.min(...inked.map((r) => r.x)),
      right: Math.max(...inked.map((r) => r.x + r.width)),
      text: g.map((r) => r.str).join('').replace(/\s+/g, ' ').trim(),
      runs: g,
    });
  }
  return lines;
}

/** Runs (non-blank) whose text is exactly `str`, trimmed. */
export function runsExactly(page: PdfPage | { runs: TextRun[] }, str: string): TextRun[] {
  return page.runs.filter((r) => r.str.trim() === str);
}
