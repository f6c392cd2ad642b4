/**
 * Runs queued jobs (spec §3) on the same render pool as synchronous requests. At most
 * PLATEN_JOB_CONCURRENCY jobs are in flight, taken fairly from one FIFO per team (round-robin, a
 * team holding at most all places but one), so a team with many or slow jobs does not hold up the
 * others'. A job is claimed (pending -> processing, one more attempt) only once a render thread is
 * there for it. The database is the queue's memory: on start, jobs a crash left pending or
 * processing are queued again, so an accepted job is never lost; a job the process died on
 * PLATEN_JOB_MAX_ATTEMPTS times fails for good instead (recoverJobs).
 *
 * This is the embedded (SQLite) queue. In cluster mode (PostgreSQL) the queue is pg-boss
 * (src/jobs/boss.ts); both implement JobQueue and run a job with processJob.
 */
import type { Db } from '../../db/database.ts';
import type { PdfVariant, Protection } from '../../engine/index.ts';
import { ImageSourceFailure, mayNeedSources, type ImageResolver } from '../services/image-sources.ts';
import type { SecretBox } from '../services/secrets.ts';
import { DEFAULT_MAX_IMAGE_PIXELS } from '../../engine/index.ts';
import type { Logger } from '../logger.ts';
import { FairQueue } from '../render/fair-queue.ts';
import { RenderFailure, type ImageTask, type RenderInput, type RenderOnThread, type RenderPool } from '../render/pool.ts';
import { IMAGE_EXTENSIONS } from '../schemas/image.ts';
import { contentTypeOf } from '../services/files.ts';
import type { FileStore } from '../services/files.ts';
import { StorageFailure } from '../storage/store.ts';
import { findS3Integration } from '../services/integrations.ts';
import { claimJob, completeJob, failJob, handBackJob, recoverJobs, type InTransaction, type JobRow } from '../services/jobs.ts';
import { S3Failure, s3Location, type S3Storage } from '../services/s3.ts';

/** The output protection sealed with a job. @throws JobFailure when it cannot be opened. */
function openProtection(secrets: SecretBox | undefined, sealed: string): Protection {
  try {
    if (!secrets) throw new Error('no secret box');
    return JSON.parse(secrets.open(sealed)) as Protection;
  } catch {
    throw new JobFailure('RENDER_ERROR', 'the job\'s password could not be read back (PLATEN_SECRET changed since it was queued?)');
  }
}

/** The image render of an image job (output png or jpeg), or undefined for a PDF job. */
function imageTaskOf(job: JobRow): ImageTask | undefined {
  if (job.output === 'pdf') return undefined;
  const options = JSON.parse(job.imageOptions ?? '{}') as Partial<Omit<ImageTask, 'format'>>;
  return { format: job.output, scale: options.scale ?? 2, page: options.page ?? 1, maxPixels: options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS };
}

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
  /** Opens a job's sealed output protection (absent: such jobs fail). */
  secrets?: SecretBox;
  /** Fetches a job's URL and asset images when it runs (absent: the engine refuses such sources). */
  images?: ImageResolver;
}

/** The async job queue as routes and the server use it: in process (SQLite) or pg-boss (cluster). */
export interface JobQueue {
  /**
   * The hook that queues a job of team `teamId` inside the transaction that writes it (pass it to
   * insertJob; cluster mode), or undefined when the queue is in process: then call
   * {@link enqueue} once that transaction committed.
   */
  inTransaction(teamId: string): InTransaction | undefined;
  /** Queue job `id` of team `teamId` now (already committed). Queuing a queued job again is harmless. */
  enqueue(id: string, teamId: string): void;
  /** Start running jobs (those a previous run left too). */
  start(): Promise<number>;
  /**
   * Stop taking jobs; wait up to `timeoutMs` for those running, then hand the others back to the
   * queue (pending again, their start not counted), so another process or the next start runs them.
   */
  stop(timeoutMs?: number): Promise<void>;
  /** A queue of its own to check in /healthz and /readyz (cluster mode): its kind and a trivial question. */
  readonly kind?: string;
  ping?(): Promise<void>;
}

/** A job being run: `current` turns false once it is handed back, and nothing it does after is written. */
interface Running {
  job: JobRow;
  current: boolean;
}

export class JobRunner implements JobQueue {
  inTransaction(): undefined {
    return undefined;
  }
  private readonly queue: FairQueue;
  private stopped = false;
  /** Jobs queued here and not finished (waiting or running). */
  private queued = 0;
  private running = 0;
  /** Claimed jobs being processed. */
  private readonly claimed = new Set<Running>();
  private waiters: Array<{ when: () => boolean; resolve: () => void }> = [];

  /**
   * @param concurrency jobs in flight at once (PLATEN_JOB_CONCURRENCY).
   * @param maxAttempts starts of a job cut short by the process dying before it fails for good (PLATEN_JOB_MAX_ATTEMPTS).
   */
  constructor(
    private readonly deps: RunnerDeps,
    concurrency: number,
    private readonly maxAttempts = 2,
  ) {
    this.queue = new FairQueue({ slots: concurrency, perKey: Math.max(1, concurrency - 1) });
  }

  /**
   * Fail for good the jobs the process died on too often, queue every other job the database holds
   * as pending (after recovering those left processing). @returns the number queued.
   */
  async start(): Promise<number> {
    const { queued, failed } = await recoverJobs(this.deps.db, this.maxAttempts);
    for (const job of queued) this.enqueue(job.id, job.teamId);
    if (queued.length > 0) this.deps.log.info({ jobs: queued.length }, 'queued jobs recovered');
    if (failed > 0) {
      this.deps.log.warn({ jobs: failed, maxAttempts: this.maxAttempts }, 'jobs interrupted too often failed for good');
      this.deps.onResolved();
    }
    return queued.length;
  }

  /** Queue job `id` of team `teamId`. */
  enqueue(id: string, teamId: string): void {
    if (this.stopped) return;
    const team = teamId;
    this.queued++;
    this.queue
      .run(team, async () => {
        this.running++;
        try {
          await this.run(id, team);
        } finally {
          this.running--;
        }
      })
      .catch((err) => this.deps.log.error({ err, job: id }, 'job runner failed'))
      .finally(() => {
        this.queued--;
        this.wake();
      });
  }

  /** Jobs waiting plus running. */
  get size(): number {
    return this.queued;
  }

  /** Wait until every queued job has run. */
  idle(): Promise<void> {
    return this.until(() => this.queued === 0);
  }

  /**
   * Stop starting jobs and wait for the running ones, up to `timeoutMs` (default: as long as they
   * take); the ones still running then are handed back (pending again, their start not counted)
   * and run by the next start. Waiting ones stay pending in the database.
   */
  async stop(timeoutMs = Infinity): Promise<void> {
    this.stopped = true;
    this.queued -= this.queue.clear();
    const idle = this.until(() => this.running === 0 && this.queue.running === 0);
    if (!(await settlesWithin(idle, timeoutMs))) {
      for (const r of this.claimed) {
        r.current = false;
        if (await handBackJob(this.deps.db, r.job)) this.deps.log.warn({ job: r.job.id }, 'job handed back at shutdown');
      }
    }
  }

  private until(when: () => boolean): Promise<void> {
    if (when()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ when, resolve }));
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => w.when());
    this.waiters = this.waiters.filter((w) => !w.when());
    for (const w of ready) w.resolve();
  }

  /** Run job `id` once a render thread is there for it. */
  private async run(id: string, teamId: string): Promise<void> {
    let resolved = false;
    await this.deps.pool.withThread(teamId, async (render) => {
      if (this.stopped) return;
      const job = await claimJob(this.deps.db, id);
      if (!job) return;
      const running: Running = { job, current: true };
      this.claimed.add(running);
      try {
        resolved = await processJob(this.deps, job, render, { current: () => running.current });
      } finally {
        this.claimed.delete(running);
      }
    });
    if (resolved) this.deps.onResolved();
  }
}

/** Resolves true when `p` settles within `ms`, false when the time runs out first. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms === Infinity) {
    await p;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ProcessOptions {
  /** False once the job was handed back: its outcome is then not written. Default: always true. */
  current?: () => boolean;
  /** Runs in the transaction that completes or fails the job, with its webhook delivery's row id. */
  webhook?: InTransaction;
}

/**
 * Render claimed job `job` on `render`, store or upload the PDF, and complete the job; fail it
 * (with its refund) on a render, storage or upload failure. Both writes are fenced on this start
 * (completeJob, failJob). @returns whether this call resolved the job.
 */
export async function processJob(deps: Pick<RunnerDeps, 'db' | 'files' | 's3' | 'log' | 'secrets' | 'images'>, job: JobRow, render: RenderOnThread, opts: ProcessOptions = {}): Promise<boolean> {
  const { db, files, s3, log } = deps;
  const current = opts.current ?? (() => true);
  const id = job.id;
  // An image job renders one page as PNG or JPEG through the same thread (jobs.output, image_options).
  const image = imageTaskOf(job);
  if (image) {
    const onThread = render;
    render = Object.assign((input: RenderInput) => onThread({ ...input, pdfVariant: undefined, image }), { check: onThread.check });
  }
  try {
    // S3 output uploads with the integration as it is now (the request checked there was one).
    const integration = job.storeS3 ? await findS3Integration(db, job.teamId) : undefined;
    if (job.storeS3 && !integration) {
      throw new JobFailure('S3_INTEGRATION_MISSING', 'the team has no S3 integration any more (it was removed after the job was queued); configure one with POST /v1/integrations/s3');
    }
    // The data is parsed here only when its image sources must be found; the render thread parses it itself.
    const data = mayNeedSources(job.definition) ? JSON.parse(job.data) : undefined;
    const protection = job.protectionEnc ? openProtection(deps.secrets, job.protectionEnc) : undefined;
    // URL and asset images are fetched now, when the job runs (an asset deleted since fails it).
    let images: Map<string, Uint8Array> | undefined;
    try {
      // (a large definition's sources found on the thread this job holds: it must not wait for another)
      images = data === undefined ? undefined : ((await deps.images?.resolve(job.teamId, job.definition, data, undefined, render)) ?? undefined);
    } catch (e) {
      if (e instanceof ImageSourceFailure) throw new JobFailure(e.code, e.message);
      throw e;
    }
    const { pdf, warnings } = await render({ definitionJson: job.definition, dataJson: job.data, pdfVariant: (job.pdfVariant ?? undefined) as PdfVariant | undefined, images, protection });
    if (warnings.length > 0) log.warn({ job: id, template: job.templateId, warnings: warnings.length }, 'rendered with warnings');
    const filename = `${job.filename}.${image ? IMAGE_EXTENSIONS[image.format] : 'pdf'}`;
    if (integration) {
      const loc = s3Location(integration, filename, { bucket: job.s3Bucket, prefix: job.s3Filepath });
      try {
        await s3.upload(integration, loc, pdf, contentTypeOf(filename));
      } catch (e) {
        if (e instanceof S3Failure) throw new JobFailure('S3_UPLOAD_FAILED', `the upload to bucket "${loc.bucket}" failed: ${e.message}`);
        throw e;
      }
      if (!current()) return false;
      return await completeJob(db, job, { filename, s3Bucket: loc.bucket, s3Key: loc.key, warnings }, opts.webhook);
    } else {
      const stored = await files.save(job.teamId, filename, pdf, job.expiration);
      if (!current()) return false;
      return await completeJob(db, job, { url: stored.url, filename, expiresAt: stored.expiresAt, warnings }, opts.webhook);
    }
  } catch (e) {
    // A job handed back (its render stopped with the pool at shutdown) runs again elsewhere.
    if (!current()) return false;
    if (e instanceof JobFailure || e instanceof RenderFailure || e instanceof StorageFailure) {
      log.warn({ job: id, team: job.teamId, code: e.code, message: e.message }, 'job failed');
      return failJob(db, job, e.code, e.message, opts.webhook);
    }
    log.error({ err: e, job: id }, 'job failed unexpectedly');
    return failJob(db, job, 'RENDER_ERROR', 'rendering failed', opts.webhook);
  }
}
