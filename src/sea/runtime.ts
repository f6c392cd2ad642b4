/**
 * The single binary's runtime folder. dist/platen carries fonts, ICC profiles, migrations,
 * examples, the bundled render worker and better-sqlite3's addon as assets
 * (scripts/build-binary.mjs); on start they are written once into a folder that mirrors the
 * repository's layout, named by the hash of their content, so every `new URL('../../fonts/',
 * import.meta.url)` of the source resolves inside it. A folder is written under a temporary name
 * and renamed into place, so a process never sees a half-written one, and two processes starting
 * at once both end up using the same complete folder.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** What the build embedded: the content hash and every asset (key = path in the runtime folder). */
export interface RuntimeManifest {
  hash: string;
  files: { path: string; size: number }[];
}

/** A folder the runtime folder may go in; `own`: it must belong to this user (it holds an addon that gets loaded). */
export interface RuntimeBase {
  path: string;
  own: boolean;
}

/**
 * Folders the runtime folder may go in, in order: PLATEN_RUNTIME_DIR if set (taken as it is: the
 * operator may provide a read-only one), else $XDG_CACHE_HOME/platen (~/.cache/platen), then a
 * per-user folder in the temporary directory.
 */
export function runtimeBases(env: NodeJS.ProcessEnv = process.env): RuntimeBase[] {
  if (env.PLATEN_RUNTIME_DIR) return [{ path: resolve(env.PLATEN_RUNTIME_DIR), own: false }];
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return [
    { path: join(cache, 'platen'), own: true },
    { path: join(tmpdir(), `platen-${process.getuid?.() ?? 'user'}`), own: true },
  ];
}

/** Whether `dir` holds every file of the manifest with its size. */
function complete(dir: string, manifest: RuntimeManifest): boolean {
  return manifest.files.every((f) => {
    try {
      return statSync(join(dir, f.path)).size === f.size;
    } catch {
      return false;
    }
  });
}

/** Create `base` (owner-only) if needed; refuse one of another user where `own` (another user could have planted files in it). */
function checkBase(base: RuntimeBase): void {
  mkdirSync(base.path, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  if (base.own && uid !== undefined && statSync(base.path).uid !== uid) throw new Error(`${base.path} belongs to another user`);
}

/**
 * The complete runtime folder for `manifest`, extracting the assets first if needed.
 * @param read the bytes of one asset (node:sea's getAsset in the binary).
 * @throws Error when no candidate folder is writable.
 */
export function prepareRuntime(manifest: RuntimeManifest, read: (key: string) => ArrayBuffer, bases = runtimeBases()): string {
  const failures: string[] = [];
  for (const base of bases) {
    const dir = join(base.path, manifest.hash);
    try {
      checkBase(base);
      if (complete(dir, manifest)) return dir;
      const tmp = mkdtempSync(join(base.path, `.${manifest.hash}-`));
      writeFileSync(join(tmp, 'package.json'), '{"type":"commonjs"}\n');
      for (const f of manifest.files) {
        const file = join(tmp, f.path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, new Uint8Array(read(f.path)));
      }
      chmodSync(tmp, 0o755);
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true }); // incomplete: someone deleted files
      try {
        renameSync(tmp, dir);
      } catch (e) {
        // Another process finished first: use its folder.
        rmSync(tmp, { recursive: true, force: true });
        if (!complete(dir, manifest)) throw e;
      }
      return dir;
    } catch (e) {
      failures.push(`${base.path}: ${(e as Error).message}`);
    }
  }
  throw new Error(`cannot write the runtime folder (set PLATEN_RUNTIME_DIR to a writable folder):\n  ${failures.join('\n  ')}`);
}
