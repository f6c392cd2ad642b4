/**
 * Renders N documents after a fixed warm-up, for instruction counts under callgrind, which are
 * stable on a loaded machine where timings are not. Run it with N = 0 and N = k and subtract:
 * the difference / k is the instructions of one render.
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *     node --import tsx bench/callgrind-renders.ts invoice|report varied|repeated <n> [untagged]
 * Varied data is new in every render (bench/varied-invoice.ts, bench/varied-report.ts); the
 * warm-up's serials differ from the measured ones.
 */
import { readFileSync } from 'node:fs';
import { renderPdf } from '../engine/index.ts';
import { variedInvoiceData } from './varied-invoice.ts';
import { variedReportData } from './varied-report.ts';

const [doc, mode, count, tags] = process.argv.slice(2);
if (!['invoice', 'report'].includes(doc ?? '') || !['varied', 'repeated'].includes(mode ?? '') || !(Number(count) >= 0)) {
  console.error('usage: callgrind-renders.ts invoice|report varied|repeated <n> [untagged]');
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
const warmups = doc === 'invoice' ? 5 : 1;
for (let i = 0; i < warmups; i++) await renderPdf(template, data(200_000 + i), { now });
for (let i = 0; i < Number(count); i++) await renderPdf(template, data(i + 1), { now });
