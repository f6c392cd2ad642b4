/**
 * Without the canvas library's native addon (an unsupported platform, a build without it), PDFs
 * still render and image output fails with a message that says what to do. The addon is made
 * unloadable in a child process through @napi-rs/canvas's NAPI_RS_NATIVE_LIBRARY_PATH.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers/render.ts';

const SCRIPT = `
const { renderImage, renderPdf, canvasAvailable } = await import('./engine/index.ts');
const pdf = await renderPdf({ content: [{ text: 'x' }] }, {});
let failure = null;
try { await renderImage({ content: [{ text: 'x' }] }, {}); } catch (e) { failure = { code: e.code, message: e.message }; }
console.log(JSON.stringify({ pages: pdf.pages, available: canvasAvailable(), failure }));
`;

test('without the canvas addon: PDFs render, image output is RENDER_ERROR saying it needs @napi-rs/canvas from an npm install', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NODE_OPTIONS: '', NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/skia.node' },
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(out.pages, 1);
  assert.equal(out.available, false);
  assert.equal(out.failure.code, 'RENDER_ERROR');
  assert.match(out.failure.message, /image output needs the @napi-rs\/canvas package/);
  assert.match(out.failure.message, /npm ci/);
});
