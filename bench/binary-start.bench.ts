/**
 * Cold start of the single binary: dist/platen (built if stale) copied into an empty folder, time
 * from spawn to the first 200 from GET /healthz (polled every 5 ms), with a fresh data dir each
 * time: once with an empty cache (the runtime folder is extracted on that start), then `--runs`
 * times with the runtime folder already there. Prints the size and the times; writes nothing.
 *   npm run bench:binary [-- --runs 5]
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const arg = process.argv.indexOf('--runs');
const runs = arg > 0 ? Number(process.argv[arg + 1]) : 5;

execFileSync(process.execPath, [join(root, 'scripts/build-binary.mjs'), '--if-stale'], { stdio: 'inherit' });
const tmp = mkdtempSync(join(tmpdir(), 'platen-start-'));
const binary = join(tmp, 'platen');
copyFileSync(join(root, 'dist/platen'), binary);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Milliseconds from spawn to the first healthy /healthz. */
async function coldStart(n: number): Promise<number> {
  const cwd = join(tmp, `run-${n}`);
  mkdirSync(cwd);
  const port = await freePort();
  const started = performance.now();
  const child = spawn(binary, ['serve'], {
    cwd,
    stdio: 'ignore',
    env: { PATH: process.env.PATH, HOME: tmp, XDG_CACHE_HOME: join(tmp, 'cache'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`platen serve exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (ok) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error('no healthy /healthz within 30 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

try {
  const first = await coldStart(0);
  const warm: number[] = [];
  for (let i = 1; i <= runs; i++) warm.push(await coldStart(i));
  warm.sort((a, b) => a - b);
  const median = warm[Math.floor(warm.length / 2)]!;
  console.log(`dist/platen: ${(statSync(binary).size / 1024 / 1024).toFixed(1)} MiB`);
  console.log(`start to first healthy /healthz: ${Math.round(first)} ms with an empty cache (runtime folder extracted), median ${Math.round(median)} ms of ${runs} starts after that (${warm.map(Math.round).join(', ')})`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
