/**
 * One engine rendering one document in a process of its own, for the engine bench
 * (bench/engine.bench.ts starts one per engine and document, so each has its own peak RSS).
 *
 *   tsx bench/engine-child.ts --engine platen|typst|pdfmake --doc invoice|report
 *       [--data varied|repeated] [--seconds 4] [--warmup 1] [--renders N] [--samples 20]
 *       [--profile file.cpuprofile] [--profile-first file.cpuprofile] [--warm-up | --thread-ready]
 *       [--untagged] [--bundle [--no-code-cache]]
 *
 * Prints one JSON line: the time to load the engine's module and set it up, the first render's
 * time, docs/s over `--seconds` after `--warmup` seconds of warm-up (or over exactly `--renders`
 * renders, with the RSS sampled `--samples` times along the way), the CPU time per render
 * (process.cpuUsage(), all threads: steadier than the wall time on a loaded machine), the process's peak RSS
 * (process.resourceUsage().maxRSS) and, for Platen, the engine's cache statistics.
 *
 * Data: `varied` (default) gives every render new data (bench/varied-invoice.ts,
 * bench/varied-report.ts: no two renders share a word); `repeated` renders the example's own data
 * every time. Only the render call is timed: making the data (and pdfmake's document definition,
 * bound by Platen's binder) is not. `--profile` writes a V8 CPU profile of the measured renders
 * only (after the warm-up), `--profile-first` one of the first render only (summarize either
 * with bench/cpu-profile-top.mjs).
 *
 * `--untagged` (Platen only) renders the template with `"tagged": false` (no structure tree or
 * marked content), to measure what tagging costs.
 *
 * How it runs: bench/engine.bench.ts runs this script bundled as plain JavaScript
 * (bench/driver.ts: dist/bench/engine-child.mjs, Platen's engine sources bundled in), so no
 * engine's process carries a TypeScript loader; run by hand through tsx, the process also holds
 * tsx's loader thread (40-50 MB of RSS). Engine form (Platen): by default the engine's sources
 * (bundled with this script, or imported through tsx). `--bundle` loads the shipped form instead:
 * dist/engine/engine.cjs with its V8 code cache (`npm run build:engine`; src/engine-bundle.ts),
 * compiled by V8 from the bundle's text with no module loader in between. `--no-code-cache`
 * loads the bundle without its cache. `engineForm` and `codeCache` (accepted, absent, rejected,
 * other-bundle) in the output say which ran.
 *
 * First render: by default the first render right after the engine's module is loaded (its
 * `firstRenderMs`). With `--warm-up` (Platen only), the engine's `warmUp()` runs after the load,
 * timed apart (`warmUpMs`: what a render thread does before it takes work), and `firstRenderMs`
 * is the first render after it. With `--thread-ready`, what a service render thread does before
 * it takes work runs instead (`ready()` of src/render/task.ts: `warmUp()`, then a small warm-up
 * document), timed as `warmUpMs`. `warmedUp` says which the line reports: false, "warmUp()" or
 * "thread ready()".
 * `firstRenderCpuMs` is that render's CPU time (all threads: GC and V8's background compilers
 * too), `firstRenderThreadCpuMs` the main thread's alone (Linux: /proc/thread-self/schedstat),
 * the nearest to the wall time of an idle machine when the machine is busy.
 *
 * Memory: Platen runs under the V8 heap settings of the service's render threads
 * (src/render/heap.ts: old generation 512 MB, young generation 24 MB, no allocation-site
 * pretenuring), given as Node flags: the script starts itself again with them (`v8Flags` in the
 * output; `--node-heap` keeps Node's defaults instead). The line gives process.memoryUsage() after
 * the first render and at the end (`memoryAfterFirst`, `memoryEnd`: rss, heapTotal, heapUsed,
 * external, arrayBuffers, MB).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RENDER_MEMORY_MB, DEFAULT_RENDER_YOUNG_MB, renderNodeFlags } from '../src/render/heap.ts';
import { threadCpuMs } from './thread-cpu.ts';
import { variedInvoiceData } from './varied-invoice.ts';
import { variedReportData } from './varied-report.ts';

const arg = (name: string, fallback?: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const engineName = arg('engine') as 'platen' | 'typst' | 'pdfmake';
const docName = arg('doc') as 'invoice' | 'report';
const dataMode = arg('data', 'varied') as 'varied' | 'repeated';
const seconds = Number(arg('seconds', '4'));
const warmup = Number(arg('warmup', '1'));
const renders = arg('renders') === undefined ? undefined : Number(arg('renders'));
const samples = Number(arg('samples', '20'));
const warmUpFirst = process.argv.includes('--warm-up') ? 'warmUp()' : process.argv.includes('--thread-ready') ? 'thread ready()' : false;
if (!['platen', 'typst', 'pdfmake'].includes(engineName) || !['invoice', 'report'].includes(docName)) {
  console.error('usage: engine-child.ts --engine platen|typst|pdfmake --doc invoice|report [--data varied|repeated] [--seconds S] [--warmup S] [--renders N]');
  process.exit(2);
}

// Platen as in a render thread: this process started again with the thread's heap as Node flags.
const v8Flags = engineName === 'platen' && !process.argv.includes('--node-heap') ? renderNodeFlags({ memoryMb: DEFAULT_RENDER_MEMORY_MB, youngMb: DEFAULT_RENDER_YOUNG_MB }) : [];
if (v8Flags.some((flag) => !process.execArgv.includes(flag))) {
  const child = spawnSync(process.execPath, [...v8Flags, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const root = new URL('../', import.meta.url);
const now = new Date('2026-01-15T12:00:00Z');
const untagged = process.argv.includes('--untagged');
const template = { ...JSON.parse(readFileSync(new URL(`examples/${docName}/template.json`, root), 'utf8')), ...(untagged ? { tagged: false } : {}) };
const baseData = JSON.parse(readFileSync(new URL(`examples/${docName}/data.json`, root), 'utf8'));
const dataFor = (serial: number): unknown =>
  dataMode === 'repeated' ? baseData : docName === 'invoice' ? variedInvoiceData(baseData, serial) : variedReportData(baseData, serial);

/** Makes an engine's input for one render (untimed), then renders it (timed); returns pages. */
interface Engine {
  prepare(data: unknown): unknown;
  render(input: unknown): Promise<number> | number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const round = (n: number) => Math.round(n * 100) / 100;

const loadStart = performance.now();
let engine: Engine;
let stats: (() => unknown) | undefined;
let warmUpMs: number | null = null;
/** --bundle: whether the engine bundle's code cache was used (src/engine-bundle.ts's CacheUse). */
let codeCache: string | null = null;
const bundled = process.argv.includes('--bundle');
/** Run as TypeScript through tsx (its loader thread in this process's RSS), not as bench/driver.ts's bundle. */
const UNDER_TSX = /\.ts$/.test(process.argv[1] ?? '');
if (bundled && engineName !== 'platen') throw new Error('--bundle: Platen only');
if (warmUpFirst && engineName !== 'platen') throw new Error('--warm-up and --thread-ready: Platen only');
if (engineName === 'platen') {
  let platen: typeof import('../engine/index.ts');
  if (bundled) {
    if (warmUpFirst === 'thread ready()') throw new Error('--thread-ready runs src/render/task.ts, which imports the engine from its sources: not with --bundle');
    const { loadEngineBundle } = await import('../src/engine-bundle.ts');
    const loaded = loadEngineBundle(undefined, process.argv.includes('--no-code-cache') ? null : undefined);
    platen = loaded.engine;
    codeCache = loaded.cache;
  } else platen = await import('../engine/index.ts');
  stats = platen.cacheStats;
  const v = platen.validateTemplate(template);
  if (!v.ok) throw new Error(`examples/${docName} is invalid`);
  if (warmUpFirst) {
    const start = performance.now();
    if (warmUpFirst === 'warmUp()') await platen.warmUp();
    else await (await import('../src/render/task.ts')).ready();
    warmUpMs = performance.now() - start;
  }
  engine = {
    prepare: (data) => data,
    render: async (data) => (await platen.renderPdf(v.template, data, { now })).pages,
  };
} else if (engineName === 'typst') {
  const { NodeCompiler } = await import('@myriaddreamin/typst-ts-node-compiler');
  const { encodeCode } = await import('../engine/layout/codes.ts');
  const workspace = fileURLToPath(new URL('bench/typst/', root));
  const compiler = NodeCompiler.create({ workspace, fontArgs: [{ fontPaths: [fileURLToPath(new URL('fonts/', root))] }] });
  const mainFilePath = `${workspace}${docName}.typ`;
  // The invoice's logo and QR code: Typst reads the PNG from a file and draws the QR code's
  // modules as Platen does (the payment link is the same in every render, as are the caches').
  const fixed: Record<string, string> = {};
  if (docName === 'invoice') {
    compiler.mapShadow(`${workspace}logo.png`, Buffer.from(String(baseData.logo).split(',')[1], 'base64'));
    fixed.qr = JSON.stringify(encodeCode('qrcode', baseData.payment.link, { eclevel: 'M' }, 'qrcode'));
  }
  let count = 0;
  engine = {
    prepare: (data) => ({ ...fixed, data: JSON.stringify(data) }),
    render: (inputs) => {
      const compiled = compiler.compile({ mainFilePath, inputs: inputs as Record<string, string> });
      if (!compiled.result) throw new Error(`typst: ${JSON.stringify(compiled.takeDiagnostics()?.shortDiagnostics)}`);
      const pdf = compiler.pdf(compiled.result);
      // As Typst's own CLI does between compilations: drop memoized results not used lately.
      if (++count % 10 === 0) compiler.evictCache(10);
      return (pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length;
    },
  };
} else {
  const require = createRequire(import.meta.url);
  const pdfmake = require('pdfmake');
  const { pdfmakeFonts, toPdfmake } = await import('./pdfmake-doc.ts');
  const platen = await import('../engine/index.ts');
  const v = platen.validateTemplate(template);
  if (!v.ok) throw new Error(`examples/${docName} is invalid`);
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy?.(() => true);
  pdfmake.addFonts(pdfmakeFonts());
  engine = {
    prepare: (data) => toPdfmake(v.template, data, now)(),
    render: async (def) => {
      const pdf: Buffer = await pdfmake.createPdf(def).getBuffer();
      return (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
    },
  };
}
const loadMs = performance.now() - loadStart - (warmUpMs ?? 0);

let serial = 0;
let pages = 0;
/** CPU time (user + system, all of the process's threads) spent inside render calls, in ms. */
let cpuMs = 0;
async function timed(): Promise<number> {
  const input = engine.prepare(dataFor(++serial));
  const cpu = process.cpuUsage();
  const start = performance.now();
  pages = await engine.render(input);
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  cpuMs += (used.user + used.system) / 1000;
  return elapsed;
}

/** Runs `work` under the V8 CPU profiler when `file` is given, writing the profile there. */
async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 1000) });
  await session.post('Profiler.start');
  const result = await work();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  return result;
}

const threadBefore = threadCpuMs();
const firstRenderMs = await profiled(arg('profile-first'), timed);
const firstRenderCpuMs = cpuMs;
const threadAfter = threadCpuMs();
/** process.memoryUsage() in MB. */
const memory = () => Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, mb(v)]));
const memoryAfterFirst = memory();
const rssAfterFirst = process.memoryUsage().rss;

const warmEnd = performance.now() + warmup * 1000;
while (performance.now() < warmEnd) await timed();

const times: number[] = [];
const rss: number[] = [];
cpuMs = 0;
await profiled(arg('profile'), async () => {
  if (renders !== undefined) {
    const every = Math.max(1, Math.floor(renders / samples));
    for (let i = 0; i < renders; i++) {
      times.push(await timed());
      if ((i + 1) % every === 0) rss.push(mb(process.memoryUsage().rss));
    }
  } else {
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end || times.length < 5) times.push(await timed());
  }
});
const total = times.reduce((a, b) => a + b, 0);
const sorted = [...times].sort((a, b) => a - b);

console.log(
  JSON.stringify({
    engine: engineName,
    document: docName,
    data: dataMode,
    tagged: !untagged,
    pages,
    renders: times.length,
    docsPerSecond: round((times.length * 1000) / total),
    meanMs: round(total / times.length),
    p50Ms: round(sorted[Math.floor(sorted.length / 2)]!),
    // On a loaded machine the wall time includes waiting for a core; the CPU time less so.
    cpuMsPerRender: round(cpuMs / times.length),
    engineForm: engineName !== 'platen' ? null : bundled ? 'bundle' : UNDER_TSX ? 'sources (tsx)' : 'sources (bundled with this script: bench/driver.ts)',
    codeCache,
    loadMs: round(loadMs),
    warmedUp: warmUpFirst,
    warmUpMs: warmUpMs === null ? null : round(warmUpMs),
    firstRenderMs: round(firstRenderMs),
    firstRenderCpuMs: round(firstRenderCpuMs),
    firstRenderThreadCpuMs: threadBefore === null || threadAfter === null ? null : round(threadAfter - threadBefore),
    rssAfterFirstMB: mb(rssAfterFirst),
    rssSamplesMB: rss,
    rssEndMB: mb(process.memoryUsage().rss),
    maxRssMB: Math.round(process.resourceUsage().maxRSS / 102.4) / 10,
    v8Flags,
    memoryAfterFirst,
    memoryEnd: memory(),
    caches: stats?.(),
  }),
);
