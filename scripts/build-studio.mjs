#!/usr/bin/env node
/**
 * `npm run build:studio` (also run by `npm ci`/`npm install` through `prepare`, and by
 * build:binary): bundles the template studio's front end (studio/src, CodeMirror, pdf.js) with
 * esbuild into studio/dist, the static files GET /studio serves, and puts Swagger UI
 * (swagger-ui-dist) beside it for GET /docs. Everything the pages load comes from there: no CDN,
 * no external request.
 *
 *   node scripts/build-studio.mjs              build
 *   node scripts/build-studio.mjs --if-stale   build only when a source is newer than studio/dist
 *
 * Exported for build-binary.mjs and the tests: `buildStudio(outdir?)`, `studioIsStale(outdir?)`.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
export const STUDIO_DIST = join(root, 'studio/dist');
const PDF_WORKER = join(root, 'node_modules/pdfjs-dist/build/pdf.worker.min.mjs');
const SWAGGER_UI = join(root, 'node_modules/swagger-ui-dist');

/** Files whose change makes the bundle stale. */
function sources() {
  const walk = (dir) => readdirSync(join(root, dir), { withFileTypes: true, recursive: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath ?? d.path, d.name));
  return [...walk('studio/src'), join(root, 'studio/index.html'), join(root, 'studio/docs.html'), join(root, 'package-lock.json'), join(root, 'examples/invoice/template.json'), join(root, 'examples/invoice/data.json'), fileURLToPath(import.meta.url)];
}

/** Whether `outdir` is missing or older than a source. */
export function studioIsStale(outdir = STUDIO_DIST) {
  const stamp = join(outdir, 'build.json');
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return sources().some((f) => statSync(f).mtimeMs > built);
}

/**
 * Bundle the studio into `outdir` (emptied first): index.html, studio.js (+ chunks), studio.css,
 * pdf.worker.min.mjs; docs.html, docs.js, docs.css and Swagger UI's bundle and CSS for /docs; and
 * build.json (file list).
 * @returns the files written, relative to `outdir`.
 */
export async function buildStudio(outdir = STUDIO_DIST) {
  // Imported here: without devDependencies (npm ci --omit=dev) the rest of this file still loads.
  const { build } = await import('esbuild');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: { studio: join(root, 'studio/src/main.ts'), docs: join(root, 'studio/src/docs.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    sourcemap: false,
    legalComments: 'eof',
    outdir,
    chunkNames: 'chunk-[hash]',
    loader: { '.json': 'json' },
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'studio/index.html'), join(outdir, 'index.html'));
  copyFileSync(join(root, 'studio/src/studio.css'), join(outdir, 'studio.css'));
  copyFileSync(PDF_WORKER, join(outdir, 'pdf.worker.min.mjs'));
  copyFileSync(join(root, 'studio/docs.html'), join(outdir, 'docs.html'));
  copyFileSync(join(root, 'studio/src/docs.css'), join(outdir, 'docs.css'));
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css']) copyFileSync(join(SWAGGER_UI, file), join(outdir, file));
  const files = readdirSync(outdir).filter((f) => f !== 'build.json').sort();
  writeFileSync(join(outdir, 'build.json'), JSON.stringify({ files }, null, 2) + '\n');
  return [...files, 'build.json'];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--if-stale') && !studioIsStale()) {
    console.log(`${relative(root, STUDIO_DIST)} is up to date`);
  } else if (!existsSync(join(root, 'node_modules/esbuild')) || !existsSync(join(root, 'node_modules/codemirror'))) {
    // An install without devDependencies: the server runs, /studio answers that it is not built.
    console.warn('studio: not built (esbuild and the editor packages are devDependencies); GET /studio stays unavailable');
  } else {
    const started = performance.now();
    const files = await buildStudio();
    console.log(`studio: ${files.length} files in ${relative(root, STUDIO_DIST)} (${Math.round(performance.now() - started)} ms)`);
  }
}
