/**
 * Engine throughput, memory and cold start: renders examples/invoice and examples/report with
 * Platen, Typst (bench/typst/*.typ) and pdfmake (bench/pdfmake-doc.ts), the same content with the
 * same Noto fonts and new data every render, each engine in a process of its own
 * (bench/engine-child.ts). Prints docs/s, the Platen/Typst and Platen/pdfmake ratios, peak RSS,
 * first-render times, Platen's caches and its RSS over many renders; writes bench/results.json.
 *   npm run bench                    full run (RSS flatness over 2,000 invoices)
 *   npm run bench -- --quick         short run (smoke check), writes nothing
 *   npm run bench -- --long          RSS flatness over 10,000 invoices
 *   npm run bench -- --flat N        RSS flatness over N invoices (and N/10 reports)
 *   tsx bench/engine.bench.ts --invoice-only [--varied]   only Platen's invoice task (with
 *       --varied: different data every render); prints its figures as JSON and writes nothing
 *       (bench/http.bench.ts)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { Bench } from 'tinybench';
import { renderPdf, validateTemplate } from '../engine/index.ts';
import type { Template } from '../engine/template/types.ts';
import { buildEngineChild } from './driver.ts';
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

type Child = {
  engine: string;
  document: string;
  data: string;
  pages: number;
  renders: number;
  docsPerSecond: number;
  meanMs: number;
  p50Ms: number;
  cpuMsPerRender: number;
  loadMs: number;
  firstRenderMs: number;
  rssAfterFirstMB: number;
  rssSamplesMB: number[];
  rssEndMB: number;
  maxRssMB: number;
  caches?: Record<string, { entries: number; size: number; budget: number; unit: string; hits: number; misses: number }>;
};

// Each engine's process runs plain JavaScript: no TypeScript loader thread in its RSS (driver.ts).
const driver = await buildEngineChild();

/** Runs bench/engine-child.ts (bundled: driver.ts) in a fresh Node process and returns what it printed. */
function child(args: string[]): Child {
  const out = execFileSync(process.execPath, [driver, ...args], {
    cwd: new URL('.', root).pathname,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = out.trim().split('\n').at(-1)!;
  const r = JSON.parse(line) as Child;
  console.error(`  ${r.engine} ${r.document} ${r.data}: ${r.docsPerSecond} docs/s, first render ${r.firstRenderMs} ms, peak RSS ${r.maxRssMB} MB`);
  return r;
}

const timing = quick ? ['--seconds', '0.5', '--warmup', '0.2'] : ['--seconds', '4', '--warmup', '1'];
const engines = ['platen', 'typst', 'pdfmake'] as const;
const documents = ['invoice', 'report'] as const;
const runs: Record<string, Record<string, Child>> = {};
for (const doc of documents) {
  runs[doc] = {};
  for (const engine of engines) runs[doc][engine] = child(['--engine', engine, '--doc', doc, ...timing]);
  runs[doc].platenRepeated = child(['--engine', 'platen', '--doc', doc, '--data', 'repeated', ...timing]);
}
// RSS over many renders, varied data (the caches fill up to their budgets and stay there).
const flatArg = process.argv.indexOf('--flat');
const flatRenders = flatArg >= 0 ? Number(process.argv[flatArg + 1]) : quick ? 100 : process.argv.includes('--long') ? 10_000 : 2_000;
const flat = {
  invoice: child(['--engine', 'platen', '--doc', 'invoice', '--renders', String(flatRenders), '--warmup', '0']),
  report: child(['--engine', 'platen', '--doc', 'report', '--renders', String(Math.max(20, flatRenders / 10)), '--warmup', '0']),
};

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const summary = (r: Child) => ({
  docsPerSecond: r.docsPerSecond,
  pagesPerSecond: round(r.docsPerSecond * r.pages),
  meanMs: r.meanMs,
  p50Ms: r.p50Ms,
  cpuMsPerRender: r.cpuMsPerRender,
  pages: r.pages,
  loadMs: r.loadMs,
  firstRenderMs: r.firstRenderMs,
  maxRssMB: r.maxRssMB,
});
const results = documents.map((doc) => {
  const r = runs[doc];
  return {
    document: doc,
    pages: r.platen.pages,
    platen: { ...summary(r.platen), repeatedDocsPerSecond: r.platenRepeated.docsPerSecond, repeatedMaxRssMB: r.platenRepeated.maxRssMB },
    typst: summary(r.typst),
    pdfmake: summary(r.pdfmake),
    ratioTypst: round(r.platen.docsPerSecond / r.typst.docsPerSecond),
    ratioPdfmake: round(r.platen.docsPerSecond / r.pdfmake.docsPerSecond),
    // The same ratios by CPU time per render (all threads of each process): steadier under load.
    ratioTypstCpu: round(r.typst.cpuMsPerRender / r.platen.cpuMsPerRender),
    ratioPdfmakeCpu: round(r.pdfmake.cpuMsPerRender / r.platen.cpuMsPerRender),
    variedToRepeated: round(r.platen.docsPerSecond / r.platenRepeated.docsPerSecond),
    caches: r.platen.caches,
  };
});

console.log('\nnew data every render; each engine in its own process');
console.log('document  pages  platen docs/s  typst docs/s  pdfmake docs/s  /typst  /pdfmake  peak RSS MB (platen/typst/pdfmake)  first render ms (platen/typst/pdfmake)');
for (const r of results) {
  console.log(
    `${r.document.padEnd(9)} ${String(r.pages).padStart(5)}  ${String(r.platen.docsPerSecond).padStart(13)}  ${String(r.typst.docsPerSecond).padStart(12)}  ${String(r.pdfmake.docsPerSecond).padStart(14)}  ${`${r.ratioTypst}x`.padStart(6)}  ${`${r.ratioPdfmake}x`.padStart(8)}  ${`${r.platen.maxRssMB} / ${r.typst.maxRssMB} / ${r.pdfmake.maxRssMB}`.padStart(34)}  ${r.platen.firstRenderMs} / ${r.typst.firstRenderMs} / ${r.pdfmake.firstRenderMs}`,
  );
  console.log(`          CPU ms per render (platen/typst/pdfmake): ${r.platen.cpuMsPerRender} / ${r.typst.cpuMsPerRender} / ${r.pdfmake.cpuMsPerRender}: /typst ${r.ratioTypstCpu}x, /pdfmake ${r.ratioPdfmakeCpu}x`);
  console.log(`          same data every render: platen ${r.platen.repeatedDocsPerSecond} docs/s (varied/repeated ${r.variedToRepeated})`);
}
for (const [doc, r] of Object.entries(flat)) {
  console.log(`RSS over ${r.renders} ${doc} renders (MB): ${r.rssSamplesMB.join(' ')}; peak ${r.maxRssMB}`);
  for (const [name, c] of Object.entries(r.caches ?? {})) {
    const rate = c.hits + c.misses > 0 ? Math.round((100 * c.hits) / (c.hits + c.misses)) : 0;
    console.log(`  cache ${name.padEnd(13)} ${String(c.entries).padStart(6)} entries  ${String(c.size).padStart(9)} / ${String(c.budget).padStart(9)} ${c.unit.padEnd(10)}  hit rate ${rate}%`);
  }
}

// Other benches' sections (async, http) are kept; each carries its own date.
const resultsFile = new URL('bench/results.json', root);
const out = {
  ...(existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {}),
  date: new Date().toISOString(),
  quick,
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.arch()}`, loadAverage: os.loadavg().map(round) },
  engine: results,
  rssFlatness: Object.fromEntries(Object.entries(flat).map(([doc, r]) => [doc, { renders: r.renders, samplesMB: r.rssSamplesMB, maxRssMB: r.maxRssMB, caches: r.caches }])),
};
delete (out as Record<string, unknown>).invoiceVariedData;
if (!quick) writeFileSync(resultsFile, `${JSON.stringify(out, null, 2)}\n`);
console.log(quick ? '(quick run: bench/results.json not written)' : 'wrote bench/results.json');
