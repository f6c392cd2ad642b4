/**
 * Webhook delivery (spec §6): one POST per resolved job, signed with HMAC-SHA256 over
 * "<timestamp>.<raw body>" when the job has a secret (§6.3), retried on network errors and 5xx with
 * the delays of PLATEN_WEBHOOK_RETRY_DELAYS (§6.4), never on 4xx, never following redirects.
 * Deliveries live in the database, so a pending retry survives a restart; an attempt first leases
 * its row with a conditional UPDATE, so one process makes it even when several share the database.
 * Every attempt of one delivery carries the same X-Platen-Delivery id (a UUID), so a receiver can
 * drop duplicates. The target's address is checked again at connection time (DNS can change).
 *
 * In cluster mode the scheduling here (kick, timers) is not used: each attempt is a pg-boss job
 * (src/jobs/boss.ts) that calls attemptById, and a retry is the next pg-boss job, sent in the
 * transaction that records the failed attempt.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { and, asc, eq, lte, min } from 'drizzle-orm';
import type { Db, Tables } from '../../db/database.ts';
import type { Logger } from '../logger.ts';
import { isIP } from 'node:net';
import { isPublicAddress, publicOnlyLookup } from '../services/network.ts';
import type { SecretBox } from '../services/secrets.ts';

export interface DelivererOptions {
  /** Delay before retry 1, 2, ... in milliseconds. */
  retryDelays: number[];
  allowPrivate: boolean;
  /** Per-attempt time limit. Default 10 s. */
  timeoutMs?: number;
}

type Delivery = Tables['webhookDeliveries']['$inferSelect'];
/** Runs in the transaction that records a failed attempt whose retry is due in `delayMs`. */
export type ScheduleRetry = (tx: Db, deliveryRowId: number, delayMs: number) => Promise<void>;
/** An answer, or a failure: `retry` false for targets that will never be allowed (no point retrying). */
type Outcome = { status: number } | { error: string; retry: boolean };

/** The X-Platen-Signature value (§6.3) for a body sent at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<number>();
  private stopped = false;
  private readonly lookup;

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly log: Logger,
    private readonly opts: DelivererOptions,
  ) {
    this.lookup = publicOnlyLookup(opts.allowPrivate);
  }

  /** Attempt every due delivery now, then wake up for the next one. */
  kick(): void {
    this.attemptDue().catch((err) => this.log.error({ err }, 'webhook scheduling failed'));
  }

  private async attemptDue(): Promise<void> {
    if (this.stopped) return;
    const { orm, t: { webhookDeliveries } } = this.db;
    const now = Date.now();
    const due = await orm
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, now)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt));
    for (const d of due) {
      if (this.inFlight.has(d.id) || this.stopped) continue;
      this.inFlight.add(d.id);
      // Lease the row for the attempt's length, so no scheduler (of this process or another on the
      // same database) sees it as due meanwhile; a crash mid-attempt retries it once the lease runs out.
      const leased = await orm
        .update(webhookDeliveries)
        .set({ nextAttemptAt: Date.now() + this.timeoutMs + 1000 })
        .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.nextAttemptAt, d.nextAttemptAt)))
        .returning({ id: webhookDeliveries.id });
      if (leased.length === 0) {
        this.inFlight.delete(d.id);
        continue;
      }
      this.attempt(d)
        .catch((err) => this.log.error({ err, delivery: d.id }, 'webhook attempt crashed'))
        .finally(() => {
          this.inFlight.delete(d.id);
          this.schedule().catch((err) => this.log.error({ err }, 'webhook scheduling failed'));
        });
    }
    await this.schedule();
  }

  /** Arm a timer for the earliest pending delivery. */
  private async schedule(): Promise<void> {
    if (this.stopped) return;
    const { orm, t: { webhookDeliveries } } = this.db;
    const [row] = await orm.select({ at: min(webhookDeliveries.nextAttemptAt) }).from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending'));
    const next = row?.at;
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (next === null || next === undefined) return;
    this.timer = setTimeout(() => this.kick(), Math.max(0, next - Date.now()));
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /**
   * Make one attempt of delivery row `id` now, whatever its next_attempt_at says, and record it;
   * a failed attempt with a retry due runs `retry` in the recording transaction.
   * @returns the delivery's state after the attempt, or null when it is not pending (delivered or
   *   failed already, or gone with its job): nothing was sent.
   */
  async attemptById(id: number, retry: ScheduleRetry): Promise<Delivery['status'] | null> {
    const { orm, t: { webhookDeliveries } } = this.db;
    const [d] = await orm.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    if (!d || d.status !== 'pending') return null;
    return this.attempt(d, retry);
  }

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? 10_000;
  }

  private async attempt(d: Delivery, retry?: ScheduleRetry): Promise<Delivery['status']> {
    let outcome: Outcome;
    try {
      outcome = await this.send(d);
    } catch (err) {
      // Nothing was sent (e.g. the stored secret no longer decrypts: PLATEN_SECRET changed).
      outcome = { error: `not sent: ${(err as Error).message}`, retry: false };
    }
    return this.record(d, outcome, retry);
  }

  private async send(d: Delivery): Promise<Outcome> {
    const { orm, t: { jobs } } = this.db;
    const [job] = await orm.select({ secret: jobs.webhookSecretEnc }).from(jobs).where(eq(jobs.id, d.jobId));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(d.body)),
      'User-Agent': 'Platen-Webhook/1.0',
      'X-Platen-Event': d.event,
      'X-Platen-Timestamp': String(timestamp),
    };
    if (d.deliveryId) headers['X-Platen-Delivery'] = d.deliveryId;
    if (job?.secret) {
      let secret: string;
      try {
        secret = this.secrets.open(job.secret);
      } catch {
        throw new Error('the webhook secret cannot be decrypted (was PLATEN_SECRET changed?)');
      }
      headers['X-Platen-Signature'] = signWebhook(secret, timestamp, d.body);
    }
    return this.post(d.url, d.body, headers);
  }

  private async record(d: Delivery, outcome: Outcome, retry?: ScheduleRetry): Promise<Delivery['status']> {
    const attempts = d.attempts + 1;
    const now = new Date().toISOString();
    let next: Partial<Delivery> & { status: Delivery['status'] };
    let delay: number | undefined;
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      next = { status: 'delivered', lastStatusCode: outcome.status, lastError: null };
    } else {
      const retryable = 'error' in outcome ? outcome.retry : outcome.status >= 500;
      delay = this.opts.retryDelays[attempts - 1];
      const lastStatusCode = 'status' in outcome ? outcome.status : null;
      const lastError = 'error' in outcome ? outcome.error : `HTTP ${outcome.status}`;
      next = retryable && delay !== undefined
        ? { status: 'pending', nextAttemptAt: Date.now() + delay, lastStatusCode, lastError }
        : { status: 'failed', lastStatusCode, lastError };
    }
    await this.db.transaction(async (tx) => {
      const { orm, t: { webhookDeliveries } } = tx;
      await orm.update(webhookDeliveries).set({ ...next, attempts, updatedAt: now }).where(eq(webhookDeliveries.id, d.id));
      if (retry && next.status === 'pending' && delay !== undefined) await retry(tx, d.id, delay);
    });
    this.log.info({ delivery: d.id, job: d.jobId, event: d.event, attempt: attempts, result: next.status, code: next.lastStatusCode }, 'webhook attempt');
    return next.status;
  }

  private post(url: string, body: string, headers: Record<string, string>): Promise<Outcome> {
    return new Promise((resolve) => {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return resolve({ error: 'invalid URL', retry: false });
      }
      const client = u.protocol === 'https:' ? https : http;
      if (u.protocol !== 'https:' && !(this.opts.allowPrivate && u.protocol === 'http:')) return resolve({ error: 'not an https URL', retry: false });
      // Node skips `lookup` for IP-address hosts: check those here.
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (!this.opts.allowPrivate && isIP(host) && !isPublicAddress(host)) {
        return resolve({ error: `webhook target ${host} is not a public address`, retry: false });
      }
      // The deadline covers the whole attempt (connecting, sending, the status line and headers),
      // not only a silence between two packets: a receiver answering a byte at a time cannot hold it.
      const deadline = setTimeout(() => req.destroy(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      const req = client.request(u, { method: 'POST', headers, lookup: this.lookup as never, timeout: this.timeoutMs }, (res) => {
        // The status is the answer. The body is not read: a receiver's endless or trickling body
        // would hold the attempt (and its socket) for ever.
        clearTimeout(deadline);
        resolve({ status: res.statusCode ?? 0 });
        res.on('error', () => {});
        res.destroy();
      });
      req.on('timeout', () => req.destroy(new Error(`timed out after ${this.timeoutMs} ms`)));
      req.on('error', (err) => {
        clearTimeout(deadline);
        resolve({ error: err.message, retry: (err as NodeJS.ErrnoException).code !== 'EPRIVATE' });
      });
      req.end(body);
    });
  }
}
