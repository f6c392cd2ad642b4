/**
 * Dependency checks for GET /healthz and GET /readyz: each dependency is asked a trivial question
 * with a deadline; the answer says which ones answered and how fast.
 */
import type { Db } from '../../db/database.ts';

/** One dependency's state: `ok` with the round trip in ms, or `error` with the reason. */
export type DependencyCheck = { status: 'ok'; ms: number } | { status: 'error'; error: string };

export interface HealthReport {
  /** `ok` when every dependency answered in time, else `unavailable`. */
  status: 'ok' | 'unavailable';
  checks: { database: DependencyCheck & { engine: Db['dialect'] } };
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

/** Ask every dependency (the database) within `timeoutMs` each (PLATEN_HEALTH_TIMEOUT_MS). */
export async function healthReport(db: Db, timeoutMs: number): Promise<HealthReport> {
  const database = await check(() => db.ping(), timeoutMs);
  return { status: database.status === 'ok' ? 'ok' : 'unavailable', checks: { database: { ...database, engine: db.dialect } } };
}
