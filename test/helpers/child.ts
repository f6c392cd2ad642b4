/**
 * Child processes for tests: output captured, lines awaited with a deadline, and every child
 * still running killed (by its own pid) when the test file ends.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { waitFor } from './wait.ts';

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Everything written to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolve with the first stdout line matching `re` (bounded by `timeoutMs`). */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolve with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Send `signal` and wait for the exit (SIGKILL after `graceMs` if still alive). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<Child>();

export function startChild(command: string, args: string[], options: SpawnOptions = {}): Child {
  const proc = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => {
      done = true;
      running.delete(child);
      resolve({ code, signal });
    });
    proc.once('error', () => {
      done = true;
      running.delete(child);
      resolve({ code: null, signal: null });
    });
  });
  const child: Child = {
    proc,
    pid: proc.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    waitForLine(re, timeoutMs = 30_000) {
      return waitFor(
        `a stdout line matching ${re} from ${command} ${args.join(' ')} (stdout so far: ${JSON.stringify(out.slice(-500))}, stderr: ${JSON.stringify(err.slice(-500))})`,
        () => {
          const line = out.split('\n').find((l) => re.test(l));
          if (line !== undefined) return line;
          if (done) throw new Error(`process ended: ${err.slice(-500)}`);
          return undefined;
        },
        timeoutMs,
      );
    },
    exited,
    async stop(signal = 'SIGTERM', graceMs = 5000) {
      if (!done) proc.kill(signal);
      const timer = setTimeout(() => {
        if (!done) proc.kill('SIGKILL');
      }, graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  running.add(child);
  return child;
}

/** Kill (SIGKILL) every child started through startChild that is still running. For after() hooks. */
export async function killAllChildren(): Promise<void> {
  const all = [...running];
  for (const c of all) c.proc.kill('SIGKILL');
  await Promise.all(all.map((c) => c.exited));
}

/** process.env without Platen's own settings (PLATEN_*, PORT, HOST): a child server is configured only by what its test gives it. */
export function envWithoutPlaten(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PLATEN_') && k !== 'PORT' && k !== 'HOST') env[k] = v;
  return env;
}
