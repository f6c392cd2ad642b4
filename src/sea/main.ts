/**
 * Entry of the single binary dist/platen (scripts/build-binary.mjs bundles it as the Node single
 * executable application's main script). It writes the embedded assets into the runtime folder
 * (src/sea/runtime.ts), points `import.meta.url` of every bundled source file into that folder,
 * loads the better-sqlite3 addon from it, then runs the command line (src/cli.ts) as usual.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getAsset } from 'node:sea';
import { prepareRuntime, type RuntimeManifest } from './runtime.ts';

/** Set by the build (esbuild `define`). */
declare const PLATEN_RUNTIME: RuntimeManifest;
/** Where the build's `__platenUrl(path)` (the rewritten `import.meta.url`) resolves paths. */
declare global {
  var __platenRuntimeDir: string | undefined;
}

async function start(): Promise<void> {
  const dir = prepareRuntime(PLATEN_RUNTIME, (key) => getAsset(key));
  globalThis.__platenRuntimeDir = dir;
  // The main script's own require() only knows built-in modules; a file-based one loads the addon.
  const addon = createRequire(join(dir, 'package.json'))(join(dir, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')) as object;
  // Imported only now: their top-level code resolves paths into the runtime folder.
  const { useSqliteAddon } = await import('../../db/open.ts');
  useSqliteAddon(addon);
  await import('../cli.ts');
}

start().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
