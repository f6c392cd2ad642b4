/**
 * A fresh process's first invoice render, for instruction counts under callgrind (stable on a
 * loaded machine where timings are not): loads the engine (its sources through tsx, or the bundle
 * with or without its code cache: src/engine-bundle.ts), validates the template, optionally runs
 * warmUp(), then renders the invoice once (`1`) or not (`0`). Run both and subtract the main
 * thread's counts (`--separate-threads=yes`: the file ending in -01): the difference is the first
 * render's instructions on the thread that waits for it (V8's background compilers and GC helpers
 * run on other threads).
 *
 *   valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=/tmp/cg.%p \
 *     node --import tsx bench/callgrind-first.ts sources|bundle|bundle-no-cache 0|1 [warm-up]
 *   callgrind_annotate /tmp/cg.<pid>-01 | head   (or grep '^totals:' /tmp/cg.<pid>-01)
 */
import { readFileSync } from 'node:fs';

const [form, renderArg, warm] = process.argv.slice(2);
if (!['sources', 'bundle', 'bundle-no-cache'].includes(form ?? '') || !['0', '1'].includes(renderArg ?? '')) {
  console.error('usage: callgrind-first.ts sources|bundle|bundle-no-cache 0|1 [warm-up]');
  process.exit(2);
}
const root = new URL('../', import.meta.url);
const template = JSON.parse(readFileSync(new URL('examples/invoice/template.json', root), 'utf8'));
const data = JSON.parse(readFileSync(new URL('examples/invoice/data.json', root), 'utf8'));
let engine: typeof import('../engine/index.ts');
if (form === 'sources') engine = await import('../engine/index.ts');
else {
  const { loadEngineBundle } = await import('../src/engine-bundle.ts');
  const loaded = loadEngineBundle(undefined, form === 'bundle' ? undefined : null);
  if (form === 'bundle' && loaded.cache !== 'accepted') throw new Error(`code cache ${loaded.cache}: run npm run build:engine`);
  engine = loaded.engine;
}
const checked = engine.validateTemplate(template);
if (!checked.ok) throw new Error('examples/invoice is invalid');
if (warm === 'warm-up') await engine.warmUp();
if (renderArg === '1') await engine.renderPdf(checked.template, data, { now: new Date('2026-01-15T12:00:00Z') });
