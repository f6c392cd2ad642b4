import type { OnLoadResult, Plugin } from 'esbuild';
/** See repository-urls.mjs. */
export function repositoryUrls(root: string, urlOf: (rel: string) => string, special?: (rel: string, path: string) => OnLoadResult | undefined): Plugin;
