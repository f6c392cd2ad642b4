/**
 * Renders N documents after a fixed warm-up (5 invoices or 1 report; `--warmups N`), for instruction counts under callgrind, which are
 * stable on a loaded machine where timings are not. Run it with N = 0 and N = k and subtract:
 * the difference / k is the instructions of one render.
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     node --import tsx bench/callgrind-renders.ts invoice|report varied|repeated <n> [untagged]
 * Varied data is new in every render (bench/varied-invoice.ts, bench/varied-report.ts); the
 * warm-up's serials differ from the measured ones.
 *
 * `--section` counts the measured renders alone, in one process (steadier than subtracting two
 * processes, each of which collects garbage and compiles on its own schedule): start valgrind
 * with instrumentation off, and the script switches it on after the warm-up and dumps the counts
 * after the last render (callgrind_control, which valgrind answers while the event loop ticks):
 *   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p \
 *     node --single-threaded --max-semi-space-size=8 --no-allocation-site-pretenuring \
 *     --import tsx bench/callgrind-renders.ts report varied 5 [untagged] --section [--warmups 2]
 *   grep '^summary:' /tmp/cg.<pid>.1     (the dump: instructions of the 5 renders)
 * (`--single-threaded` keeps V8's garbage collection and compilation on the counted thread; the
 * heap flags are a render thread's, src/render/heap.ts.)
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { renderPdf } from '../engine/index.ts';
import { variedInvoiceData } from './varied-invoice.ts';
import { variedReportData } from './varied-report.ts';

const section = process.argv.includes('--section');
const warmupsAt = process.argv.indexOf('--warmups');
const warmupsArg = warmupsAt >= 0 ? Number(process.argv[warmupsAt + 1]) : undefined;
const [doc, mode, count, tags] = process.argv.slice(2).filter((a, i, all) => a !== '--section' && a !== '--warmups' && all[i - 1] !== '--warmups');
if (!['invoice', 'report'].includes(doc ?? '') || !['varied', 'repeated'].includes(mode ?? '') || !(Number(count) >= 0)) {
  console.error('usage: callgrind-renders.ts invoice|report varied|repeated <n> [untagged] [--section] [--warmups N]');
  process.exit(2);
}
const root = new URL('../', import.meta.url);
const template = JSON.parse(readFileSync(new URL(`examples/${doc}/template.json`, root), 'utf8'));
// `untagged`: the same document without structure tree and marked content (what tagging costs).
if (tags === 'untagged') template.tagged = false;
const base = JSON.parse(readFileSync(new URL(`examples/${doc}/data.json`, root), 'utf8'));
const vary = doc === 'invoice' ? variedInvoiceData : variedReportData;
const data = (serial: number) => (mode === 'repeated' ? base : vary(base, serial));
const now = new Date('2026-01-15T12:00:00Z');
const warmups = warmupsArg ?? (doc === 'invoice' ? 5 : 1);
for (let i = 0; i < warmups; i++) await renderPdf(template, data(200_000 + i), { now });
/** Sends a command to the callgrind this process runs under; a timer keeps the loop ticking so it is answered. */
async function callgrind(option: string): Promise<void> {
  const tick = setInterval(() => {}, 10);
  try {
    await promisify(execFile)('callgrind_control', [option, String(process.pid)]);
  } finally {
    clearInterval(tick);
  }
}
if (section) await callgrind('--instr=on');
for (let i = 0; i < Number(count); i++) await renderPdf(template, data(i + 1), { now });
if (section) await callgrind('--dump');
