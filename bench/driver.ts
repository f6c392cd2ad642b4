/**
 * bench/engine-child.ts as plain JavaScript, so that each engine's process is measured without a
 * TypeScript loader. Run through tsx, a process also carries tsx's loader thread (a V8 isolate of
 * its own: 40-50 MB of RSS before any engine is loaded), which is neither Platen's, Typst's nor
 * pdfmake's, and which the single binary does not have.
 *
 * esbuild bundles the script with the TypeScript it imports (Platen's engine sources included),
 * leaving the npm packages to Node's resolver, and writes each bundled file's `import.meta.url`
 * as that file's URL in the repository, so the fonts, ICC profiles, wasm and hyphenation files
 * are found where they are. The output, dist/bench/engine-child.mjs, is made again on each call.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { repositoryUrls } from '../scripts/repository-urls.mjs';

const root = new URL('../', import.meta.url);

/** The driver's path (dist/bench/engine-child.mjs), freshly built. @throws esbuild's errors. */
export async function buildEngineChild(): Promise<string> {
  const outfile = fileURLToPath(new URL('dist/bench/engine-child.mjs', root));
  await build({
    entryPoints: [fileURLToPath(new URL('bench/engine-child.ts', root))],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    outfile,
    packages: 'external',
    logLevel: 'warning',
    // Absolute file URLs: the driver runs where it is built, beside the repository.
    plugins: [repositoryUrls(fileURLToPath(root), (rel) => JSON.stringify(new URL(rel, root).href))],
  });
  return outfile;
}
