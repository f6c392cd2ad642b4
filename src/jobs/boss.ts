/**
 * The job queue of cluster mode (PLATEN_DATABASE_URL): pg-boss 10 in the same PostgreSQL database,
 * for render jobs and webhook deliveries, shared by every Platen process of the cluster.
 *
 * - A job is sent to pg-boss in the transaction that writes its row and takes its credit
 *   (insertJob with {@link ClusterQueue.enqueueIn}: pg-boss's `db` option runs the INSERT on the
 *   transaction's client), so a job is queued if and only if it was accepted and paid for. The
 *   pg-boss job's id is the Platen job's id: sending it again changes nothing.
 * - Workers (role worker or all) fetch jobs with FOR UPDATE SKIP LOCKED (pg-boss `fetch`), at most
 *   PLATEN_JOB_CONCURRENCY at once per process, and hold each for PLATEN_JOB_LEASE_MS (pg-boss's
 *   expiration). A worker that dies holds its jobs until their lease runs out; pg-boss's
 *   maintenance then puts them back (retry) and another worker takes them. Delivery is at least
 *   once; completion is exactly once: the job row moves processing -> completed (or failed, with its
 *   refund) under a fence on its start number, so a stale or second run changes nothing, and the
 *   ledger's unique keys let one refund per job through.
 * - The poison-job limit: a job found still processing when it is taken again was started before
 *   and never finished (its worker died, or its lease ran out). After PLATEN_JOB_MAX_ATTEMPTS such
 *   starts it fails for good with RENDER_CRASHED, its refund and its pdf.failed webhook.
 * - pg-boss retries a job whose handling threw (the database went away mid-job) a few times; when
 *   it gives up, the job goes to the dead-letter queue, whose handler fails it for good (refunded).
 * - A webhook delivery is a pg-boss job too, sent in the transaction that resolves the job. An
 *   attempt that fails with a retry due sends the next attempt's job (startAfter: 1 s, 5 s, 30 s,
 *   PLATEN_WEBHOOK_RETRY_DELAYS) in the transaction that records it. Every attempt carries the
 *   delivery's X-Platen-Delivery id, so a receiver drops the duplicates at-least-once brings.
 * - Shutdown: stop fetching, wait up to PLATEN_SHUTDOWN_TIMEOUT_MS for running jobs, hand the rest
 *   back (row pending again, start not counted; pg-boss job failed into its retry state).
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { PostgresDb } from '../../db/postgres.ts';
import type { Db } from '../../db/database.ts';
import { failJob, handBackJob, claimJobForRun, type InTransaction, type JobRow } from '../services/jobs.ts';
import type { WebhookDeliverer } from '../webhooks/deliverer.ts';
import { processJob, settlesWithin, type JobQueue, type RunnerDeps } from './runner.ts';
import { eq, and } from 'drizzle-orm';

export const RENDER_QUEUE = 'platen-render';
export const RENDER_DEAD_QUEUE = 'platen-render-dead';
export const WEBHOOK_QUEUE = 'platen-webhook';
export const WEBHOOK_DEAD_QUEUE = 'platen-webhook-dead';
/** The advisory lock key held while pg-boss installs or migrates its schema ("boss"). */
const INSTALL_LOCK = 0x626f7373;
/** pg-boss's tables live in this PostgreSQL schema of the Platen database. */
export const BOSS_SCHEMA = 'pgboss';

/** Retries pg-boss makes of a job whose handling threw or whose lease ran out, beyond the poison limit. */
const EXTRA_RETRIES = 3;
/** Seconds before pg-boss retries a job whose handling threw. */
const RETRY_DELAY_S = 2;
/** A webhook attempt's lease: its HTTP deadline (10 s) and room around it, seconds. */
const WEBHOOK_LEASE_S = 40;
/** Idle polling interval of the dead-letter queues, ms. */
const DEAD_LETTER_POLL_MS = 5000;

interface RenderData {
  job: string;
  team: string;
}
interface WebhookData {
  delivery: number;
}

export interface ClusterQueueOptions {
  /** Fetch and run jobs and webhook deliveries here (roles worker and all); false: only send (role api). */
  consume: boolean;
  /** Jobs run at once by this process (PLATEN_JOB_CONCURRENCY). */
  concurrency: number;
  /** Starts of a job cut short before it fails for good (PLATEN_JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** How long a worker holds a job before it is handed to another, ms (PLATEN_JOB_LEASE_MS). */
  leaseMs: number;
  /** Idle polling interval, ms (PLATEN_QUEUE_POLL_MS). */
  pollMs: number;
}

/** pg-boss's `db` option over a Platen handle: inside a transaction, its client. */
function bossDb(db: Db): PgBoss.Db {
  return { executeSql: (text, values) => (db as PostgresDb).executeSql(text, values) };
}

/** One fetch loop: a queue, how many of its jobs may run at once here, and what runs one. */
interface Consumer<T> {
  queue: string;
  slots: number;
  /** Idle polling interval, ms. */
  pollMs: number;
  handle: (job: PgBoss.Job<T>) => Promise<void>;
  active: Map<string, { job: PgBoss.Job<T>; done: Promise<void> }>;
  wake: (() => void) | null;
  loop: Promise<void> | null;
}

/** A render job being processed here: the row as claimed, and whether it is still ours. */
interface Claimed {
  row: JobRow;
  current: boolean;
}

export class ClusterQueue implements JobQueue {
  private readonly boss: PgBoss;
  private stopping = false;
  private readonly consumers: Consumer<any>[] = [];
  /** Render jobs claimed here, by pg-boss job id. */
  private readonly claimed = new Map<string, Claimed>();

  constructor(
    private readonly deps: RunnerDeps & { db: PostgresDb; deliverer: WebhookDeliverer },
    private readonly opts: ClusterQueueOptions,
  ) {
    this.boss = new PgBoss({
      db: bossDb(deps.db),
      schema: BOSS_SCHEMA,
      migrate: true,
      supervise: true,
      schedule: false,
      // Maintenance moves jobs whose lease ran out back to the queue: often enough for the lease.
      maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.round(opts.leaseMs / 4000))),
    });
    this.boss.on('error', (err) => deps.log.error({ err }, 'job queue error'));
  }

  /**
   * Install or update pg-boss's schema and create the queues, under an advisory lock held on a
   * connection of its own: pg-boss's install is not safe against processes that start together.
   */
  async open(): Promise<void> {
    const lock = new pg.Client(this.deps.db.pool.options);
    await lock.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [INSTALL_LOCK]);
      await this.boss.start();
      for (const name of [RENDER_DEAD_QUEUE, WEBHOOK_DEAD_QUEUE, RENDER_QUEUE, WEBHOOK_QUEUE]) await this.boss.createQueue(name);
      await this.queueOrphans();
    } finally {
      await lock.end().catch(() => {}); // ending the session frees the lock
    }
  }

  /**
   * Queue the unfinished work that has no pg-boss job: jobs and webhook deliveries a Platen
   * version before the pg-boss queue left pending or processing in this database (a job's row and
   * its pg-boss job are otherwise written in one transaction, so a current process leaves none).
   * Run under the install lock, so two processes starting together queue each one once; sending
   * a job again is harmless anyway (its pg-boss id is the job's id).
   * @returns how many jobs and deliveries were queued.
   */
  private async queueOrphans(): Promise<{ jobs: number; deliveries: number }> {
    const { db, log } = this.deps;
    const live = `('created', 'retry', 'active')`;
    const { rows: jobs } = await db.executeSql(
      `SELECT j.id, j.team_id FROM jobs j
        WHERE j.status IN ('pending', 'processing')
          AND NOT EXISTS (SELECT 1 FROM ${BOSS_SCHEMA}.job b WHERE b.name IN ($1, $2) AND b.data->>'job' = j.id AND b.state IN ${live})`,
      [RENDER_QUEUE, RENDER_DEAD_QUEUE],
    );
    for (const row of jobs as { id: string; team_id: string }[]) {
      // (A fresh pg-boss id: the job's own may still name an ended pg-boss job. claimJobForRun
      // fences this run as any other.)
      await this.boss.send(RENDER_QUEUE, { job: row.id, team: row.team_id } satisfies RenderData, this.renderOptions);
    }
    const { rows: deliveries } = await db.executeSql(
      `SELECT d.id FROM webhook_deliveries d
        WHERE d.status = 'pending'
          AND NOT EXISTS (SELECT 1 FROM ${BOSS_SCHEMA}.job b WHERE b.name IN ($1, $2) AND b.data->>'delivery' = d.id::text AND b.state IN ${live})`,
      [WEBHOOK_QUEUE, WEBHOOK_DEAD_QUEUE],
    );
    for (const row of deliveries as { id: number | string }[]) await this.sendWebhook(null, Number(row.id), 0);
    if (jobs.length + deliveries.length > 0) log.warn({ jobs: jobs.length, deliveries: deliveries.length }, 'queued unfinished work that had no queue entry (left by an earlier version)');
    return { jobs: jobs.length, deliveries: deliveries.length };
  }

  private get renderOptions(): PgBoss.SendOptions {
    return {
      retryLimit: this.opts.maxAttempts + EXTRA_RETRIES,
      retryDelay: RETRY_DELAY_S,
      expireInSeconds: Math.ceil(this.opts.leaseMs / 1000),
      deadLetter: RENDER_DEAD_QUEUE,
    };
  }

  readonly kind = 'pg-boss';

  /** For /healthz and /readyz: resolves when pg-boss's queue table answers and holds the render queue. */
  async ping(): Promise<void> {
    const { rows } = await this.deps.db.executeSql(`SELECT 1 FROM ${BOSS_SCHEMA}.queue WHERE name = $1`, [RENDER_QUEUE]);
    if (rows.length === 0) throw new Error(`the queue ${RENDER_QUEUE} does not exist`);
  }

  /**
   * insertJob's in-transaction hook for team `teamId`'s job: the pg-boss send on its client. Workers
   * fetch by priority, then oldest first; a job's priority is minus the number of its team's jobs
   * already waiting, so the teams' n-th waiting jobs come before their (n+1)-th ones: teams take
   * turns across the queue, and one team's backlog does not hold up another team's job.
   */
  inTransaction(teamId: string): InTransaction {
    return async (tx, id) => {
      const { rows } = await (tx as PostgresDb).executeSql(`SELECT count(*)::int AS n FROM jobs WHERE team_id = $1 AND status = 'pending' AND id <> $2`, [teamId, id]);
      const waiting = Number((rows[0] as { n: number } | undefined)?.n ?? 0);
      await this.boss.send(RENDER_QUEUE, { job: id, team: teamId } satisfies RenderData, { ...this.renderOptions, id, db: bossDb(tx), priority: -Math.min(waiting, 2 ** 31 - 1) });
    };
  }

  enqueue(id: string, teamId: string): void {
    this.boss
      .send(RENDER_QUEUE, { job: id, team: teamId } satisfies RenderData, { ...this.renderOptions, id })
      .catch((err) => this.deps.log.error({ err, job: id }, 'could not queue the job'));
  }

  /** The in-transaction hook that queues a job's webhook delivery (its row id) at once. */
  readonly webhookIn: InTransaction = async (tx, rowId) => {
    await this.sendWebhook(tx, Number(rowId), 0);
  };

  private async sendWebhook(db: Db | null, rowId: number, delayMs: number): Promise<void> {
    await this.boss.send(WEBHOOK_QUEUE, { delivery: rowId } satisfies WebhookData, {
      retryLimit: EXTRA_RETRIES,
      retryDelay: RETRY_DELAY_S,
      expireInSeconds: WEBHOOK_LEASE_S,
      deadLetter: WEBHOOK_DEAD_QUEUE,
      ...(delayMs > 0 ? { startAfter: new Date(Date.now() + delayMs) } : {}),
      ...(db ? { db: bossDb(db) } : {}),
    });
  }

  async start(): Promise<number> {
    if (!this.opts.consume) return 0;
    const slots = this.opts.concurrency;
    const poll = this.opts.pollMs;
    // The dead-letter queues see a job only after repeated errors: looked at less often.
    const deadPoll = Math.max(DEAD_LETTER_POLL_MS, poll);
    this.consume<RenderData>(RENDER_QUEUE, slots, poll, (job) => this.runRender(job));
    this.consume<WebhookData>(WEBHOOK_QUEUE, Math.max(4, slots), poll, (job) => this.runWebhook(job));
    this.consume<RenderData>(RENDER_DEAD_QUEUE, 1, deadPoll, (job) => this.runDeadRender(job));
    this.consume<WebhookData>(WEBHOOK_DEAD_QUEUE, 1, deadPoll, (job) => this.runDeadWebhook(job));
    return 0;
  }

  private consume<T>(queue: string, slots: number, pollMs: number, handle: (job: PgBoss.Job<T>) => Promise<void>): void {
    const c: Consumer<T> = { queue, slots, pollMs, handle, active: new Map(), wake: null, loop: null };
    this.consumers.push(c);
    c.loop = this.loop(c);
  }

  /** Sleep `ms` or until woken (a slot freed, or stop). */
  private nap<T>(c: Consumer<T>, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        c.wake = null;
        resolve();
      }
      c.wake = done;
    });
  }

  /** Fetch as many jobs as there are free slots; start each; poll while there are none. */
  private async loop<T>(c: Consumer<T>): Promise<void> {
    while (!this.stopping) {
      const free = c.slots - c.active.size;
      if (free <= 0) {
        await this.nap(c, 60_000);
        continue;
      }
      let jobs: PgBoss.Job<T>[];
      try {
        jobs = (await this.boss.fetch<T>(c.queue, { batchSize: free })) ?? [];
      } catch (err) {
        if (this.stopping) break;
        this.deps.log.error({ err, queue: c.queue }, 'fetching from the job queue failed');
        await this.nap(c, Math.max(1000, c.pollMs));
        continue;
      }
      if (this.stopping) {
        // Taken just as the process stops: straight back to the queue.
        if (jobs.length > 0) await this.boss.fail(c.queue, jobs.map((j) => j.id)).catch(() => {});
        break;
      }
      for (const job of jobs) {
        const done = this.runOne(c, job);
        c.active.set(job.id, { job, done });
      }
      if (jobs.length === 0) await this.nap(c, c.pollMs);
    }
  }

  private async runOne<T>(c: Consumer<T>, job: PgBoss.Job<T>): Promise<void> {
    try {
      await c.handle(job);
      if (!this.stopping || c.active.has(job.id)) await this.boss.complete(c.queue, job.id);
    } catch (err) {
      // (A job handed back at shutdown is no longer in `active`: it went back to the queue already.)
      if (!this.stopping) this.deps.log.error({ err, queue: c.queue, job: job.id }, 'queued work failed; the queue retries it');
      if (!this.stopping || c.active.has(job.id)) await this.boss.fail(c.queue, job.id, { message: (err as Error).message }).catch(() => {});
    } finally {
      c.active.delete(job.id);
      c.wake?.();
    }
  }

  /** A render job: claim it once a render thread is there, run it, or fail it for good when poisoned. */
  private async runRender(job: PgBoss.Job<RenderData>): Promise<void> {
    const { db, pool, log } = this.deps;
    const { job: id, team } = job.data;
    await pool.withThread(team, async (render) => {
      if (this.stopping) throw new Error('stopping');
      const outcome = await claimJobForRun(db, id, this.opts.maxAttempts);
      if ('done' in outcome) return;
      if ('poisoned' in outcome) {
        const row = outcome.poisoned;
        const times = row.attempts === 1 ? 'once' : `${row.attempts} times`;
        if (await failJob(db, row, 'RENDER_CRASHED', `the render of this job was cut short ${times} (its worker stopped, or it ran past its lease); it is not run again`, this.webhookIn)) {
          log.warn({ job: id, attempts: row.attempts }, 'job interrupted too often failed for good');
        }
        return;
      }
      const claimed: Claimed = { row: outcome.run, current: true };
      this.claimed.set(job.id, claimed);
      try {
        await processJob(this.deps, outcome.run, render, { current: () => claimed.current, webhook: this.webhookIn });
      } finally {
        this.claimed.delete(job.id);
      }
    });
  }

  /** pg-boss gave up on a render job (its handling kept failing): fail it for good, refunded. */
  private async runDeadRender(job: PgBoss.Job<RenderData>): Promise<void> {
    const { db, log } = this.deps;
    const outcome = await claimJobForRun(db, job.data.job, Number.MAX_SAFE_INTEGER);
    const row = 'run' in outcome ? outcome.run : 'poisoned' in outcome ? outcome.poisoned : undefined;
    if (!row) return;
    if (await failJob(db, row, 'RENDER_CRASHED', 'the job could not be run (the queue gave up on it after repeated errors); it is not run again', this.webhookIn)) {
      log.warn({ job: row.id }, 'job failed for good from the dead-letter queue');
    }
  }

  /** One webhook attempt; a retry due is the next pg-boss job, sent with the attempt's record. */
  private async runWebhook(job: PgBoss.Job<WebhookData>): Promise<void> {
    await this.deps.deliverer.attemptById(job.data.delivery, (tx, rowId, delayMs) => this.sendWebhook(tx, rowId, delayMs));
  }

  /** pg-boss gave up on a webhook attempt: the delivery fails for good. */
  private async runDeadWebhook(job: PgBoss.Job<WebhookData>): Promise<void> {
    const { orm, t: { webhookDeliveries: d } } = this.deps.db;
    await orm
      .update(d)
      .set({ status: 'failed', lastError: 'the delivery could not be attempted (the queue gave up on it after repeated errors)', updatedAt: new Date().toISOString() })
      .where(and(eq(d.id, job.data.delivery), eq(d.status, 'pending')));
  }

  /**
   * Stop fetching; wait up to `timeoutMs` for what runs here; hand back render jobs still running
   * (row pending again, start not counted) and return every unfinished pg-boss job to the queue.
   */
  async stop(timeoutMs = Infinity): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const c of this.consumers) c.wake?.();
    await Promise.all(this.consumers.map((c) => c.loop));
    const running = this.consumers.flatMap((c) => [...c.active.values()].map((a) => a.done));
    if (!(await settlesWithin(Promise.all(running), timeoutMs))) {
      for (const c of this.consumers) {
        const left = [...c.active.keys()];
        if (left.length === 0) continue;
        for (const id of left) {
          const claimed = this.claimed.get(id);
          if (claimed) {
            claimed.current = false;
            if (await handBackJob(this.deps.db, claimed.row).catch(() => false)) this.deps.log.warn({ job: claimed.row.id }, 'job handed back at shutdown');
          }
          c.active.delete(id);
        }
        await this.boss.fail(c.queue, left).catch((err) => this.deps.log.error({ err }, 'could not hand jobs back'));
      }
    }
    await this.boss.stop({ graceful: false, close: false, wait: true }).catch((err) => this.deps.log.error({ err }, 'job queue stop failed'));
  }
}
