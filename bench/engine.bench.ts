/**
 * Engine throughput (DESIGN §6): renders examples/invoice and examples/report with Platen and,
 * in the same process, the same content with pdfmake (same fonts). Prints docs/s, pages/s and the
 * ratio to pdfmake; writes bench/results.json.
 *   npm run bench            full run
 *   npm run bench -- --quick short run (smoke check)
 *   tsx bench/engine.bench.ts --invoice-only [--varied]   only Platen's invoice task (with
 *       --varied: different data every render); prints its figures as JSON and writes nothing
 *       (bench/http.bench.ts)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { Bench } from 'tinybench';
import { renderPdf, validateTemplate } from '../engine/index.ts';
import type { Template } from '../engine/template/types.ts';
import { pdfmakeFonts, toPdfmake } from './pdfmake-doc.ts';
import { variedInvoiceData } from './varied-invoice.ts';

const quick = process.argv.includes('--quick');
const root = new URL('../', import.meta.url);
const now = new Date('2026-01-15T12:00:00Z');

interface Doc {
  name: string;
  template: Template;
  data: unknown;
  pages: number;
}

function load(name: string): Doc {
  const definition = JSON.parse(readFileSync(new URL(`examples/${name}/template.json`, root), 'utf8'));
  const data = JSON.parse(readFileSync(new URL(`examples/${name}/data.json`, root), 'utf8'));
  const v = validateTemplate(definition);
  if (!v.ok) throw new Error(`examples/${name} is invalid: ${JSON.stringify(v.errors)}`);
  return { name, template: v.template, data, pages: 0 };
}

const benchOptions = { time: quick ? 300 : 4000, warmupTime: quick ? 100 : 1000, iterations: quick ? 3 : 10 };

if (process.argv.includes('--invoice-only')) {
  const invoice = load('invoice');
  const varied = process.argv.includes('--varied');
  let serial = 0;
  const bench = new Bench(benchOptions);
  bench.add('platen invoice', async () => {
    await renderPdf(invoice.template, varied ? variedInvoiceData(invoice.data, ++serial) : invoice.data, { now });
  });
  await bench.run();
  const mean = (bench.tasks[0]!.result as { latency: { mean: number } }).latency.mean;
  console.log(JSON.stringify({ docsPerSecond: Math.round(100_000 / mean) / 100, meanMs: Math.round(mean * 100) / 100 }));
  process.exit(0);
}

// pdfmake 0.3's server build (CommonJS). It warns about access policies unless they are set.
const require = createRequire(import.meta.url);
const pdfmake = require('pdfmake');
pdfmake.setUrlAccessPolicy(() => false);
pdfmake.setLocalAccessPolicy?.(() => true);
pdfmake.addFonts(pdfmakeFonts());

async function pdfmakeRender(def: Record<string, unknown>): Promise<{ pdf: Buffer; pages: number }> {
  const doc = pdfmake.createPdf(def);
  const pdf: Buffer = await doc.getBuffer();
  const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
  return { pdf, pages };
}

const docs = [load('invoice'), load('report')];
const pdfmakeDefs = new Map(docs.map((d) => [d.name, toPdfmake(d.template, d.data, now)]));
const pdfmakePages = new Map<string, number>();
for (const d of docs) {
  d.pages = (await renderPdf(d.template, d.data, { now })).pages;
  pdfmakePages.set(d.name, (await pdfmakeRender(pdfmakeDefs.get(d.name)!())).pages);
}

const bench = new Bench(benchOptions);

// The same invoice with different data every time (names, numbers, amounts): new strings to shape
// and new glyph sets to subset, as a service sees them; the repeated document above hits caches.
const invoice = docs.find((d) => d.name === 'invoice')!;
let serial = 0;
bench.add('platen invoice (varied data)', async () => {
  await renderPdf(invoice.template, variedInvoiceData(invoice.data, ++serial), { now });
});
for (const d of docs) {
  bench.add(`platen ${d.name}`, async () => {
    await renderPdf(d.template, d.data, { now });
  });
  bench.add(`pdfmake ${d.name}`, async () => {
    await pdfmakeRender(pdfmakeDefs.get(d.name)!());
  });
}
await bench.run();

const mean = (name: string): number => {
  const task = bench.tasks.find((t) => t.name === name)!;
  const r = task.result as { state: string; latency?: { mean: number }; error?: Error };
  if (!r.latency) throw new Error(`${name}: ${r.state} ${r.error?.message ?? ''}`);
  return r.latency.mean;
};

const varied = 1000 / mean('platen invoice (varied data)');
const results = docs.map((d) => {
  const ours = 1000 / mean(`platen ${d.name}`);
  const theirs = 1000 / mean(`pdfmake ${d.name}`);
  return {
    document: d.name,
    pages: d.pages,
    platen: { docsPerSecond: round(ours), pagesPerSecond: round(ours * d.pages), meanMs: round(mean(`platen ${d.name}`)) },
    pdfmake: { docsPerSecond: round(theirs), pagesPerSecond: round(theirs * pdfmakePages.get(d.name)!), meanMs: round(mean(`pdfmake ${d.name}`)), pages: pdfmakePages.get(d.name) },
    ratio: round(ours / theirs),
  };
});

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

console.log('document  pages  platen docs/s  pages/s   pdfmake docs/s  ratio');
for (const r of results) {
  console.log(
    `${r.document.padEnd(9)} ${String(r.pages).padStart(5)}  ${String(r.platen.docsPerSecond).padStart(13)}  ${String(r.platen.pagesPerSecond).padStart(7)}   ${String(r.pdfmake.docsPerSecond).padStart(14)}  ${r.ratio}x`,
  );
}
console.log(`invoice with different data every render: ${round(varied)} docs/s (${round(varied / (1000 / mean('pdfmake invoice')))}x pdfmake's repeated invoice)`);
// Other benches' sections (async, http) are kept; each carries its own date.
const resultsFile = new URL('bench/results.json', root);
const out = {
  ...(existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {}),
  date: new Date().toISOString(),
  quick,
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.arch()}` },
  engine: results,
  invoiceVariedData: { docsPerSecond: round(varied), meanMs: round(mean('platen invoice (varied data)')) },
};
if (!quick) writeFileSync(resultsFile, `${JSON.stringify(out, null, 2)}\n`);
console.log(quick ? '(quick run: bench/results.json not written)' : 'wrote bench/results.json');
