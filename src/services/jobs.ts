/**
 * Job records and their state moves (spec §2.5, §3). Each move is one transaction with what must
 * happen alongside it: the debit with the insert, the refund with the move to failed, the webhook
 * row with the move to a terminal state. Moves are guarded by the state they leave, so a credit is
 * never taken or refunded twice for one job.
 */
import type { RenderWarning } from '../../engine/index.ts';
import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, getTableColumns, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Tables } from '../../db/database.ts';
import { ApiError } from '../errors.ts';
import { debitCredit, refundCredit } from './credits.ts';

export type JobRow = Tables['jobs']['$inferSelect'];
export type JobStatus = JobRow['status'];
/** A job as the API reads it: every column but its definition and data, which can be megabytes each (polling a job, or listing 100, read them all). */
export type JobView = Omit<JobRow, 'definition' | 'data'>;

/** The columns of {@link JobView}. */
function viewColumns(db: Db) {
  const { definition: _definition, data: _data, ...view } = getTableColumns(db.t.jobs);
  return view;
}

/** What a create-async request decided, ready to store. */
export interface NewJob {
  templateId: string;
  /** The definition's JSON text. */
  definition: string;
  data: unknown;
  filename: string;
  expiration: number;
  storeS3: boolean;
  s3Filepath?: string;
  s3Bucket?: string;
  pdfVariant?: string;
  webhookUrl?: string;
  webhookSecretEnc?: string;
  /** What the job makes (default "pdf"); image jobs also `imageOptions`. */
  output?: 'pdf' | 'png' | 'jpeg';
  /** Image jobs: the page, pixels per point and the pixel limit when the job was accepted. */
  imageOptions?: { scale: number; page: number; maxPixels: number };
  /** Output protection (engine Protection) as sealed JSON (secrets.ts). */
  protectionEnc?: string;
  /** The request's Idempotency-Key and its body's hash (idempotency.ts), when it had one. */
  idempotency?: { key: string; requestHash: string };
}

/**
 * Work that must commit or roll back with a state move: called inside its transaction, on the
 * transaction's handle (cluster mode: the pg-boss send of the job, or of its webhook delivery).
 */
export type InTransaction = (tx: Db, id: string) => Promise<void>;

/**
 * Take one credit and write the job, pending, in one transaction (§3 first row), with `enqueue`
 * (the job's id) in the same transaction when given.
 * @throws ApiError 402 INSUFFICIENT_CREDITS; the database's unique violation (isUniqueViolation)
 * when a job of the team already has `job.idempotency.key`. Either way nothing is written.
 */
export async function insertJob(db: Db, teamId: string, job: NewJob, enqueue?: InTransaction): Promise<{ job: JobRow; creditsRemaining: number }> {
  const id = randomUUID();
  const now = new Date().toISOString();
  return db.transaction(async (tx) => {
    // The ledger's debit, in this transaction: throws 402 at zero (and nothing is written).
    const creditsRemaining = await debitCredit(tx, teamId, id);
    const row: Tables['jobs']['$inferInsert'] = {
      id,
      teamId,
      status: 'pending',
      templateId: job.templateId,
      definition: job.definition,
      data: JSON.stringify(job.data),
      exportType: 'url',
      filename: job.filename,
      expiration: job.expiration,
      storeS3: job.storeS3,
      s3Filepath: job.s3Filepath ?? null,
      s3Bucket: job.s3Bucket ?? null,
      pdfVariant: job.pdfVariant ?? null,
      webhookUrl: job.webhookUrl ?? null,
      webhookSecretEnc: job.webhookSecretEnc ?? null,
      output: job.output ?? 'pdf',
      imageOptions: job.imageOptions ? JSON.stringify(job.imageOptions) : null,
      protectionEnc: job.protectionEnc ?? null,
      idempotencyKey: job.idempotency?.key ?? null,
      requestHash: job.idempotency?.requestHash ?? null,
      createdAt: now,
      updatedAt: now,
    };
    const [inserted] = await tx.orm.insert(tx.t.jobs).values(row).returning();
    if (enqueue) await enqueue(tx, id);
    return { job: inserted, creditsRemaining };
  });
}

/**
 * Move pending -> processing, one more attempt. @returns the job (its `attempts` is this start's
 * number, the fence its completion or failure is written under), or undefined if it was not pending.
 */
export async function claimJob(db: Db, id: string): Promise<JobRow | undefined> {
  const { orm, t: { jobs } } = db;
  const [row] = await orm
    .update(jobs)
    .set({ status: 'processing', attempts: sql`${jobs.attempts} + 1`, updatedAt: new Date().toISOString() })
    .where(and(eq(jobs.id, id), eq(jobs.status, 'pending')))
    .returning();
  return row;
}

/** What a worker of the shared queue found when it took job `id` (claimJobForRun). */
export type ClaimOutcome =
  | { run: JobRow }
  | { done: 'finished' | 'missing' }
  | { poisoned: JobRow };

/**
 * Take job `id` for one run, handed out by the shared queue (cluster mode): pending -> processing
 * with one more attempt. A job found in processing was started before and never finished (its
 * worker died, or its lease ran out): it is started again, or, when it was started `maxAttempts`
 * times already, returned as poisoned for the caller to fail for good. A finished job is not run
 * (the queue delivers at least once). The conditional UPDATE on (status, attempts) makes two
 * workers that take the same job at once agree: one wins, the other finds nothing to do.
 */
export async function claimJobForRun(db: Db, id: string, maxAttempts: number): Promise<ClaimOutcome> {
  const { orm, t: { jobs } } = db;
  for (;;) {
    const [row] = await orm.select().from(jobs).where(eq(jobs.id, id));
    if (!row) return { done: 'missing' };
    if (row.status === 'completed' || row.status === 'failed') return { done: 'finished' };
    if (row.status === 'processing' && row.attempts >= maxAttempts) return { poisoned: row };
    const [claimed] = await orm
      .update(jobs)
      .set({ status: 'processing', attempts: sql`${jobs.attempts} + 1`, updatedAt: new Date().toISOString() })
      .where(and(eq(jobs.id, id), eq(jobs.status, row.status), eq(jobs.attempts, row.attempts)))
      .returning();
    if (claimed) return { run: claimed };
    // Another worker moved it meanwhile: look again.
  }
}

/**
 * Give a started job back to the queue (a shutdown that could not wait for it): processing ->
 * pending, its attempt not counted, only while this start (`job.attempts`) still holds it.
 * @returns whether it was handed back.
 */
export async function handBackJob(db: Db, job: JobRow): Promise<boolean> {
  const { orm, t: { jobs } } = db;
  const rows = await orm
    .update(jobs)
    .set({ status: 'pending', attempts: sql`${jobs.attempts} - 1`, updatedAt: new Date().toISOString() })
    .where(and(eq(jobs.id, job.id), eq(jobs.status, 'processing'), eq(jobs.attempts, job.attempts)))
    .returning({ id: jobs.id });
  return rows.length > 0;
}

export interface JobResult {
  url?: string;
  filename: string;
  expiresAt?: number;
  s3Bucket?: string;
  s3Key?: string;
  /** The render's warnings. */
  warnings: RenderWarning[];
}

/** The pdf.completed / pdf.failed payload (§6.2), serialised once and stored as sent. */
function webhookBody(job: JobRow, event: 'pdf.completed' | 'pdf.failed', detail: Record<string, unknown>): string {
  const status = event === 'pdf.completed' ? 'completed' : 'failed';
  return JSON.stringify({ event, job_id: job.id, status, ...detail });
}

/**
 * Write the job's webhook delivery (one per job; its delivery id is sent on every attempt), and
 * run `enqueue` with the delivery row's id in the same transaction when given.
 */
async function queueWebhook(tx: Db, job: JobRow, event: 'pdf.completed' | 'pdf.failed', body: string, now: string, enqueue?: InTransaction): Promise<void> {
  if (!job.webhookUrl) return;
  const [row] = await tx.orm
    .insert(tx.t.webhookDeliveries)
    .values({ jobId: job.id, deliveryId: randomUUID(), event, url: job.webhookUrl, body, status: 'pending', attempts: 0, nextAttemptAt: Date.now(), createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ id: tx.t.webhookDeliveries.id });
  if (row && enqueue) await enqueue(tx, String(row.id));
}

/**
 * What a finished job keeps of its request's data and definition: nothing. Both may be megabytes,
 * kept PLATEN_JOB_RETENTION_DAYS; a failing job is refunded, so without this a team could store
 * 10 MB a request for free (600 a minute).
 */
const FINISHED_INPUTS = { data: '{}', definition: '{}' } as const;

/**
 * Move processing -> completed with the result fields, and queue pdf.completed (§3), under the
 * fence of this start (`job.attempts`): a start that lost the job (handed back, or taken over by
 * another worker) changes nothing. `webhook` runs in the same transaction with the delivery's row id.
 * @returns whether this call completed the job.
 */
export async function completeJob(db: Db, job: JobRow, result: JobResult, webhook?: InTransaction): Promise<boolean> {
  const now = new Date().toISOString();
  return db.transaction(async (tx) => {
    const { jobs } = tx.t;
    const updated = await tx.orm
      .update(jobs)
      .set({
        status: 'completed',
        updatedAt: now,
        completedAt: now,
        resultUrl: result.url ?? null,
        resultFilename: result.filename,
        resultExpiresAt: result.expiresAt !== undefined ? new Date(result.expiresAt * 1000).toISOString() : null,
        resultS3Bucket: result.s3Bucket ?? null,
        resultS3Key: result.s3Key ?? null,
        warnings: JSON.stringify(result.warnings),
        // The output passwords, the data and the definition were needed for the render only: not kept past it.
        protectionEnc: null,
        ...FINISHED_INPUTS,
      })
      .where(and(eq(jobs.id, job.id), eq(jobs.status, 'processing'), eq(jobs.attempts, job.attempts)))
      .returning({ id: jobs.id });
    if (updated.length === 0) return false;
    const payload = result.url !== undefined ? { url: result.url, filename: result.filename } : { s3_bucket: result.s3Bucket, s3_key: result.s3Key, filename: result.filename };
    await queueWebhook(tx, job, 'pdf.completed', webhookBody(job, 'pdf.completed', { result: payload }), now, webhook);
    return true;
  });
}

/**
 * Move processing -> failed, refund the credit (keyed on the job: once, whatever runs this), and
 * queue pdf.failed, all at once (§3, §7.2), under the fence of this start (`job.attempts`, as
 * completeJob). `webhook` runs in the same transaction with the delivery's row id.
 */
export async function failJob(db: Db, job: JobRow, code: string, message: string, webhook?: InTransaction): Promise<boolean> {
  const now = new Date().toISOString();
  return db.transaction(async (tx) => {
    const { jobs } = tx.t;
    const updated = await tx.orm
      .update(jobs)
      .set({ status: 'failed', updatedAt: now, completedAt: now, errorCode: code, errorMessage: message, protectionEnc: null, ...FINISHED_INPUTS })
      .where(and(eq(jobs.id, job.id), eq(jobs.status, 'processing'), eq(jobs.attempts, job.attempts)))
      .returning({ id: jobs.id });
    if (updated.length === 0) return false;
    await refundCredit(tx, job.teamId, job.id);
    await queueWebhook(tx, job, 'pdf.failed', webhookBody(job, 'pdf.failed', { error: { message, code } }), now, webhook);
    return true;
  });
}

/**
 * After a restart, for the jobs a crash left in processing: one started `maxAttempts` times or more
 * (the process died on it each time, as a render that takes the process down would) fails for good
 * with RENDER_CRASHED, its refund and its pdf.failed webhook (failJob: one transaction each); the
 * others go back to pending and are run again (their credit was taken once and stays taken).
 * @returns every pending job, oldest first, and how many jobs were failed.
 */
export async function recoverJobs(db: Db, maxAttempts: number): Promise<{ queued: { id: string; teamId: string }[]; failed: number }> {
  const { orm, t: { jobs } } = db;
  let failed = 0;
  const poisoned = await orm.select().from(jobs).where(and(eq(jobs.status, 'processing'), gte(jobs.attempts, maxAttempts)));
  for (const job of poisoned) {
    const times = job.attempts === 1 ? 'once' : `${job.attempts} times`;
    if (await failJob(db, job, 'RENDER_CRASHED', `the service stopped while rendering this job ${times}; it is not run again`)) failed++;
  }
  await orm.update(jobs).set({ status: 'pending', updatedAt: new Date().toISOString() }).where(eq(jobs.status, 'processing'));
  const queued = await orm.select({ id: jobs.id, teamId: jobs.teamId }).from(jobs).where(eq(jobs.status, 'pending')).orderBy(jobs.createdAt);
  return { queued, failed };
}

/** The team of job `id`, or undefined when there is no such job. */
export async function teamOfJob(db: Db, id: string): Promise<string | undefined> {
  const { orm, t: { jobs } } = db;
  const [row] = await orm.select({ teamId: jobs.teamId }).from(jobs).where(eq(jobs.id, id));
  return row?.teamId;
}

/** The form of every job id (insertJob: randomUUID). */
const JOB_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The job `id` of the caller's team. @throws ApiError 404 JOB_NOT_FOUND (unknown or another team's). */
export async function getJob(db: Db, teamId: string, id: string): Promise<JobView> {
  const { orm, t: { jobs } } = db;
  // Job ids are randomUUID()s: anything else names no job, and is not sent to the database (a NUL
  // character in it was a PostgreSQL error, answered 500).
  const [row] = JOB_ID_RE.test(id) ? await orm.select(viewColumns(db)).from(jobs).where(and(eq(jobs.id, id), eq(jobs.teamId, teamId))) : [];
  if (!row) throw new ApiError(404, 'JOB_NOT_FOUND', `no job with id "${id}"`);
  return row;
}

/** The team's job made by a request with Idempotency-Key `key`, or undefined (none, or deleted after its retention). */
export async function jobOfIdempotencyKey(db: Db, teamId: string, key: string): Promise<JobView | undefined> {
  const { orm, t: { jobs } } = db;
  const [row] = await orm.select(viewColumns(db)).from(jobs).where(and(eq(jobs.teamId, teamId), eq(jobs.idempotencyKey, key)));
  return row;
}

type DeliveryRow = Tables['webhookDeliveries']['$inferSelect'];

/** The webhook deliveries of `jobIds` by job id (a job has at most one). */
async function deliveriesOf(db: Db, jobIds: string[]): Promise<Map<string, DeliveryRow>> {
  if (jobIds.length === 0) return new Map();
  const { orm, t: { webhookDeliveries } } = db;
  const rows = await orm.select().from(webhookDeliveries).where(inArray(webhookDeliveries.jobId, jobIds));
  return new Map(rows.map((r) => [r.jobId, r]));
}

/**
 * What a job record says of its webhook: null without a webhook_url; `pending` with no attempt
 * until the job has finished, then the delivery's state (retried while `pending`).
 */
function webhookJson(j: JobView, d: DeliveryRow | undefined) {
  if (j.webhookUrl === null) return null;
  return {
    status: d?.status ?? 'pending',
    event: d?.event ?? null,
    attempts: d?.attempts ?? 0,
    last_status_code: d?.lastStatusCode ?? null,
    last_error: d?.lastError ?? null,
    next_attempt_at: d?.status === 'pending' ? new Date(d.nextAttemptAt).toISOString() : null,
  };
}

/** The job record of §2.5 with its webhook's delivery (`delivery`: the job's row, when it has one). */
export function toJobJson(j: JobView, delivery?: DeliveryRow) {
  return {
    id: j.id,
    status: j.status,
    template_id: j.templateId,
    output: j.output,
    export_type: j.exportType,
    filename: j.filename,
    store_s3: j.storeS3,
    created_at: j.createdAt,
    updated_at: j.updatedAt,
    completed_at: j.completedAt,
    result_url: j.resultUrl,
    result_filename: j.resultFilename,
    result_expires_at: j.resultExpiresAt,
    result_s3_bucket: j.resultS3Bucket,
    result_s3_key: j.resultS3Key,
    error_message: j.errorMessage,
    error_code: j.errorCode,
    warnings: j.warnings === null ? [] : (JSON.parse(j.warnings) as RenderWarning[]),
    webhook: webhookJson(j, delivery),
  };
}

/** The job record of the team's job `id`. @throws ApiError 404 JOB_NOT_FOUND. */
export async function getJobJson(db: Db, teamId: string, id: string) {
  const job = await getJob(db, teamId, id);
  return toJobJson(job, (await deliveriesOf(db, [job.id])).get(job.id));
}

/** A page of the team's jobs, newest first (§4.4). */
export async function listJobs(db: Db, teamId: string, limit: number, offset: number, status?: JobStatus) {
  const { orm, t: { jobs } } = db;
  const where = status ? and(eq(jobs.teamId, teamId), eq(jobs.status, status)) : eq(jobs.teamId, teamId);
  const rows = await orm.select(viewColumns(db)).from(jobs).where(where).orderBy(desc(jobs.createdAt), desc(jobs.id)).limit(limit).offset(offset);
  const [{ n: total }] = await orm.select({ n: count() }).from(jobs).where(where);
  const deliveries = await deliveriesOf(db, rows.map((r) => r.id));
  return { jobs: rows.map((r) => toJobJson(r, deliveries.get(r.id))), total, limit, offset };
}

/**
 * Retention: delete terminal jobs older than `before` (their deliveries cascade). Their files
 * expire on their own through the file sweeper. @returns the number deleted.
 */
export async function deleteOldJobs(db: Db, before: Date): Promise<number> {
  const { orm, t: { jobs } } = db;
  const deleted = await orm
    .delete(jobs)
    .where(and(inArray(jobs.status, ['completed', 'failed']), lt(jobs.createdAt, before.toISOString())))
    .returning({ id: jobs.id });
  return deleted.length;
}
