/**
 * Helpers for queued generation tests (spec §2.4-§2.6, §3): create a job, poll it to a terminal
 * state with a deadline, read the credit ledger and webhook deliveries straight from the database.
 */
import assert from 'node:assert/strict';
import { asc, count, eq } from 'drizzle-orm';
import type { TestServer } from './server.ts';
import { waitFor } from './wait.ts';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The job record of §2.5 as the API returns it. */
export interface JobJson {
  id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  template_id: string;
  export_type: string;
  filename: string;
  store_s3: boolean;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  result_url: string | null;
  result_filename: string | null;
  result_expires_at: string | null;
  result_s3_bucket: string | null;
  result_s3_key: string | null;
  error_message: string | null;
  error_code: string | null;
  webhook: {
    status: 'pending' | 'delivered' | 'failed';
    event: 'pdf.completed' | 'pdf.failed' | null;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    next_attempt_at: string | null;
  } | null;
}

/** POST /v1/pdf/create-async that must answer 202; @returns the job id. */
export async function createJob(s: TestServer, apiKey: string, body: Record<string, unknown>): Promise<{ job_id: string; status: string; credits_remaining: number }> {
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, body);
  const json = (await res.json()) as { job_id: string; status: string; credits_remaining: number };
  assert.equal(res.status, 202, `create-async answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

export async function getJob(s: TestServer, apiKey: string, id: string): Promise<JobJson> {
  const res = await s.api('GET', `/v1/pdf/jobs/${id}`, apiKey);
  assert.equal(res.status, 200, `GET job ${id} answered ${res.status}`);
  return (await res.json()) as JobJson;
}

/** Poll the job until it is completed or failed (every 50 ms, at most `timeoutMs`). */
export function waitForJob(s: TestServer, apiKey: string, id: string, timeoutMs = 30_000, seen?: Set<string>): Promise<JobJson> {
  return waitFor(
    `job ${id} to finish`,
    async () => {
      const job = await getJob(s, apiKey, id);
      seen?.add(job.status);
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    },
    timeoutMs,
    50,
  );
}

export interface LedgerRow {
  delta: number;
  reason: string;
  job_id: string | null;
  balance_after: number;
}

/** The team's credit_transactions rows, oldest first. */
export async function ledger(s: TestServer, teamId: string): Promise<LedgerRow[]> {
  const { orm, t: { creditTransactions: c } } = s.server.services.db;
  return orm
    .select({ delta: c.delta, reason: c.reason, job_id: c.jobId, balance_after: c.balanceAfter })
    .from(c)
    .where(eq(c.teamId, teamId))
    .orderBy(asc(c.id));
}

export async function balance(s: TestServer, teamId: string): Promise<number> {
  const { orm, t: { teams } } = s.server.services.db;
  const [row] = await orm.select({ credits: teams.credits }).from(teams).where(eq(teams.id, teamId));
  return row.credits;
}

export async function jobCount(s: TestServer, teamId: string): Promise<number> {
  const { orm, t: { jobs } } = s.server.services.db;
  const [row] = await orm.select({ n: count() }).from(jobs).where(eq(jobs.teamId, teamId));
  return row.n;
}

export interface DeliveryRow {
  job_id: string;
  delivery_id: string | null;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number;
}

/** The webhook delivery row of a job, if any. */
export async function deliveryOf(s: TestServer, jobId: string): Promise<DeliveryRow | undefined> {
  const { orm, t: { webhookDeliveries: w } } = s.server.services.db;
  const [row] = await orm
    .select({
      job_id: w.jobId,
      delivery_id: w.deliveryId,
      event: w.event,
      status: w.status,
      attempts: w.attempts,
      last_status_code: w.lastStatusCode,
      last_error: w.lastError,
      next_attempt_at: w.nextAttemptAt,
    })
    .from(w)
    .where(eq(w.jobId, jobId));
  return row;
}
