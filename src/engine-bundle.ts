/**
 * The engine as one bundled file with V8's code cache (built by scripts/build-engine.mjs:
 * dist/engine/engine.cjs and engine.cjs.cache), for a fast first render in a fresh process.
 *
 * A render in a fresh process spends much of its time compiling: V8 parses and compiles each
 * function on its first call. The code cache holds the bytecode of every function the build's
 * warm-up renders called, so a process that loads the bundle with it skips that work. The cache
 * is used only when it was written for this very bundle (the build id in the bundle's first line
 * and in the cache's header) and V8 accepts it (same V8 version and flags); otherwise the bundle
 * is compiled as without a cache, which is slower but renders the same PDF.
 *
 *   node --import tsx src/engine-bundle.ts --write-caches <bundle>   (the build's step 2)
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

type EngineModule = typeof import('../engine/index.ts');

/** dist/engine/engine.cjs of this repository (absolute path). */
export const DEFAULT_ENGINE_BUNDLE = fileURLToPath(new URL('../dist/engine/engine.cjs', import.meta.url));

/** First line of a bundle: `// platen-engine <id>`, the id a hash of the rest of the file. */
const ID_LINE = /^\/\/ platen-engine ([0-9a-f]{32})\n/;
/**
 * A cache file: this magic, the bundle's id (32 hex characters), the SHA-256 of the rest (64 hex
 * characters), then V8's cached data. The hash is checked before V8 sees the data: V8 (Node 20)
 * checks its version, flags and the source's length but not its payload's checksum, and crashes
 * the process (SIGSEGV) on a damaged one.
 */
const CACHE_MAGIC = 'platen-engine-cache\n';
const CACHE_HEADER = CACHE_MAGIC.length + 32 + 64;

/**
 * This process's V8 version and flags as V8 stamps a code cache (hex, `<version>-<flags>`): a
 * cache is accepted only under the same version and flags (`--max-old-space-size` too, and
 * flags set at run time with v8.setFlagsFromString), so the build writes one cache per set of
 * flags Platen runs with and a process picks the one with its own key. Read from the header of
 * the cache of a tiny script (V8's SerializedCodeData: version hash at byte 4, flag hash at 12).
 */
export function codeCacheKey(): string {
  const data = new Script('0').createCachedData();
  return `${data.toString('hex', 4, 8)}-${data.toString('hex', 12, 16)}`;
}

/** The code cache of `bundlePath` for this process's V8 version and flags. */
export function engineCachePath(bundlePath: string = DEFAULT_ENGINE_BUNDLE): string {
  return `${bundlePath}.${codeCacheKey()}.cache`;
}

/**
 * How the bundle was compiled: with its cache (`accepted`), or without: no cache file (`absent`),
 * one written for another bundle (`other-bundle`), one whose bytes do not match its hash
 * (`damaged`), or one V8 refused (`rejected`: another V8 version or other flags).
 */
export type CacheUse = 'accepted' | 'absent' | 'other-bundle' | 'damaged' | 'rejected';

export interface LoadedEngine {
  /** The engine's exports (as engine/index.ts's). */
  engine: EngineModule;
  /** The compiled bundle (its createCachedData() gives a cache of every function compiled so far). */
  script: Script;
  /** The bundle's id (from its first line). */
  id: string;
  cache: CacheUse;
}

/** Gives a bundle its id line (the build does this once; the text must not have one yet). */
export function withBundleId(source: string): string {
  const id = createHash('sha256').update(source).digest('hex').slice(0, 32);
  return `// platen-engine ${id}\n${source}`;
}

/**
 * Loads and runs the engine bundle at `bundleFile`, with the code cache at `cachePath`
 * (default: the one for this process's V8 version and flags; null: none) when it is there and
 * was written for this bundle. Throws when the bundle is missing or has no
 * id line (not built by scripts/build-engine.mjs); a missing, foreign or corrupt cache is not an
 * error (`cache` says what happened). Each call runs the bundle again (a new engine with its own
 * caches); V8 keeps what it compiled per process, so a second load of the same bundle in one
 * process compiles nothing and does not look at its cache (`cache` then says `accepted` or
 * `absent` as given, whatever V8 would have said).
 */
export function loadEngineBundle(bundleFile: string = DEFAULT_ENGINE_BUNDLE, cachePath: string | null = engineCachePath(bundleFile)): LoadedEngine {
  const bundlePath = resolve(bundleFile);
  const source = readFileSync(bundlePath, 'utf8');
  const id = ID_LINE.exec(source)?.[1];
  if (!id) throw new Error(`${bundlePath}: not an engine bundle (no id line; build it with scripts/build-engine.mjs)`);
  let cachedData: Buffer | undefined;
  let cache: CacheUse = 'absent';
  if (cachePath !== null) {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(cachePath);
    } catch {
      bytes = undefined;
    }
    if (bytes) {
      if (bytes.length <= CACHE_HEADER || bytes.toString('latin1', 0, CACHE_MAGIC.length) !== CACHE_MAGIC) cache = 'damaged';
      else if (bytes.toString('latin1', CACHE_MAGIC.length, CACHE_MAGIC.length + 32) !== id) cache = 'other-bundle';
      else {
        const payload = bytes.subarray(CACHE_HEADER);
        const hash = createHash('sha256').update(payload).digest('hex');
        if (hash === bytes.toString('latin1', CACHE_MAGIC.length + 32, CACHE_HEADER)) cachedData = payload;
        else cache = 'damaged';
      }
    }
  }
  // Node's CommonJS wrapper, so that the bundle gets its own require, module and __dirname.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundlePath, cachedData });
  if (cachedData) cache = script.cachedDataRejected ? 'rejected' : 'accepted';
  const module = { exports: {} as EngineModule };
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  wrapper(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  return { engine: module.exports, script, id, cache };
}

/**
 * Writes the code cache of a loaded bundle to `cachePath`: the bytecode of its top level and of
 * every function compiled so far (render first, then call this). Written beside and renamed, so a
 * reader never sees half a file.
 */
export function writeEngineCache(loaded: LoadedEngine, cachePath: string): void {
  const data = loaded.script.createCachedData();
  const partial = `${cachePath}.partial`;
  const hash = createHash('sha256').update(data).digest('hex');
  writeFileSync(partial, Buffer.concat([Buffer.from(CACHE_MAGIC + loaded.id + hash, 'latin1'), data]));
  renameSync(partial, cachePath);
}

/**
 * Renders the examples with a loaded engine, so that V8 compiles what a render calls: the invoice
 * and the report, tagged and untagged, as PDF/A-2b too, and warmUp().
 */
export async function exerciseEngine({ engine }: LoadedEngine, root: URL = new URL('../', import.meta.url)): Promise<void> {
  const now = new Date('2026-01-15T12:00:00Z');
  await engine.warmUp();
  for (const name of ['invoice', 'report']) {
    const template = JSON.parse(readFileSync(new URL(`examples/${name}/template.json`, root), 'utf8'));
    const data = JSON.parse(readFileSync(new URL(`examples/${name}/data.json`, root), 'utf8'));
    const checked = engine.validateTemplate(template);
    if (!checked.ok) throw new Error(`examples/${name} is invalid`);
    engine.checkData(template, data);
    await engine.renderPdf(checked.template, data, { now });
    await engine.renderPdf({ ...checked.template, tagged: false }, data, { now });
    if (name === 'invoice') await engine.renderPdf(checked.template, data, { now, pdfVariant: 'pdf/a-2b' });
  }
}

/**
 * The build's step 2 (scripts/build-engine.mjs): gives the bundle its id line, then writes its
 * code cache for each set of V8 flags Platen runs with: none (the CLI), the service's render
 * threads' (src/render/pool.ts sets RENDER_V8_FLAGS at run time) and the bench's
 * (bench/engine-child.ts runs with the render threads' heap as flags). Each in a process of its
 * own, started with those flags, that renders the examples first.
 */
async function writeCaches(bundlePath: string): Promise<void> {
  const source = readFileSync(bundlePath, 'utf8');
  if (!ID_LINE.test(source)) writeFileSync(bundlePath, withBundleId(source));
  const { DEFAULT_RENDER_MEMORY_MB, DEFAULT_RENDER_YOUNG_MB, RENDER_V8_FLAGS, renderNodeFlags } = await import('./render/heap.ts');
  const flagSets = [[], [...RENDER_V8_FLAGS], renderNodeFlags({ memoryMb: DEFAULT_RENDER_MEMORY_MB, youngMb: DEFAULT_RENDER_YOUNG_MB })];
  const { execFileSync } = await import('node:child_process');
  for (const flags of flagSets) {
    execFileSync(process.execPath, [...flags, '--import', 'tsx', fileURLToPath(import.meta.url), '--write-cache', bundlePath], { stdio: 'inherit' });
  }
}

if (process.argv[2] === '--write-caches') await writeCaches(process.argv[3]!);
if (process.argv[2] === '--write-cache') {
  const bundlePath = process.argv[3]!;
  const loaded = loadEngineBundle(bundlePath, null);
  await exerciseEngine(loaded);
  writeEngineCache(loaded, engineCachePath(bundlePath));
}
