#!/usr/bin/env node
/**
 * `npm run build:binary`: dist/platen, one Linux executable (a Node.js single executable
 * application) that needs no Node.js, no node_modules and no repository beside it.
 *
 *  1. esbuild bundles the render worker (src/render/task.ts + engine, ESM) and piscina's own worker
 *     entry (CommonJS) as files the binary writes to disk at start: worker threads load files.
 *     The template studio's static files are built into the runtime folder too (build-studio.mjs).
 *  2. Fonts, ICC profiles, migrations, examples, those two bundles, the studio, better-sqlite3's addon, HarfBuzz's wasm files and the
 *     hyphenation patterns (loaded by name at run time) become SEA assets, keyed by their path in the runtime folder, which mirrors the repository
 *     (src/sea/runtime.ts); the folder is named by a hash of their content.
 *  3. esbuild bundles src/sea/main.ts (+ cli, server, db) as CommonJS, the format a SEA main script
 *     needs. In both bundles every `import.meta.url` of our sources becomes
 *     `__platenUrl("<path of that source>")`, the same path inside the runtime folder, so
 *     `new URL('../../fonts/', import.meta.url)` finds the extracted fonts; piscina's `__dirname`
 *     points at its extracted worker entry the same way.
 *  4. `node --experimental-sea-config` writes the blob, postject injects it into a copy of node.
 *
 *   node scripts/build-binary.mjs              build
 *   node scripts/build-binary.mjs --if-stale   build only when an input is newer than dist/platen
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'postject';
import { buildStudio } from './build-studio.mjs';
import { repositoryUrls } from './repository-urls.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const work = join(dist, 'sea');
const generated = join(work, 'runtime');
const output = join(dist, 'platen');
const SQLITE_ADDON = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
/** HarfBuzz as wasm: shaping (engine/text/harfbuzz.ts) and hb-subset (engine/paint/subset.ts). */
const HARFBUZZ_WASM = ['node_modules/harfbuzzjs/dist/harfbuzz.wasm', 'node_modules/harfbuzzjs/dist/harfbuzz-subset.wasm'];
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** Folders copied into the runtime folder as they are. */
const DATA_DIRS = ['fonts', 'icc-profiles', 'db/migrations', 'db/migrations-pg', 'examples'];
/**
 * Packages required by a name computed at run time, which no bundler can follow: their .js files
 * and package.json go into the runtime folder's node_modules (hyphen: engine/text/hyphenate.ts
 * loads `hyphen/<language>` on first use).
 */
const RUNTIME_PACKAGES = ['hyphen'];
/**
 * Image output's canvas library (engine/raster/canvas.ts loads @napi-rs/canvas by name when an
 * image is first rendered): its .js files and the native addon of this machine's platform, as
 * installed by npm. Without them the binary still renders PDFs; image requests then fail with a
 * message saying that image output needs the npm install.
 */
const CANVAS_PACKAGES = existsSync(join(root, 'node_modules/@napi-rs/canvas'))
  ? ['node_modules/@napi-rs/canvas', ...readdirSync(join(root, 'node_modules/@napi-rs')).filter((n) => n.startsWith('canvas-')).map((n) => `node_modules/@napi-rs/${n}`)]
  : [];

/** Files under `dir` (relative to the repository, forward slashes). */
function walk(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => relative(root, join(d.parentPath ?? d.path, d.name)).split(sep).join('/'))
    .sort();
}

/** Everything the binary is made of; --if-stale compares their times with dist/platen's. */
function inputs() {
  return [
    ...['src', 'engine', 'db', 'studio/src', ...DATA_DIRS].flatMap(walk),
    'studio/index.html',
    'studio/docs.html',
    ...RUNTIME_PACKAGES.map((p) => `node_modules/${p}/package.json`),
    ...CANVAS_PACKAGES.map((p) => `${p}/package.json`),
    'scripts/build-binary.mjs',
    'scripts/repository-urls.mjs',
    'package-lock.json',
    SQLITE_ADDON,
    ...HARFBUZZ_WASM,
  ].map((f) => join(root, f)).concat(process.execPath);
}

if (process.argv.includes('--if-stale') && existsSync(output)) {
  const built = statSync(output).mtimeMs;
  const newer = inputs().filter((f) => statSync(f).mtimeMs > built);
  if (newer.length === 0) {
    console.log(`${relative(root, output)} is up to date`);
    process.exit(0);
  }
}
if (process.platform !== 'linux') throw new Error('build:binary builds a Linux executable; run it on Linux');

const started = performance.now();
rmSync(work, { recursive: true, force: true });
mkdirSync(generated, { recursive: true });

/**
 * esbuild plugin: `import.meta.url` of every bundled file -> its path in the runtime folder (of
 * dependencies too: pdfkit's ESM build makes a require() and its own ICC path from it, which
 * Platen never uses: no standard-14 fonts, its own PDF/A output intent).
 */
const runtimePaths = repositoryUrls(
  root,
  (rel) => `__platenUrl(${JSON.stringify(rel)})`,
  (rel, path) => {
    if (rel !== 'node_modules/piscina/dist/index.js') return undefined;
    // piscina starts each thread on its own worker.js beside index.js.
    const text = readFileSync(path, 'utf8');
    const from = "(0, node_path_1.resolve)(__dirname, 'worker.js')";
    if (!text.includes(from)) throw new Error(`piscina changed: ${rel} no longer has ${from}`);
    return { contents: text.replace(from, 'require("node:url").fileURLToPath(__platenUrl("node_modules/piscina/dist/worker.js"))'), loader: 'js' };
  },
);

const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', legalComments: 'none', plugins: [runtimePaths] };

// 1. The render worker, at the path pool.ts gives piscina (`new URL('./worker.mjs', import.meta.url)`).
//    Its own location tells where the runtime folder is; CommonJS packages inside get a real require.
await build({
  ...common,
  entryPoints: [join(root, 'src/render/task.ts')],
  format: 'esm',
  outfile: join(generated, 'src/render/worker.mjs'),
  banner: {
    js: [
      "import { createRequire as __platenRequire } from 'node:module';",
      'const require = __platenRequire(import.meta.url);',
      "const __platenUrl = (path) => new URL(path, new URL('../../', import.meta.url)).href;",
    ].join('\n'),
  },
});
await build({
  ...common,
  entryPoints: [join(root, 'node_modules/piscina/dist/worker.js')],
  format: 'cjs',
  outfile: join(generated, 'node_modules/piscina/dist/worker.js'),
  external: ['@napi-rs/nice'],
});

// The studio, where src/routes/studio.ts looks for it (studio/dist beside src/).
await buildStudio(join(generated, 'studio/dist'));

// 2. Assets: runtime path -> file to read.
const assets = {};
for (const dir of DATA_DIRS) for (const f of walk(dir)) assets[f] = join(root, f);
for (const pkg of RUNTIME_PACKAGES) for (const f of walk(`node_modules/${pkg}`).filter((f) => /(\.js|\/package\.json|\/LICENSE)$/.test(f))) assets[f] = join(root, f);
for (const dir of CANVAS_PACKAGES) for (const f of walk(dir).filter((f) => /(\.js|\.node|\/package\.json|\/LICENSE)$/.test(f))) assets[f] = join(root, f);
assets[SQLITE_ADDON] = join(root, SQLITE_ADDON);
for (const f of HARFBUZZ_WASM) assets[f] = join(root, f);
for (const f of readdirSync(generated, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())) {
  const file = join(f.parentPath ?? f.path, f.name);
  assets[relative(generated, file).split(sep).join('/')] = file;
}
const hash = createHash('sha256');
const files = Object.keys(assets)
  .sort()
  .map((path) => {
    const bytes = readFileSync(assets[path]);
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
    return { path, size: bytes.length };
  });
const manifest = { hash: hash.digest('hex').slice(0, 16), files };

// 3. The main script.
await build({
  ...common,
  entryPoints: [join(root, 'src/sea/main.ts')],
  format: 'cjs',
  outfile: join(work, 'main.cjs'),
  define: { PLATEN_RUNTIME: JSON.stringify(manifest) },
  banner: {
    js: [
      'const __platenUrl = (path) => {',
      "  if (!globalThis.__platenRuntimeDir) throw new Error('platen: runtime folder not ready');",
      '  return require("node:url").pathToFileURL(require("node:path").join(globalThis.__platenRuntimeDir, path)).href;',
      '};',
    ].join('\n'),
  },
});

// 4. Blob and executable (written beside dist/platen, then renamed over it).
const seaConfig = join(work, 'sea-config.json');
const blob = join(work, 'platen.blob');
writeFileSync(seaConfig, JSON.stringify({ main: join(work, 'main.cjs'), output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }, null, 2));
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: ['ignore', 'ignore', 'inherit'] });
const partial = `${output}.partial`;
copyFileSync(process.execPath, partial);
chmodSync(partial, 0o755);
await inject(partial, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
renameSync(partial, output);

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
console.log(
  `${relative(root, output)}: ${mb(statSync(output).size)} (node ${process.version} ${mb(statSync(process.execPath).size)}, ` +
    `main script ${mb(statSync(join(work, 'main.cjs')).size)}, ${files.length} assets ${mb(files.reduce((n, f) => n + f.size, 0))}, runtime ${manifest.hash}) ` +
    `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
