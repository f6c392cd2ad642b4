/**
 * HTTP throughput and latency: a real server in a child process (`platen serve` through tsx, or
 * dist/platen with --binary; render threads = cores, default log level, its log to a file), the
 * demo team's invoice rendered by POST /v1/pdf/create with export_type binary, driven by autocannon
 * from this process at 1, 4, 16 and 64 connections (10 s each after a 3 s warm-up), then the async
 * bench (bench/async.bench.ts, 1,000 jobs). Prints a table with the goals of issue 7 and merges
 * everything into bench/results.json as `http` (and `async`).
 * With --varied every request carries different invoice data (bench/varied-invoice.ts), as a
 * service sees it, and the goals use the engine bench's varied-data figure; results go to
 * `httpVaried`; with --binary in `httpBinary`.
 *   npm run bench:http [-- --seconds 10] [-- --binary] [-- --no-async] [-- --connections 1,16] [-- --threads 1] [-- --varied] [-- --team-threads 1]
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { variedInvoiceData } from './varied-invoice.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const argValue = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = argValue('--seconds', 10);
const useBinary = process.argv.includes('--binary');
const runAsync = !process.argv.includes('--no-async');
const varied = process.argv.includes('--varied');
const connectionsArg = process.argv.indexOf('--connections');
const CONNECTIONS = connectionsArg > 0 ? process.argv[connectionsArg + 1]!.split(',').map(Number) : [1, 4, 16, 64];
// Render threads: the server's default (one per core), or --threads N (cores - 1 leaves the main
// thread and the load generator a core of their own, so the render threads' throughput is the
// engine's; results of such runs go to bench/results.json as `httpThreads<N>`).
const threads = argValue('--threads', os.availableParallelism());
// The bench's requests all come from one team, which the server lets hold threads - 1 threads by
// default (PLATEN_RENDER_TEAM_THREADS, a reserve for other teams): give it the whole pool, as a
// single-team installation would, unless --team-threads N says otherwise.
const teamThreads = argValue('--team-threads', threads);
const resultsFile = join(root, 'bench/results.json');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Busy and total jiffies of the whole machine (/proc/stat), to tell this bench's CPU from others'. */
function machineCpu(): { busy: number; total: number } | null {
  if (!existsSync('/proc/stat')) return null;
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

/** CPU milliseconds of each thread of process `pid` (/proc/<pid>/task), by thread id. */
function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  if (!existsSync(`/proc/${pid}/task`)) return out;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), ((Number(f[11]) + Number(f[12])) * 1000) / 100); // utime + stime, USER_HZ 100
    } catch {
      // the thread ended
    }
  }
  return out;
}

/**
 * CPU per request, split: the server's main thread, its render threads (the `threads` busiest
 * others), everything else in the server (V8's GC and compiler threads, libuv), and this client.
 */
function cpuPerRequest(pid: number, before: Map<number, number>, after: Map<number, number>, client: NodeJS.CpuUsage, requests: number) {
  const used = [...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)] as const);
  const main = used.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = used.filter(([tid]) => tid !== pid).map(([, ms]) => ms).sort((a, b) => b - a);
  const render = others.slice(0, threads).reduce((a, b) => a + b, 0);
  const rest = others.slice(threads).reduce((a, b) => a + b, 0);
  return { mainMs: round(main / requests), renderMs: round(render / requests), helpersMs: round(rest / requests), clientMs: round((client.user + client.system) / 1000 / requests) };
}
/** The value at quantile `q` (0..1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/**
 * The server's own view of a run, from its request log (`ms` and `render_ms` of each POST
 * /v1/pdf/create logged between `from` and `to`, epoch ms): p50/p99 of the whole request and of its
 * time in the render pool (waiting for a thread, the handoff both ways, the render), in ms.
 */
function serverView(logFile: string, from: number, to: number) {
  const total: number[] = [];
  const pool: number[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"msg":"request"') || !line.endsWith('}')) continue; // a line still being written
    const entry = JSON.parse(line) as { time: number; path: string; ms: number; render_ms?: number };
    if (entry.path !== '/v1/pdf/create' || entry.time < from || entry.time > to || entry.render_ms === undefined) continue;
    total.push(entry.ms);
    pool.push(entry.render_ms);
  }
  return { requests: total.length, p50Ms: quantile(total, 0.5), p99Ms: quantile(total, 0.99), renderPoolP50Ms: quantile(pool, 0.5), renderPoolP99Ms: quantile(pool, 0.99) };
}

/**
 * The engine bench's invoice figure (`bench/engine.bench.ts --invoice-only`: tinybench, single
 * thread, a fresh process), measured before and right after each HTTP run while the server idles;
 * the goals use the mean of the two, so both sides see the same machine: on a shared host the
 * CPU's speed drifts by a quarter within minutes, which would otherwise decide the goals.
 */
function engineInvoice(): { docsPerSecond: number; meanMs: number } {
  const args = ['--import', 'tsx', join(root, 'bench/engine.bench.ts'), '--invoice-only', ...(varied ? ['--varied'] : [])];
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const tsx = [process.execPath, ['--import', 'tsx', join(root, 'src/cli.ts')]] as const;
if (useBinary) execFileSync(process.execPath, [join(root, 'scripts/build-binary.mjs'), '--if-stale'], { stdio: 'inherit' });
const [command, prefix] = useBinary ? [join(root, 'dist/platen'), [] as string[]] : [tsx[0], [...tsx[1]]];

const dataDir = mkdtempSync(join(os.tmpdir(), 'platen-http-'));
const port = await freePort();
const env = { ...process.env, PLATEN_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PLATEN_RATE_LIMIT: '1000000', PLATEN_RENDER_THREADS: String(threads), PLATEN_RENDER_TEAM_THREADS: String(teamThreads) };
const logFile = join(dataDir, 'server.log');
const log = openSync(logFile, 'w');
const server = spawn(command, [...prefix, 'serve'], { env, cwd: root, stdio: ['ignore', log, 'inherit'] });
closeSync(log);
const url = `http://127.0.0.1:${port}`;

try {
  // The seed's lines on stdout: API key, team and the invoice template's id.
  let seeded: { apiKey: string; teamId: string; invoice: string } | undefined;
  const deadline = Date.now() + 60_000;
  while (!seeded) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
    if (Date.now() > deadline) throw new Error('the server printed no seed within 60 s');
    const out = readFileSync(logFile, 'utf8');
    const apiKey = /API key: (pk_\S+)/.exec(out)?.[1];
    const teamId = /team: +(\S+)/.exec(out)?.[1];
    const invoice = /^ +invoice +(\S+)/m.exec(out)?.[1];
    if (apiKey && teamId && invoice && (await fetch(`${url}/healthz`).then((r) => r.ok, () => false))) seeded = { apiKey, teamId, invoice };
    else await new Promise((r) => setTimeout(r, 50));
  }
  execFileSync(command, [...prefix, 'credits', 'add', '--team', seeded.teamId, '--amount', '100000000'], { env, stdio: 'ignore' });

  const data = JSON.parse(readFileSync(join(root, 'examples/invoice/data.json'), 'utf8'));
  const request = {
    url: `${url}/v1/pdf/create`,
    method: 'POST' as const,
    headers: { 'x-api-key': seeded.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ template_id: seeded.invoice, export_type: 'binary', data }),
  };
  // --varied: a new body for every request (autocannon calls setupRequest before each one).
  let serial = 0;
  const variedBody = (req: { body?: string }) => ({ ...req, body: JSON.stringify({ template_id: seeded!.invoice, export_type: 'binary', data: variedInvoiceData(data, ++serial) }) });
  const run = (connections: number, duration: number) =>
    autocannon({ ...request, connections, duration, ...(varied ? { requests: [{ setupRequest: variedBody }] } : {}) } as autocannon.Options);

  await run(4, 3); // warm-up: worker threads load the engine and fonts, code gets compiled
  const rows = [];
  for (const connections of CONNECTIONS) {
    const before = engineInvoice();
    const [threadsBefore, machineBefore, clientBefore, from] = [threadCpu(server.pid!), machineCpu(), process.cpuUsage(), Date.now()];
    const r = await run(connections, seconds);
    const [threadsAfter, machineAfter, client, to] = [threadCpu(server.pid!), machineCpu(), process.cpuUsage(clientBefore), Date.now()];
    await new Promise((resolve) => setTimeout(resolve, 500)); // the server writes its log at least every 200 ms
    const inServer = serverView(logFile, from, to);
    // The engine again right after: the goals use the mean of the two, the speed around the run.
    const after = engineInvoice();
    const engine = { docsPerSecond: round((before.docsPerSecond + after.docsPerSecond) / 2), meanMs: round((before.meanMs + after.meanMs) / 2), before, after };
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${connections} connections: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    const cpu = cpuPerRequest(server.pid!, threadsBefore, threadsAfter, client, r.requests.total);
    // Cores busy on the whole machine during the run, and how many of them this bench (server + client) used.
    const machineCores = machineBefore && machineAfter ? round(((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * os.cpus().length) : null;
    const benchCores = round(((cpu.mainMs + cpu.renderMs + cpu.helpersMs + cpu.clientMs) * r.requests.total) / 1000 / r.duration);
    rows.push({
      connections,
      engineAround: engine,
      requests: r.requests.total,
      requestsPerSecond: round(r.requests.total / r.duration),
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      meanMs: round(r.latency.mean),
      server: inServer,
      cpuMsPerRequest: cpu,
      machineCoresBusy: machineCores,
      benchCoresBusy: benchCores,
    });
    console.log(
      `${String(connections).padStart(3)} connections (engine before and after: ${before.docsPerSecond} and ${after.docsPerSecond} docs/s, mean ${engine.meanMs} ms): ${round(r.requests.total / r.duration)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms; ` +
        `in the server (its log, ${inServer.requests} requests): p50 ${inServer.p50Ms} ms, p99 ${inServer.p99Ms} ms, of which in the render pool p50 ${inServer.renderPoolP50Ms} ms, p99 ${inServer.renderPoolP99Ms} ms; ` +
        `CPU ms/request: main ${cpu.mainMs}, render ${cpu.renderMs}, GC/other threads ${cpu.helpersMs}, client ${cpu.clientMs}; ` +
        `cores busy: ${machineCores ?? '?'} on the machine, ${benchCores} by this bench`,
    );
  }
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));

  if (runAsync) execFileSync(process.execPath, ['--import', 'tsx', join(root, 'bench/async.bench.ts')], { cwd: root, stdio: 'inherit' });

  const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
  // The last run at each level when a level is given twice (--connections 1,16,1).
  const at16 = [...rows].reverse().find((r) => r.connections === 16)!;
  const at1 = [...rows].reverse().find((r) => r.connections === 1)!;
  const throughputTarget = 0.8 * at16.engineAround.docsPerSecond * threads;
  const latencyTarget = 3 * at1.engineAround.meanMs;
  const goals = {
    throughput: { target: round(throughputTarget), measured: at16.requestsPerSecond, met: at16.requestsPerSecond >= throughputTarget },
    latency: { target: round(latencyTarget), measured: at1.p99Ms, met: at1.p99Ms < latencyTarget },
  };
  console.log(
    `goal: at 16 connections >= 0.8 x ${at16.engineAround.docsPerSecond} docs/s x ${threads} threads = ${goals.throughput.target} req/s: ${goals.throughput.measured} req/s, ${goals.throughput.met ? 'met' : 'NOT met'}`,
  );
  console.log(`goal: p99 at 1 connection < 3 x ${at1.engineAround.meanMs} ms = ${goals.latency.target} ms: ${goals.latency.measured} ms, ${goals.latency.met ? 'met' : 'NOT met'}`);
  const key = `http${useBinary ? 'Binary' : ''}${varied ? 'Varied' : ''}${threads === os.availableParallelism() ? '' : `Threads${threads}`}${teamThreads === threads ? '' : `TeamThreads${teamThreads}`}`;
  results[key] = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.arch()}` },
    server: useBinary ? 'dist/platen' : 'tsx src/cli.ts',
    data: varied ? 'different for every request (bench/varied-invoice.ts)' : 'examples/invoice/data.json for every request',
    threads,
    secondsPerRun: seconds,
    invoice: rows,
    asyncJobsPerSecond: results.async?.jobsPerSecond ?? null,
    goals,
  };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote bench/results.json (${key})`);
} finally {
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
}
