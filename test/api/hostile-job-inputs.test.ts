/**
 * A finished job keeps its result, not its request's data and definition: a failing job is
 * refunded, so a team could otherwise store 10 MB a request in the database for free, kept
 * PLATEN_JOB_RETENTION_DAYS (before: a failed job with 5 MB of data kept all 5 MB).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { createJob, waitForJob } from '../helpers/jobs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

async function storedInputs(id: string): Promise<{ data: string; definition: string }> {
  const { orm, t } = s.server.services.db;
  const [row] = await orm.select({ data: t.jobs.data, definition: t.jobs.definition }).from(t.jobs).where(eq(t.jobs.id, id));
  return row;
}

test('a failed job (refunded) and a completed one keep neither the data nor the definition', async () => {
  const { teamId, apiKey } = await s.team(2);
  // 200 copies of a 5 MB value in one text: the render fails with LIMIT_EXCEEDED, refunded.
  const failing = await s.template(teamId, { content: [{ text: '{{t}}'.repeat(200) }] });
  const fine = await s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  const failed = await createJob(s, apiKey, { template_id: failing, data: { t: 'x'.repeat(5_000_000) } });
  const done = await createJob(s, apiKey, { template_id: fine, data: { name: 'Ada', pad: 'p'.repeat(1_000_000) } });
  assert.equal((await waitForJob(s, apiKey, failed.job_id)).status, 'failed');
  assert.equal((await waitForJob(s, apiKey, done.job_id)).status, 'completed');
  for (const id of [failed.job_id, done.job_id]) assert.deepEqual(await storedInputs(id), { data: '{}', definition: '{}' });
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1, 'the failed job was refunded');
});
