/**
 * Async throughput by queue: N invoice jobs (default 300) queued through POST /v1/pdf/create-async,
 * timed from the first request until the last job is completed, on real `platen serve` processes:
 *   - SQLite mode: one process (role all), its in-process queue, 1 render thread; and with 2;
 *   - cluster mode (PostgreSQL + pg-boss, a fresh database each): one API node and 1, then 2,
 *     worker processes of 1 render thread each.
 * Every process renders with one thread, so the rows compare queues and processes at equal render
 * capacity per process. Merged into bench/results.json as `cluster`.
 *   npm run bench:cluster [-- --jobs 300]
 * Needs PostgreSQL at PLATEN_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * a user that may create databases.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { openPostgres } from '../db/postgres.ts';
import { openSqlite } from '../db/sqlite.ts';
import { createTeam } from '../src/services/teams.ts';
import { startChild, killAllChildren, type Child, envWithoutPlaten } from '../test/helpers/child.ts';
import { freePort, ROOT } from '../test/helpers/api.ts';
import { createScratchDatabase } from '../test/helpers/test-database.ts';
import { waitFor } from '../test/helpers/wait.ts';

const arg = process.argv.indexOf('--jobs');
const total = arg > 0 ? Number(process.argv[arg + 1]) : 300;
const root = new URL('../', import.meta.url);
const definition = JSON.parse(readFileSync(new URL('examples/invoice/template.json', root), 'utf8'));
const data = JSON.parse(readFileSync(new URL('examples/invoice/data.json', root), 'utf8'));

interface Setup {
  name: string;
  database: 'sqlite' | 'postgres';
  processes: { role: 'all' | 'api' | 'worker'; threads: number }[];
}

const setups: Setup[] = [
  { name: 'SQLite, 1 process (all), 1 render thread', database: 'sqlite', processes: [{ role: 'all', threads: 1 }] },
  { name: 'SQLite, 1 process (all), 2 render threads', database: 'sqlite', processes: [{ role: 'all', threads: 2 }] },
  { name: 'PostgreSQL + pg-boss, 1 API node, 1 worker (1 thread)', database: 'postgres', processes: [{ role: 'api', threads: 1 }, { role: 'worker', threads: 1 }] },
  { name: 'PostgreSQL + pg-boss, 1 API node, 2 workers (1 thread each)', database: 'postgres', processes: [{ role: 'api', threads: 1 }, { role: 'worker', threads: 1 }, { role: 'worker', threads: 1 }] },
];

async function run(setup: Setup): Promise<{ seconds: number; jobsPerSecond: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platen-bench-cluster-'));
  const scratch = setup.database === 'postgres' ? await createScratchDatabase('platen_bench') : undefined;
  const databaseUrl = scratch?.url;
  const db: Db = databaseUrl ? await openPostgres(databaseUrl, { poolSize: 2 }) : openSqlite(join(dataDir, 'platen.db'));
  const children: Child[] = [];
  try {
    const { apiKey } = await createTeam(db, 'bench', total + 10);
    const ports: number[] = [];
    for (const p of setup.processes) {
      const port = await freePort();
      ports.push(port);
      const base = envWithoutPlaten();
      children.push(
        startChild(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', p.role], {
          cwd: ROOT,
          env: {
            ...base,
            PORT: String(port),
            HOST: '127.0.0.1',
            PLATEN_DATA_DIR: dataDir,
            PLATEN_SECRET: 'b'.repeat(40),
            PLATEN_SEED_DEMO: 'false',
            PLATEN_RENDER_THREADS: String(p.threads),
            PLATEN_RENDER_TEAM_THREADS: String(p.threads),
            PLATEN_RATE_LIMIT: '1000000',
            LOG_LEVEL: 'warn',
            ...(databaseUrl ? { PLATEN_DATABASE_URL: databaseUrl } : {}),
          },
        }),
      );
    }
    for (const [i, c] of children.entries()) {
      await waitFor(`process ${i} ready`, async () => {
        if (c.proc.exitCode !== null) throw new Error(`exited: ${c.stderr().slice(-1000)}`);
        return (await fetch(`http://127.0.0.1:${ports[i]}/readyz`).catch(() => null))?.status === 200;
      }, 90_000, 100);
    }
    const api = `http://127.0.0.1:${ports[0]}`;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${api}${path}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as { id?: string; job_id?: string };
      if (res.status !== 201 && res.status !== 202) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const tpl = await post('/v1/templates', { name: 'invoice', type: 'pdf', definition });
    // Warm the render threads: a few jobs, not timed.
    const warm = await Promise.all(Array.from({ length: 4 }, () => post('/v1/pdf/create-async', { template_id: tpl.id, data })));
    const { orm, t } = db;
    const completed = async () => (await orm.select({ n: count() }).from(t.jobs).where(eq(t.jobs.status, 'completed')))[0].n;
    await waitFor('the warm-up jobs', async () => (await completed()) === warm.length, 120_000, 50);

    const started = performance.now();
    for (let i = 0; i < total; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, total - i) }, () => post('/v1/pdf/create-async', { template_id: tpl.id, data })));
    }
    await waitFor(`${total} jobs to complete`, async () => (await completed()) === total + warm.length, 600_000, 20);
    const seconds = (performance.now() - started) / 1000;
    return { seconds: Math.round(seconds * 100) / 100, jobsPerSecond: Math.round((total / seconds) * 100) / 100 };
  } finally {
    await Promise.all(children.map((c) => c.stop('SIGTERM', 30_000)));
    await db.close();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  const rows: (Setup & { seconds: number; jobsPerSecond: number })[] = [];
  for (const setup of setups) {
    const r = await run(setup);
    console.log(`${setup.name}: ${total} invoice jobs in ${r.seconds} s: ${r.jobsPerSecond} jobs/s`);
    rows.push({ ...setup, ...r });
  }
  const resultsFile = new URL('bench/results.json', root);
  const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
  results.cluster = { date: new Date().toISOString(), jobs: total, cores: os.availableParallelism(), loadAverage: os.loadavg()[0], rows: rows.map((r) => ({ name: r.name, database: r.database, processes: r.processes, seconds: r.seconds, jobsPerSecond: r.jobsPerSecond })) };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log('wrote bench/results.json (cluster)');
} finally {
  await killAllChildren();
}
