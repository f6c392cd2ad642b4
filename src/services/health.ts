/**
 * Dependency checks for GET /healthz and GET /readyz: each dependency is asked a trivial question
 * with a deadline; the answer says which ones answered and how fast.
 */
import type { Db } from '../../db/database.ts';
import type { BlobStore } from '../storage/store.ts';

/** One dependency's state: `ok` with the round trip in ms, or `error` with the reason. */
export type DependencyCheck = { status: 'ok'; ms: number } | { status: 'error'; error: string };

export interface HealthReport {
  /** `ok` when every dependency answered in time, else `unavailable`. */
  status: 'ok' | 'unavailable';
  checks: {
    database: DependencyCheck & { engine: Db['dialect'] };
    /** The file store: `local` (its folder is writable) or `s3` (HEAD bucket answered); `location` says where. */
    store?: DependencyCheck & { kind: BlobStore['kind']; location: string };
    /** Cluster mode: the shared job queue (pg-boss's tables in the database) answered. */
    queue?: DependencyCheck & { kind: string };
  };
}

/** A job queue that can be asked whether it is there (cluster mode's pg-boss). */
export interface QueueProbe {
  readonly kind: string;
  ping(): Promise<void>;
}

async function check(probe: () => Promise<void>, timeoutMs: number): Promise<DependencyCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok', ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (e) {
    return { status: 'error', error: (e as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Ask every dependency (the database, the file store and the job queue when given) at once, within `timeoutMs` each (PLATEN_HEALTH_TIMEOUT_MS). */
export async function healthReport(db: Db, timeoutMs: number, store?: BlobStore, queue?: QueueProbe): Promise<HealthReport> {
  const [database, stored, queued] = await Promise.all([
    check(() => db.ping(), timeoutMs),
    store ? check(() => store.ping(), timeoutMs) : undefined,
    queue ? check(() => queue.ping(), timeoutMs) : undefined,
  ]);
  const checks: HealthReport['checks'] = { database: { ...database, engine: db.dialect } };
  if (store && stored) checks.store = { ...stored, kind: store.kind, location: store.location };
  if (queue && queued) checks.queue = { ...queued, kind: queue.kind };
  const ok = database.status === 'ok' && (stored === undefined || stored.status === 'ok') && (queued === undefined || queued.status === 'ok');
  return { status: ok ? 'ok' : 'unavailable', checks };
}
