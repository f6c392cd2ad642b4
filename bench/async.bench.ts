/**
 * Async throughput: 1,000 invoice jobs queued through POST /v1/pdf/create-async on a real server
 * (render threads = cores), timed until the last one is completed. Printed next to the engine's
 * single-thread docs/s from bench/results.json so the pool's scaling is visible; merged into
 * bench/results.json as `async`.
 *   npm run bench:async [-- --jobs 200]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { count, eq } from 'drizzle-orm';
import type { JobRunner } from '../src/jobs/runner.ts';
import { startTestServer } from '../test/helpers/server.ts';

const arg = process.argv.indexOf('--jobs');
const total = arg > 0 ? Number(process.argv[arg + 1]) : 1000;
const root = new URL('../', import.meta.url);
const threads = os.availableParallelism();

const s = await startTestServer({ PLATEN_RENDER_THREADS: String(threads), PLATEN_RATE_LIMIT: '1000000' });
try {
  const { teamId, apiKey } = await s.team(total + 10, 'bench');
  const definition = JSON.parse(readFileSync(new URL('examples/invoice/template.json', root), 'utf8'));
  const data = JSON.parse(readFileSync(new URL('examples/invoice/data.json', root), 'utf8'));
  const templateId = await s.template(teamId, definition);

  // Warm the render threads (fonts parsed, code paths compiled) before timing.
  await Promise.all(Array.from({ length: threads * 2 }, () => s.server.services.pool.render(JSON.stringify(definition), data)));

  const started = performance.now();
  for (let i = 0; i < total; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, total - i) }, async () => {
        const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: templateId, data });
        if (res.status !== 202) throw new Error(`create-async answered ${res.status}: ${await res.text()}`);
      }),
    );
  }
  const queuedMs = performance.now() - started;
  // SQLite mode: the in-process queue (bench/cluster.bench.ts measures the cluster's).
  await (s.server.services.runner as JobRunner).idle();
  const seconds = (performance.now() - started) / 1000;
  const { orm, t: { jobs } } = s.server.services.db;
  const [done] = await orm.select({ n: count() }).from(jobs).where(eq(jobs.status, 'completed'));
  if (done.n !== total) throw new Error(`${done.n} of ${total} jobs completed`);

  const resultsFile = new URL('bench/results.json', root);
  const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
  const single = results.engine?.find((r: { document: string }) => r.document === 'invoice')?.platen.docsPerSecond as number | undefined;
  const jobsPerSecond = Math.round((total / seconds) * 100) / 100;
  console.log(`${total} invoice jobs: queued in ${(queuedMs / 1000).toFixed(2)} s, all completed in ${seconds.toFixed(2)} s: ${jobsPerSecond} jobs/s on ${threads} render threads`);
  if (single) console.log(`engine, one thread, in-process: ${single} docs/s -> pool scaling ${(jobsPerSecond / single).toFixed(2)}x`);
  results.async = { date: new Date().toISOString(), jobs: total, threads, seconds: Math.round(seconds * 100) / 100, jobsPerSecond, singleThreadDocsPerSecond: single ?? null };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  console.log('wrote bench/results.json (async)');
} finally {
  await s.close();
}
