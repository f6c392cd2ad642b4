/**
 * Runs queued jobs (spec §3): p-queue bounds how many are in flight (PLATEN_JOB_CONCURRENCY) on the
 * same render pool as synchronous requests. The database is the queue's memory: on start, jobs a
 * crash left pending or processing are queued again, so an accepted job is never lost.
 */
import PQueue from 'p-queue';
import type { Db } from '../../db/open.ts';
import type { PdfVariant } from '../../engine/index.ts';
import type { Logger } from '../logger.ts';
import { RenderFailure, type RenderPool } from '../render/pool.ts';
import type { FileStore } from '../services/files.ts';
import { findS3Integration } from '../services/integrations.ts';
import { claimJob, completeJob, failJob, recoverJobs } from '../services/jobs.ts';
import { S3Failure, s3Location, type S3Storage } from '../services/s3.ts';

/** A job failure with its own error_code (not a render failure). */
class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RunnerDeps {
  db: Db;
  pool: RenderPool;
  files: FileStore;
  s3: S3Storage;
  log: Logger;
  /** Called when a job reaches a terminal state (to deliver its webhook). */
  onResolved: () => void;
}

export class JobRunner {
  private readonly queue: PQueue;

  constructor(
    private readonly deps: RunnerDeps,
    concurrency: number,
  ) {
    this.queue = new PQueue({ concurrency });
  }

  /** Queue every job the database holds as pending (after recovering those left processing). */
  start(): number {
    const ids = recoverJobs(this.deps.db);
    for (const id of ids) this.enqueue(id);
    if (ids.length > 0) this.deps.log.info({ jobs: ids.length }, 'queued jobs recovered');
    return ids.length;
  }

  enqueue(id: string): void {
    this.queue.add(() => this.run(id)).catch((err) => this.deps.log.error({ err, job: id }, 'job runner failed'));
  }

  /** Jobs waiting plus running. */
  get size(): number {
    return this.queue.size + this.queue.pending;
  }

  /** Wait until every queued job has run. */
  idle(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Stop starting jobs and wait for the running ones (waiting ones stay pending in the database). */
  async stop(): Promise<void> {
    this.queue.pause();
    this.queue.clear();
    await this.queue.onPendingZero();
  }

  private async run(id: string): Promise<void> {
    const { db, pool, files, s3, log } = this.deps;
    const job = claimJob(db, id);
    if (!job) return;
    try {
      // S3 output uploads with the integration as it is now (the request checked there was one).
      const integration = job.storeS3 ? findS3Integration(db, job.teamId) : undefined;
      if (job.storeS3 && !integration) {
        throw new JobFailure('S3_INTEGRATION_MISSING', 'the team has no S3 integration any more (it was removed after the job was queued); configure one with POST /v1/integrations/s3');
      }
      const { pdf, warnings } = await pool.render(job.definition, JSON.parse(job.data), { pdfVariant: (job.pdfVariant ?? undefined) as PdfVariant | undefined });
      if (warnings.length > 0) log.warn({ job: id, template: job.templateId, warnings }, 'rendered with warnings');
      const filename = `${job.filename}.pdf`;
      if (integration) {
        const loc = s3Location(integration, filename, { bucket: job.s3Bucket, prefix: job.s3Filepath });
        try {
          await s3.upload(integration, loc, pdf);
        } catch (e) {
          if (e instanceof S3Failure) throw new JobFailure('S3_UPLOAD_FAILED', `the upload to bucket "${loc.bucket}" failed: ${e.message}`);
          throw e;
        }
        completeJob(db, job, { filename, s3Bucket: loc.bucket, s3Key: loc.key });
      } else {
        const stored = files.save(job.teamId, filename, pdf, job.expiration);
        completeJob(db, job, { url: stored.url, filename, expiresAt: stored.expiresAt });
      }
    } catch (e) {
      if (e instanceof JobFailure || e instanceof RenderFailure) {
        failJob(db, job, e.code, e.message);
      } else {
        log.error({ err: e, job: id }, 'job failed unexpectedly');
        failJob(db, job, 'RENDER_ERROR', 'rendering failed');
      }
    }
    this.deps.onResolved();
  }
}
