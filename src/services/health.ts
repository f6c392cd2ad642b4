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
  };
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

/** Ask every dependency (the database, the file store when given) at once, within `timeoutMs` each (PLATEN_HEALTH_TIMEOUT_MS). */
export async function healthReport(db: Db, timeoutMs: number, store?: BlobStore): Promise<HealthReport> {
  const [database, stored] = await Promise.all([check(() => db.ping(), timeoutMs), store ? check(() => store.ping(), timeoutMs) : undefined]);
  const checks: HealthReport['checks'] = { database: { ...database, engine: db.dialect } };
  if (store && stored) checks.store = { ...stored, kind: store.kind, location: store.location };
  const ok = database.status === 'ok' && (stored === undefined || stored.status === 'ok');
  return { status: ok ? 'ok' : 'unavailable', checks };
}
