/**
 * The two HarfBuzz levers against what they replaced, in one process and interleaved (A, B, A,
 * B, ...), so that both sides see the same machine load: a ratio measured this way holds on a
 * busy machine where absolute times do not.
 *
 *   tsx bench/levers.bench.ts [--rounds 20]
 *
 * - subsetting: the glyphs of varied invoices (bench/varied-invoice.ts: every string of the data
 *   and the template, shaped in Noto Sans) subset by fontkit's encoder and by hb-subset
 *   (engine/paint/subset.ts), each followed by the deflate the PDF needs;
 * - shaping: the words of a varied report (bench/varied-report.ts) shaped by fontkit's layout and
 *   by HarfBuzz (engine/text/harfbuzz.ts), in Noto Sans, new words in every round.
 * Prints the median per subset and per word of each, and the ratio.
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { hbSubset } from '../engine/paint/subset.ts';
import { bundledFontLibrary } from '../engine/text/fonts.ts';
import { hbShape } from '../engine/text/harfbuzz.ts';
import { variedInvoiceData } from './varied-invoice.ts';
import { variedReportData } from './varied-report.ts';

const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 20;
const root = new URL('../', import.meta.url);
const face = bundledFontLibrary().resolve('Noto Sans', 400, 'normal');
const invoice = JSON.parse(readFileSync(new URL('examples/invoice/data.json', root), 'utf8'));
const invoiceTemplate = readFileSync(new URL('examples/invoice/template.json', root), 'utf8');
const report = JSON.parse(readFileSync(new URL('examples/report/data.json', root), 'utf8'));

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value.startsWith('data:') ? '' : value);
  else if (typeof value === 'number') out.push(String(value));
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round2 = (n: number) => Math.round(n * 1000) / 1000;

// Subsetting: one glyph list per varied invoice, in first-use order as paint collects them.
// hb-subset prepares a face between renders, after its first use: use it once and yield first.
hbSubset(face, [0]);
await new Promise((resolve) => setTimeout(resolve, 10));
const subsetFontkit: number[] = [];
const subsetHb: number[] = [];
for (let r = 0; r < rounds; r++) {
  const text = [...strings(variedInvoiceData(invoice, 1000 + r)), invoiceTemplate].join(' ');
  const glyphs = [0];
  for (const g of face.font.layout(text).glyphs) if (!glyphs.includes(g.id)) glyphs.push(g.id);
  const runs: [number[], () => void][] = [
    [
      subsetFontkit,
      () => {
        const s = face.font.createSubset() as unknown as { includeGlyph(id: number): number; encode(): Uint8Array };
        for (const id of glyphs) s.includeGlyph(id);
        deflateSync(s.encode());
      },
    ],
    [subsetHb, () => deflateSync(hbSubset(face, glyphs)!.data)],
  ];
  for (const [times, run] of r % 2 === 0 ? runs : runs.reverse()) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
}

// Shaping: the words of one varied report per round, each shaped once by each shaper.
const shapeFontkit: number[] = [];
const shapeHb: number[] = [];
let words = 0;
for (let r = 0; r < rounds; r++) {
  const list = [...new Set(strings(variedReportData(report, 2000 + r)).flatMap((s) => s.split(' ')))].filter((w) => w.length > 0);
  words = list.length;
  const runs: [number[], () => void][] = [
    [shapeFontkit, () => list.forEach((w) => face.font.layout(w))],
    [shapeHb, () => list.forEach((w) => hbShape(face, w, [], false))],
  ];
  for (const [times, run] of r % 2 === 0 ? runs : runs.reverse()) {
    const start = performance.now();
    run();
    times.push(((performance.now() - start) * 1000) / list.length);
  }
}

const result = {
  rounds,
  subset: { fontkitMs: round2(median(subsetFontkit)), hbSubsetMs: round2(median(subsetHb)), ratio: round2(median(subsetFontkit) / median(subsetHb)) },
  shaping: { words, fontkitMicrosPerWord: round2(median(shapeFontkit)), harfbuzzMicrosPerWord: round2(median(shapeHb)), ratio: round2(median(shapeFontkit) / median(shapeHb)) },
};
console.log(JSON.stringify(result, null, 2));
