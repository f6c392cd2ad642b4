/**
 * esbuild plugin: every bundled file's `import.meta.url` becomes an expression for that file's URL
 * in the repository, so a bundle still finds the fonts, ICC profiles, wasm and hyphenation files
 * its sources load by name beside themselves. Used by scripts/build-engine.mjs (the engine bundle),
 * scripts/build-binary.mjs (the single binary) and bench/driver.ts (the bench's child script).
 */
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';

/**
 * @param {string} root the repository's folder (absolute path)
 * @param {(rel: string) => string} urlOf JavaScript source of the URL of the file at `rel` (a
 *   path from `root`, with forward slashes)
 * @param {(rel: string, path: string) => import('esbuild').OnLoadResult | undefined} [special]
 *   asked first for each file: its own contents, or undefined for the rule above
 * @returns {import('esbuild').Plugin}
 */
export function repositoryUrls(root, urlOf, special) {
  return {
    name: 'platen-repository-urls',
    setup(b) {
      b.onLoad({ filter: /\.(ts|mts|js|mjs|cjs)$/ }, (args) => {
        const rel = relative(root, args.path).split(sep).join('/');
        const own = special?.(rel, args.path);
        if (own !== undefined) return own;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        return { contents: text.replaceAll('import.meta.url', urlOf(rel)), loader: /\.m?ts$/.test(rel) ? 'ts' : 'js' };
      });
    },
  };
}
