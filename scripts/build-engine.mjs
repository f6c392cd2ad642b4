#!/usr/bin/env node
/**
 * `npm run build:engine`: dist/engine/engine.cjs, the engine (engine/index.ts and the packages it
 * uses) as one CommonJS file, and dist/engine/engine.cjs.<key>.cache, V8's code caches of it (one
 * per set of V8 flags Platen runs with), for a fast first render in a fresh process
 * (src/engine-bundle.ts loads them).
 *
 *  1. esbuild bundles engine/index.ts as CommonJS. Every `import.meta.url` of a bundled file
 *     becomes the URL of that file in the repository (`__platenUrl("engine/text/fonts.ts")`), so
 *     the fonts, ICC profiles, HarfBuzz's wasm files and the hyphenation patterns (loaded by name)
 *     are found where they are; the bundle needs the repository (and its node_modules) beside it.
 *  2. Child processes (one per set of V8 flags: V8 accepts a cache only under the flags it was
 *     written with) load the bundle through src/engine-bundle.ts without a cache, render the
 *     examples (invoice and report, tagged, untagged and PDF/A), so that V8 compiles every
 *     function a render calls, and write `script.createCachedData()`: the bytecode of the top
 *     level and of every function compiled so far. A process that loads the bundle with that
 *     cache skips parsing and compiling them. The loader uses a cache only if it was written for
 *     this very bundle (an id in both) and V8 accepts it (same V8 version and flags); otherwise
 *     the bundle compiles as without one.
 *
 *   node scripts/build-engine.mjs              build
 *   node scripts/build-engine.mjs --if-stale   build only when an input is newer than the cache
 *   node scripts/build-engine.mjs --out <dir>  build into <dir> instead of dist/engine (the bundle
 *                                              finds the repository by its path from there)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { repositoryUrls } from './repository-urls.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const outAt = process.argv.indexOf('--out');
/** Where the bundle and its caches go (`--out <dir>`, default dist/engine). */
const outDir = outAt >= 0 ? resolve(process.argv[outAt + 1]) : join(root, 'dist/engine');
const bundle = join(outDir, 'engine.cjs');

/** Files under `dir` (absolute). */
const walk = (dir) =>
  readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? d.path, d.name));

const cacheFiles = () => (existsSync(outDir) ? readdirSync(outDir).filter((f) => f.endsWith('.cache')).map((f) => join(outDir, f)) : []);
if (process.argv.includes('--if-stale') && existsSync(bundle) && cacheFiles().length > 0) {
  const built = Math.min(statSync(bundle).mtimeMs, ...cacheFiles().map((f) => statSync(f).mtimeMs));
  const inputs = [...walk('engine'), join(root, 'package-lock.json'), join(root, 'scripts/build-engine.mjs'), join(root, 'scripts/repository-urls.mjs'), join(root, 'src/engine-bundle.ts'), process.execPath];
  if (inputs.every((f) => statSync(f).mtimeMs <= built)) {
    console.log(`${relative(root, bundle)} and its code caches are up to date`);
    process.exit(0);
  }
}

const started = performance.now();
mkdirSync(outDir, { recursive: true });

/** `import.meta.url` of every bundled file -> that file's URL in the repository, found from the bundle's folder. */
const repositoryPaths = repositoryUrls(root, (rel) => `__platenUrl(${JSON.stringify(rel)})`);

const partial = `${bundle}.partial`;
await build({
  entryPoints: [join(root, 'engine/index.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile: partial,
  logLevel: 'warning',
  legalComments: 'none',
  // Optional native addon, loaded by name on first image render (engine/raster/canvas.ts).
  external: ['@napi-rs/canvas'],
  plugins: [repositoryPaths],
  banner: {
    js: `const __platenUrl = (path) => require('node:url').pathToFileURL(require('node:path').join(__dirname, ${JSON.stringify(relative(outDir, root).split(sep).join('/'))}, path)).href;`,
  },
});
renameSync(partial, bundle);

// 2. The code cache, written by a process that has rendered the examples with the bundle.
for (const f of readdirSync(outDir).filter((f) => f.endsWith('.cache'))) rmSync(join(outDir, f));
execFileSync(process.execPath, ['--import', 'tsx', join(root, 'src/engine-bundle.ts'), '--write-caches', bundle], { stdio: ['ignore', 'inherit', 'inherit'], cwd: root });

const kb = (f) => `${Math.round(statSync(f).size / 1024)} KiB`;
const caches = readdirSync(outDir).filter((f) => f.endsWith('.cache'));
console.log(`${relative(root, bundle)}: ${kb(bundle)}, code caches ${caches.map((f) => `${f} ${kb(join(outDir, f))}`).join(', ')}, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
