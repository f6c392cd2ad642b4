/**
 * One team's backlog of queued jobs must not hold up another team's job (docs/api.md: "Jobs of
 * different teams are run in turn"), on SQLite (the in-process runner) and on PostgreSQL (pg-boss).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createJob, waitForJob } from '../helpers/jobs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const DOC = { content: [{ text: 'Row {{n}}' }] };
const BACKLOG = 40;

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_RATE_LIMIT: '100000', PLATEN_JOB_CONCURRENCY: '2', PLATEN_RENDER_THREADS: '1', PLATEN_QUEUE_POLL_MS: '50' });
});
after(async () => {
  await s?.close();
});

test("a team's backlog of queued jobs does not hold up another team's job", async () => {
  const flood = await s.team(BACKLOG + 5);
  const other = await s.team(5);
  const floodTemplate = await s.template(flood.teamId, DOC);
  const otherTemplate = await s.template(other.teamId, DOC);
  // The backlog queued at once (one by one, the first jobs would be done before the last is queued).
  const floodIds = (await Promise.all(Array.from({ length: BACKLOG }, (_, n) => createJob(s, flood.apiKey, { template_id: floodTemplate, data: { n } })))).map((j) => j.job_id);
  const { job_id } = await createJob(s, other.apiKey, { template_id: otherTemplate, data: { n: 0 } });
  const mine = await waitForJob(s, other.apiKey, job_id, 60_000);
  assert.equal(mine.status, 'completed');
  const floodJobs = await Promise.all(floodIds.map((id) => waitForJob(s, flood.apiKey, id, 120_000)));
  // Only the backlog still waiting when this job was queued counts: jobs done by then held up nothing.
  const waiting = floodJobs.filter((j) => j.completed_at! > mine.created_at);
  assert.ok(waiting.length >= 10, `a backlog was there: ${waiting.length} of the ${BACKLOG} jobs were not done when the other team's job was queued`);
  const before = waiting.filter((j) => j.completed_at! < mine.completed_at!).length;
  // Taking turns, it waits for the jobs already running and a few more, not for the whole backlog.
  assert.ok(before <= 6, `${before} of the other team's ${waiting.length} waiting jobs finished before this team's one job`);
});
