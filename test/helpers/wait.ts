/** Bounded waiting for tests: every wait has a deadline and says what it was waiting for. */
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/**
 * Call `probe` every `intervalMs` until it returns something other than undefined/false, and
 * return that. @throws an Error naming `what` when `timeoutMs` passes first.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await sleep(intervalMs);
  }
}
