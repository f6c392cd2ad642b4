/**
 * Fairness between teams: the invoice latency one team sees (sequential POST /v1/pdf/create, one
 * connection, the example invoice, binary export) alone, then while another team keeps two slow
 * renders in flight (a 100-page document of words that never repeat, several seconds each). A real
 * server in a child process (`platen serve` through tsx, render threads = cores unless --threads),
 * run twice: with the default per-team share (PLATEN_RENDER_TEAM_THREADS = threads - 1) and with
 * no share limit (= threads), to show what the policy buys. Goal: the victim's p99 with the slow
 * renders under 3x its p99 alone. Prints a table; merges the figures into bench/results.json as
 * `fairness`.
 *   npm run bench:fairness [-- --seconds 15] [-- --threads 2] [-- --paragraphs 400]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SLOW_DEFINITION, slowDocumentData } from '../test/helpers/slow-document.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const argValue = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = argValue('--seconds', 15);
const threads = argValue('--threads', os.availableParallelism());
const paragraphs = argValue('--paragraphs', 400);
const HOSTILE_IN_FLIGHT = 2;
const resultsFile = join(root, 'bench/results.json');
const round = (n: number) => Math.round(n * 100) / 100;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The value at quantile `q` (0..1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

const dataDir = mkdtempSync(join(os.tmpdir(), 'platen-fairness-'));
const baseEnv = { ...process.env, PLATEN_DATA_DIR: dataDir, PLATEN_SEED_DEMO: 'false', HOST: '127.0.0.1', PLATEN_RATE_LIMIT: '1000000', PLATEN_RENDER_THREADS: String(threads) };
const cli = (args: string[]) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli.ts'), ...args], { cwd: root, env: baseEnv, encoding: 'utf8' }).trim());

/**
 * The server's own view of team `team`'s POST /v1/pdf/create requests between `from` and `to`
 * (epoch ms), from its request log: p50/p99 of the whole request and of its time in the render pool.
 */
function serverView(logFile: string, team: string, from: number, to: number) {
  const total: number[] = [];
  const pool: number[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"msg":"request"') || !line.endsWith('}')) continue;
    const e = JSON.parse(line) as { time: number; path: string; team?: string; ms: number; render_ms?: number };
    if (e.path !== '/v1/pdf/create' || e.team !== team || e.time < from || e.time > to || e.render_ms === undefined) continue;
    total.push(e.ms);
    pool.push(e.render_ms);
  }
  return { p50Ms: quantile(total, 0.5), p99Ms: quantile(total, 0.99), renderPoolP50Ms: quantile(pool, 0.5), renderPoolP99Ms: quantile(pool, 0.99) };
}

const logFileOf = (teamThreads: number) => join(dataDir, `server-${teamThreads}.log`);

async function startServer(teamThreads: number): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const logFd = openSync(logFileOf(teamThreads), 'w');
  const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli.ts'), 'serve'], {
    cwd: root,
    env: { ...baseEnv, PORT: String(port), PLATEN_RENDER_TEAM_THREADS: String(teamThreads) },
    stdio: ['ignore', logFd, 'inherit'],
  });
  closeSync(logFd);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`${url}/healthz`).then((r) => r.ok, () => false))) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    if (Date.now() > deadline) throw new Error('the server did not answer /healthz within 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, proc };
}

async function stopServer(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.kill('SIGKILL'); // slow renders may still be running; nothing of this data dir is reused after
  await new Promise((r) => proc.once('exit', r));
}

async function post(url: string, key: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

/** Sequential invoice requests for `ms`; @returns each one's latency, ms. */
async function invoiceLatencies(url: string, key: string, template: string, data: unknown, ms: number): Promise<number[]> {
  const body = { template_id: template, data, export_type: 'binary' };
  const out: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const start = performance.now();
    const res = await post(url, key, '/v1/pdf/create', body);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`invoice answered ${res.status}`);
    out.push(performance.now() - start);
  }
  return out;
}

const victim = cli(['teams', 'create', '--name', 'victim', '--credits', '100000000', '--json']) as { api_key: string; team_id: string };
const hostile = cli(['teams', 'create', '--name', 'hostile', '--credits', '100000000', '--json']) as { api_key: string };
const invoice = JSON.parse(readFileSync(join(root, 'examples/invoice/template.json'), 'utf8'));
const invoiceData = JSON.parse(readFileSync(join(root, 'examples/invoice/data.json'), 'utf8'));

const runs = [];
try {
  let templates: { invoice: string; slow: string } | undefined;
  for (const teamThreads of [Math.max(1, threads - 1), threads]) {
    const { url, proc } = await startServer(teamThreads);
    try {
      if (!templates) {
        const inv = await post(url, victim.api_key, '/v1/templates', { name: 'invoice', type: 'pdf', definition: invoice });
        const slow = await post(url, hostile.api_key, '/v1/templates', { name: 'slow', type: 'pdf', definition: SLOW_DEFINITION });
        templates = { invoice: ((await inv.json()) as { id: string }).id, slow: ((await slow.json()) as { id: string }).id };
      }
      await invoiceLatencies(url, victim.api_key, templates.invoice, invoiceData, 3000); // warm-up
      const aloneFrom = Date.now();
      const alone = await invoiceLatencies(url, victim.api_key, templates.invoice, invoiceData, seconds * 1000);
      const aloneTo = Date.now();

      // The other team: two slow renders in flight at all times, each with new words.
      const stop = new AbortController();
      const hostileMs: number[] = [];
      let seed = 0;
      const loops = Array.from({ length: HOSTILE_IN_FLIGHT }, async () => {
        while (!stop.signal.aborted) {
          const start = performance.now();
          try {
            const res = await post(url, hostile.api_key, '/v1/pdf/create', { template_id: templates!.slow, data: slowDocumentData(paragraphs, ++seed), export_type: 'binary' }, stop.signal);
            await res.arrayBuffer();
            if (res.status !== 200) throw new Error(`slow render answered ${res.status}: run with fewer --paragraphs`);
            hostileMs.push(performance.now() - start);
          } catch (e) {
            if (!stop.signal.aborted) throw e;
          }
        }
      });
      await new Promise((r) => setTimeout(r, 1000)); // both slow renders have reached the server
      const hostileFrom = Date.now();
      const withHostile = await invoiceLatencies(url, victim.api_key, templates.invoice, invoiceData, seconds * 1000);
      const hostileTo = Date.now();
      stop.abort();
      await Promise.all(loops);
      await new Promise((r) => setTimeout(r, 500)); // the server writes its log at least every 200 ms

      const row = {
        teamThreads,
        alone: {
          requests: alone.length,
          p50Ms: round(quantile(alone, 0.5)),
          p99Ms: round(quantile(alone, 0.99)),
          maxMs: round(Math.max(...alone)),
          server: serverView(logFileOf(teamThreads), victim.team_id, aloneFrom, aloneTo),
        },
        withSlowRenders: {
          requests: withHostile.length,
          p50Ms: round(quantile(withHostile, 0.5)),
          p99Ms: round(quantile(withHostile, 0.99)),
          maxMs: round(Math.max(...withHostile)),
          server: serverView(logFileOf(teamThreads), victim.team_id, hostileFrom, hostileTo),
        },
        slowRenders: { completed: hostileMs.length, meanMs: hostileMs.length ? round(hostileMs.reduce((a, b) => a + b, 0) / hostileMs.length) : null },
        p99Ratio: 0,
      };
      row.p99Ratio = round(row.withSlowRenders.p99Ms / row.alone.p99Ms);
      runs.push(row);
      console.log(
        `PLATEN_RENDER_TEAM_THREADS=${teamThreads} of ${threads}: invoice alone p50 ${row.alone.p50Ms} ms, p99 ${row.alone.p99Ms} ms (${row.alone.requests} requests); ` +
          `with ${HOSTILE_IN_FLIGHT} slow renders of another team in flight: p50 ${row.withSlowRenders.p50Ms} ms, p99 ${row.withSlowRenders.p99Ms} ms, max ${row.withSlowRenders.maxMs} ms (${row.withSlowRenders.requests} requests); ` +
          `p99 ratio ${row.p99Ratio}x; slow renders completed ${row.slowRenders.completed}, mean ${row.slowRenders.meanMs} ms; ` +
          `in the server (p50/p99 ms, of it in the render pool): alone ${row.alone.server.p50Ms}/${row.alone.server.p99Ms} (${row.alone.server.renderPoolP50Ms}/${row.alone.server.renderPoolP99Ms}), ` +
          `with the slow renders ${row.withSlowRenders.server.p50Ms}/${row.withSlowRenders.server.p99Ms} (${row.withSlowRenders.server.renderPoolP50Ms}/${row.withSlowRenders.server.renderPoolP99Ms})`,
      );
    } finally {
      await stopServer(proc);
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const policy = runs[0]!;
const goal = { target: '< 3x', measured: policy.p99Ratio, met: policy.p99Ratio < 3 };
console.log(`goal: invoice p99 with another team's slow renders < 3 x its p99 alone: ${policy.p99Ratio}x, ${goal.met ? 'met' : 'NOT met'}`);
const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
results.fairness = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.arch()}` },
  threads,
  secondsPerPhase: seconds,
  slowDocument: `${paragraphs} paragraphs of 300 distinct words (test/helpers/slow-document.ts)`,
  runs,
  goal,
};
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
console.log('wrote bench/results.json (fairness)');
