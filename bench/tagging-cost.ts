/**
 * What tagging costs: a document rendered tagged (the default) and with `"tagged": false`, each
 * side in a worker thread of its own with a render thread's heap (src/render/heap.ts: its
 * resource limits and V8 flags), taking turns one render at a time, new data every render
 * (bench/varied-invoice.ts, bench/varied-report.ts). Prints, per side, the wall time, the render
 * thread's CPU time (Linux: /proc/thread-self/schedstat) and the whole process's CPU time (V8's
 * helper threads do much of the garbage collection) per render — median, mean, fastest tenth —
 * the median of the per-round ratios, and the file sizes.
 *   node --import tsx bench/tagging-cost.ts [report|invoice] [rounds]
 * Defaults: report, 60 rounds (invoice: 600).
 *
 * Why threads: on a shared 2-core machine one run of a few seconds differs from the next by
 * ±10-40 %, so two processes measured one after the other compare badly; renders that take turns
 * see the same machine. Each side keeps a heap of its own, so neither pays for the other's
 * garbage (in one heap, a tagged render's promoted objects set off mark-compacts that land on the
 * untagged render after it). The order within a round alternates.
 */
import { readFileSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { threadCpuMs } from './thread-cpu.ts';
import { DEFAULT_RENDER_MEMORY_MB, DEFAULT_RENDER_YOUNG_MB, RENDER_V8_FLAGS, renderResourceLimits } from '../src/render/heap.ts';

type Side = 'tagged' | 'untagged';
interface Measured {
  wallMs: number;
  cpuMs: number;
  bytes: number;
}

if (!isMainThread) {
  // A render thread: renders the document on each message, answers with what it measured.
  const { doc, side } = workerData as { doc: 'report' | 'invoice'; side: Side };
  const { renderPdf } = await import('../engine/index.ts');
  const { variedInvoiceData } = await import('./varied-invoice.ts');
  const { variedReportData } = await import('./varied-report.ts');
  const root = new URL('../', import.meta.url);
  const template = JSON.parse(readFileSync(new URL(`examples/${doc}/template.json`, root), 'utf8'));
  if (side === 'untagged') template.tagged = false;
  const base = JSON.parse(readFileSync(new URL(`examples/${doc}/data.json`, root), 'utf8'));
  const vary = doc === 'invoice' ? variedInvoiceData : variedReportData;
  const now = new Date('2026-01-15T12:00:00Z');
  parentPort!.on('message', async (serial: number) => {
    const cpu0 = threadCpuMs();
    const t0 = performance.now();
    const { pdf } = await renderPdf(template, vary(base, serial), { now });
    const cpu1 = threadCpuMs();
    // (No thread CPU time outside Linux: NaN, printed as such.)
    const measured: Measured = { wallMs: performance.now() - t0, cpuMs: cpu0 === null || cpu1 === null ? Number.NaN : cpu1 - cpu0, bytes: pdf.length };
    parentPort!.postMessage(measured);
  });
} else {
  const doc = process.argv[2] ?? 'report';
  if (doc !== 'report' && doc !== 'invoice') {
    console.error('usage: tagging-cost.ts [report|invoice] [rounds]');
    process.exit(2);
  }
  const rounds = Number(process.argv[3] ?? (doc === 'report' ? 60 : 600));
  const v8 = await import('node:v8');
  for (const flag of RENDER_V8_FLAGS) v8.setFlagsFromString(flag);
  const heap = { memoryMb: DEFAULT_RENDER_MEMORY_MB, youngMb: Number(process.env.PLATEN_RENDER_YOUNG_MB ?? DEFAULT_RENDER_YOUNG_MB) };
  const workers = Object.fromEntries(
    (['tagged', 'untagged'] as const).map((side) => [
      side,
      // (Worker threads do not inherit tsx's hooks in Node 20: the thread registers them first.)
      new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`, {
        eval: true,
        workerData: { doc, side },
        resourceLimits: renderResourceLimits(heap),
      }),
    ]),
  ) as Record<Side, Worker>;
  for (const w of Object.values(workers)) {
    w.on('error', (err) => {
      console.error(err);
      process.exit(1);
    });
  }
  /** One render on `side`'s thread; `processCpuMs` is the whole process's CPU time over it (GC helper threads too). */
  const render = (side: Side, serial: number) =>
    new Promise<Measured & { processCpuMs: number }>((resolve) => {
      const cpu0 = process.cpuUsage();
      workers[side].once('message', (m: Measured) => {
        const cpu = process.cpuUsage(cpu0);
        resolve({ ...m, processCpuMs: (cpu.user + cpu.system) / 1000 });
      });
      workers[side].postMessage(serial);
    });

  // Warm-up: both sides, so neither pays first-call costs in the measured rounds.
  const warm = doc === 'report' ? 5 : 50;
  for (let i = 0; i < warm; i++) for (const side of ['tagged', 'untagged'] as const) await render(side, 900_000 + i);
  const runs: Record<Side, (Measured & { processCpuMs: number })[]> = { tagged: [], untagged: [] };
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['tagged', 'untagged'] as const) : (['untagged', 'tagged'] as const);
    for (const side of order) runs[side].push(await render(side, i + 1));
  }
  for (const w of Object.values(workers)) await w.terminate();

  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  const median = (a: number[]) => {
    const s = sorted(a);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  const p10 = (a: number[]) => sorted(a)[Math.floor(a.length / 10)];
  const pct = (r: number) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)}%`;
  console.log(`${doc}, ${rounds} rounds, tagged and untagged taking turns, each in a render thread (young generation ${heap.youngMb} MB)`);
  const titles = { wallMs: 'wall', cpuMs: 'render thread CPU', processCpuMs: 'process CPU (GC helper threads too)' };
  for (const what of ['wallMs', 'cpuMs', 'processCpuMs'] as const) {
    const t = runs.tagged.map((m) => m[what]);
    const u = runs.untagged.map((m) => m[what]);
    const ratios = t.map((x, i) => x / u[i]);
    console.log(`${titles[what]}, ms per render:`);
    for (const [name, f] of [['median', median], ['mean', mean], ['fastest tenth', p10]] as const) {
      console.log(`  ${name.padEnd(14)} tagged ${f(t).toFixed(1).padStart(7)}  untagged ${f(u).toFixed(1).padStart(7)}  ${pct(f(t) / f(u))}`);
    }
    console.log(`  median of the per-round ratios ${pct(median(ratios))}`);
  }
  const size = (side: Side) => mean(runs[side].map((m) => m.bytes));
  console.log(`size: tagged ${(size('tagged') / 1024).toFixed(1)} KB, untagged ${(size('untagged') / 1024).toFixed(1)} KB, ${pct(size('tagged') / size('untagged'))}`);
}
