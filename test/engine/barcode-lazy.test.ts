/**
 * bwip-js (every symbology but QR codes) is loaded when a template has a barcode, not with the
 * engine: a process that renders only QR codes never imports it (about 3 MB of heap and 6 MB of
 * RSS saved). Checked in child processes whose module loader refuses to import bwip-js.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('helpers/barcode-child.ts', import.meta.url));
// An ESM resolve hook that fails any import of bwip-js.
const refuse = `data:text/javascript,${encodeURIComponent('export async function resolve(s, c, next) { if (s === "bwip-js") throw new Error("bwip-js was imported"); return next(s, c); }')}`;
const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(refuse)});`)}`;

function run(what: string, refuseBwip: boolean): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ...(refuseBwip ? ['--import', register] : []), child, what], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr };
}

test('rendering the invoice (a QR code) never imports bwip-js', () => {
  const r = run('invoice', true);
  assert.equal(r.status, 0, r.err);
  assert.equal(r.out, '1');
});

test('a template with a barcode imports bwip-js before its layout (refused here: the render fails)', () => {
  const r = run('barcode', true);
  assert.notEqual(r.status, 0);
  assert.match(r.err, /bwip-js was imported/);
});

test('a barcode renders in a fresh process, through renderPdf and through the layout alone', () => {
  const rendered = run('barcode', false);
  assert.equal(rendered.status, 0, rendered.err);
  assert.equal(rendered.out, '1');
  const laid = run('layout', false);
  assert.equal(laid.status, 0, laid.err);
  assert.equal(laid.out, '1');
});
