/**
 * Packages only some documents need are loaded when a document needs them, not with the engine:
 * bwip-js (every symbology but QR codes; about 3 MB of heap and 6 MB of RSS) when a template has
 * a barcode, svg-to-pdfkit (about 3 MB of RSS) when a page has an SVG image. Checked in child
 * processes whose module loader refuses to import them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('helpers/lazy-child.ts', import.meta.url));
// An ESM resolve hook that fails any import of bwip-js or svg-to-pdfkit.
const refuse = `data:text/javascript,${encodeURIComponent('export async function resolve(s, c, next) { if (s === "bwip-js" || s === "svg-to-pdfkit") throw new Error(s + " was imported"); return next(s, c); }')}`;
const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(refuse)});`)}`;

function run(what: string, refuseThem: boolean): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ...(refuseThem ? ['--import', register] : []), child, what], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr };
}

test('rendering the invoice (a QR code, a PNG logo) imports neither bwip-js nor svg-to-pdfkit', () => {
  const r = run('invoice', true);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, '1');
});

test('a template with a barcode imports bwip-js before its layout (refused here: the render fails)', () => {
  const r = run('barcode', true);
  assert.notEqual(r.status, 0);
  assert.match(r.err, /bwip-js was imported/);
});

test('a page with an SVG image imports svg-to-pdfkit before painting (refused here: the render fails)', () => {
  const r = run('svg', true);
  assert.notEqual(r.status, 0);
  assert.match(r.err, /svg-to-pdfkit was imported/);
});

test('a barcode and an SVG image render in a fresh process; a barcode through the layout alone too', () => {
  for (const what of ['barcode', 'svg', 'layout']) {
    const r = run(what, false);
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out, '1', what);
  }
});
