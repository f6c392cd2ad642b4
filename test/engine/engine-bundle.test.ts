/**
 * The bundled engine and its V8 code cache (scripts/build-engine.mjs, src/engine-bundle.ts): built
 * into a temporary folder, it renders the same PDF as the engine's sources, with its cache, without
 * one, and with a cache that is damaged (bytes flipped, cut short), written for another bundle or
 * refused by V8 (written under other V8 flags): those fall back to compiling the bundle, and the
 * process does not crash (V8 itself would run a damaged cache and crash).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPdf } from '../../engine/index.ts';
import { codeCacheKey, engineCachePath, loadEngineBundle, type CacheUse } from '../../src/engine-bundle.ts';
import { readPdf } from '../helpers/pdf.ts';

const ROOT = new URL('../../', import.meta.url);
const NOW = new Date('2026-01-15T12:00:00Z');
const template = JSON.parse(readFileSync(new URL('examples/invoice/template.json', ROOT), 'utf8'));
const data = JSON.parse(readFileSync(new URL('examples/invoice/data.json', ROOT), 'utf8'));

let dir = '';
let bundle = '';
let reference: Buffer;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'platen-engine-bundle-'));
  execFileSync(process.execPath, [fileURLToPath(new URL('scripts/build-engine.mjs', ROOT)), '--out', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  bundle = join(dir, 'engine.cjs');
  reference = Buffer.from((await renderPdf(template, data, { now: NOW })).pdf);
});
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Loads the bundle with the cache at `cachePath` in a fresh process (V8 keeps what it compiled per
 * process: a second load of the same bundle here would not look at its cache), checks how the
 * cache was used, renders the invoice; returns the PDF.
 */
function renderWith(cachePath: string | null, expected: CacheUse, bundlePath = bundle): Buffer {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('test/engine/helpers/bundle-child.ts', ROOT)), bundlePath, cachePath ?? '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = JSON.parse(out.trim().split('\n').pop()!) as { cache: CacheUse; pages: number; pdf: string };
  assert.equal(line.cache, expected);
  assert.equal(line.pages, 1);
  return Buffer.from(line.pdf, 'base64');
}

/** The PDF is byte for byte the sources' and reads back as the invoice. */
async function assertInvoice(pdf: Buffer): Promise<void> {
  assert.ok(pdf.equals(reference), 'the same bytes as the engine sources render');
  const read = await readPdf(pdf);
  assert.equal(read.pages.length, 1);
  assert.match(read.pages[0]!.text, /Invoice date/);
  assert.match(read.pages[0]!.text, new RegExp(String(data.number ?? 'INV').replace(/[^\w-]/g, '.')));
}

test('the build writes a code cache for the V8 flags of this process, with the bundle id in it', () => {
  const caches = readdirSync(dir).filter((f) => f.endsWith('.cache'));
  assert.equal(caches.length, 3, 'no flags, the render threads\', the bench\'s');
  assert.ok(caches.includes(`engine.cjs.${codeCacheKey()}.cache`));
  assert.equal(engineCachePath(bundle), join(dir, `engine.cjs.${codeCacheKey()}.cache`));
});

test('with its code cache, the bundle renders the same PDF as the engine sources', async () => {
  await assertInvoice(renderWith(engineCachePath(bundle), 'accepted'));
  // The module's exports are the engine's: validation and errors work through it too.
  const loaded = loadEngineBundle(bundle);
  assert.equal(loaded.engine.validateTemplate({ nope: 1 }).ok, false);
  await assert.rejects(loaded.engine.renderPdf({ body: 'not an array' }, {}), (e: Error) => e instanceof loaded.engine.RenderError);
});

test('without a cache (none given, or no file), the bundle renders the same PDF', async () => {
  await assertInvoice(renderWith(null, 'absent'));
  await assertInvoice(renderWith(join(dir, 'missing.cache'), 'absent'));
});

test('a damaged cache is not given to V8: the bundle compiles without it and renders the same PDF', async () => {
  const good = readFileSync(engineCachePath(bundle));
  const cases: [string, Buffer][] = [
    // Bytes flipped in V8's header, early in its payload, in the middle and at the end.
    ...[130, 200, 4096, Math.floor(good.length / 2), good.length - 10].map((at): [string, Buffer] => {
      const bytes = Buffer.from(good);
      for (let i = at; i < Math.min(at + 16, bytes.length); i++) bytes[i]! ^= 0x5a;
      return [`flipped at ${at}`, bytes];
    }),
    ['cut short', good.subarray(0, Math.floor(good.length / 3))],
    ['empty', Buffer.alloc(0)],
    ['not a cache', Buffer.from('hello')],
  ];
  for (const [what, bytes] of cases) {
    const file = join(dir, 'damaged.cache');
    writeFileSync(file, bytes);
    const loaded = loadEngineBundle(bundle, file);
    assert.equal(loaded.cache, 'damaged', what);
    assert.ok((await loaded.engine.renderPdf(template, data, { now: NOW })).pdf.length > 0, what);
  }
  await assertInvoice(renderWith(join(dir, 'damaged.cache'), 'damaged'));
});

test('a cache of another bundle is not used', async () => {
  const other = join(dir, 'other.cjs');
  // The same engine with one more line: another id, and a cache V8 would take (the same length).
  const source = readFileSync(bundle, 'utf8');
  const [idLine] = source.split('\n', 1);
  writeFileSync(other, source.replace(idLine!, `// platen-engine ${'0'.repeat(32)}`));
  copyFileSync(engineCachePath(bundle), engineCachePath(other));
  await assertInvoice(renderWith(engineCachePath(other), 'other-bundle', other));
});

test('a cache written under other V8 flags is refused by V8, and the bundle still renders', async () => {
  const others = readdirSync(dir).filter((f) => f.endsWith('.cache') && f !== `engine.cjs.${codeCacheKey()}.cache` && f.startsWith('engine.cjs.'));
  assert.ok(others.length > 0);
  for (const other of others) await assertInvoice(renderWith(join(dir, other), 'rejected'));
});

test('a file that is not an engine bundle is refused', () => {
  const file = join(dir, 'plain.cjs');
  writeFileSync(file, 'module.exports = {};\n');
  assert.throws(() => loadEngineBundle(file, null), /not an engine bundle/);
});
