/**
 * What tagging costs: renders a document tagged (the default) and with `"tagged": false`,
 * alternating in one process, new data every render (bench/varied-invoice.ts,
 * bench/varied-report.ts), and prints the CPU time per render (process.cpuUsage, user + system)
 * of each side — median, mean, fastest tenth — the % difference, and the file sizes.
 *   node --import tsx bench/tagging-cost.ts [report|invoice] [rounds]
 * Defaults: report, 30 rounds (invoice: 300). Alternating in one process means both sides see the
 * same machine load and the same JIT state; the order within a round alternates too.
 */
import { readFileSync } from 'node:fs';
import { renderPdf } from '../engine/index.ts';
import { variedInvoiceData } from './varied-invoice.ts';
import { variedReportData } from './varied-report.ts';

const doc = process.argv[2] ?? 'report';
if (doc !== 'report' && doc !== 'invoice') {
  console.error('usage: tagging-cost.ts [report|invoice] [rounds]');
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? (doc === 'report' ? 30 : 300));
const root = new URL('../', import.meta.url);
const tagged = JSON.parse(readFileSync(new URL(`examples/${doc}/template.json`, root), 'utf8'));
const untagged = { ...tagged, tagged: false };
const base = JSON.parse(readFileSync(new URL(`examples/${doc}/data.json`, root), 'utf8'));
const vary = doc === 'invoice' ? variedInvoiceData : variedReportData;
const now = new Date('2026-01-15T12:00:00Z');

/** CPU ms of one render, and its size in bytes. */
async function one(template: unknown, serial: number): Promise<[number, number]> {
  const data = vary(base, serial);
  const t0 = process.cpuUsage();
  const { pdf } = await renderPdf(template as never, data, { now });
  const t = process.cpuUsage(t0);
  return [(t.user + t.system) / 1000, pdf.length];
}

// Warm-up: both sides, so neither pays first-call costs in the measured rounds.
const warm = doc === 'report' ? 3 : 30;
for (let i = 0; i < warm; i++) {
  await one(tagged, 900_000 + i);
  await one(untagged, 900_000 + i);
}
const times = { tagged: [] as number[], untagged: [] as number[] };
const sizes = { tagged: [] as number[], untagged: [] as number[] };
for (let i = 0; i < rounds; i++) {
  const order = i % 2 === 0 ? (['tagged', 'untagged'] as const) : (['untagged', 'tagged'] as const);
  for (const side of order) {
    const [ms, size] = await one(side === 'tagged' ? tagged : untagged, i + 1);
    times[side].push(ms);
    sizes[side].push(size);
  }
}

const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const median = (a: number[]) => {
  const s = sorted(a);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
const p10 = (a: number[]) => sorted(a)[Math.floor(a.length / 10)];
const pct = (t: number, u: number) => `${t >= u ? '+' : ''}${((t / u - 1) * 100).toFixed(1)}%`;
const row = (name: string, f: (a: number[]) => number) => {
  const t = f(times.tagged);
  const u = f(times.untagged);
  console.log(`${name.padEnd(14)} tagged ${t.toFixed(1)} ms  untagged ${u.toFixed(1)} ms  ${pct(t, u)}`);
};
// The per-round ratio: each tagged render against the untagged one of the same round.
const ratios = times.tagged.map((t, i) => t / times.untagged[i]);
console.log(`${doc}, ${rounds} rounds (tagged and untagged alternating), CPU ms per render`);
row('median', median);
row('mean', mean);
row('fastest tenth', p10);
console.log(`median of per-round ratios ${pct(median(ratios), 1)}`);
console.log(`size tagged ${(mean(sizes.tagged) / 1024).toFixed(1)} KB  untagged ${(mean(sizes.untagged) / 1024).toFixed(1)} KB  ${pct(mean(sizes.tagged), mean(sizes.untagged))}`);
