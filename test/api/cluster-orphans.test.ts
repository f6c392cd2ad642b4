/**
 * Cluster mode on PostgreSQL: work an earlier version left unfinished without a pg-boss job (a
 * pending job row, a pending webhook delivery) is queued when a process starts, so it runs rather
 * than waiting forever. Runs under `npm run test:pg` (PLATEN_TEST_DATABASE_URL); skipped on SQLite,
 * where the in-process runner picks up pending rows at start.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJob, waitForJob } from '../helpers/jobs.ts';
import { startTestServer } from '../helpers/server.ts';
import { dropDatabaseOf, TEST_DIALECT, withStoredDatabase } from '../helpers/test-database.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'platen-orphans-'));
after(async () => {
  await dropDatabaseOf(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('unfinished work without a queue entry', { skip: TEST_DIALECT === 'sqlite' && 'cluster mode needs PLATEN_TEST_DATABASE_URL' }, () => {
  test('a pending job and a pending delivery whose pg-boss jobs are gone run after a restart', async () => {
    const receiver = await startReceiver();
    const env = { PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', PLATEN_QUEUE_POLL_MS: '100' };
    try {
      // An API-only process accepts the job: its row and its pg-boss job, nothing runs it.
      const api = await startTestServer({ ...env, PLATEN_ROLE: 'api' }, { dataDir });
      const { teamId, apiKey } = await api.team(5);
      const templateId = await api.template(teamId, { content: [{ text: 'Order {{n}}' }] });
      const { job_id: id } = await createJob(api, apiKey, { template_id: templateId, data: { n: 7 }, webhook_url: `${receiver.url}/hook` });
      await api.close();

      // As an earlier version would have left it: the row pending, no pg-boss job.
      await withStoredDatabase(dataDir, (db) => (db as never as { executeSql(q: string, v: unknown[]): Promise<unknown> }).executeSql(`DELETE FROM pgboss.job WHERE data->>'job' = $1`, [id]));

      let s = await startTestServer(env, { dataDir });
      try {
        const job = await waitForJob(s, apiKey, id, 20_000);
        assert.equal(job.status, 'completed');
        const [first] = await receiver.waitForCount(1, 10_000);
        assert.equal(JSON.parse(first.body.toString()).job_id, id);
      } finally {
        await s.close();
      }

      // A delivery left pending with no pg-boss job: sent again after a restart, same delivery id.
      await withStoredDatabase(dataDir, async (db) => {
        const sql = db as never as { executeSql(q: string, v?: unknown[]): Promise<unknown> };
        await sql.executeSql(`UPDATE webhook_deliveries SET status = 'pending' WHERE job_id = $1`, [id]);
        await sql.executeSql(`DELETE FROM pgboss.job WHERE name LIKE 'platen-webhook%'`);
      });
      s = await startTestServer(env, { dataDir });
      try {
        const received = await receiver.waitForCount(2, 15_000);
        assert.equal(received.length, 2, 'the delivery was sent once more, not more');
        assert.equal(received[1].headers['x-platen-delivery'], received[0].headers['x-platen-delivery']);
      } finally {
        await s.close();
      }
    } finally {
      await receiver.close();
    }
  });
});
