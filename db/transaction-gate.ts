/**
 * One transaction at a time on a single SQLite connection, and no stranger inside it.
 *
 * SQLite runs every statement of one connection in whatever transaction is open on it. With an
 * asynchronous transaction callback, other requests' code runs while the callback awaits; a
 * statement of theirs issued then would land inside the transaction (and be rolled back with it,
 * or commit the callback's half-done work). The gate prevents that: a transaction holds it from
 * BEGIN to COMMIT or ROLLBACK, and its callback's code carries the holder's token in an
 * AsyncLocalStorage. A statement runs at once when the gate is free or when its own async context
 * holds it; any other waits until the transaction ends. Waiting is asynchronous: the event loop
 * goes on, and a transaction's own statements are never behind a waiter.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export class TransactionGate {
  private readonly context = new AsyncLocalStorage<object>();
  private holder: object | null = null;
  private released: Promise<void> | null = null;
  private release: (() => void) | null = null;

  /** True when a transaction is open and the caller's code is not part of it. */
  blocks(): boolean {
    return this.holder !== null && this.context.getStore() !== this.holder;
  }

  /** True when the caller's code runs inside the open transaction. */
  holds(): boolean {
    return this.holder !== null && this.context.getStore() === this.holder;
  }

  /** Resolves when the current transaction ends (check `blocks()` again: another may have begun). */
  whenReleased(): Promise<void> {
    this.released ??= new Promise<void>((resolve) => (this.release = resolve));
    return this.released;
  }

  /**
   * Wait for the gate, hold it while `work` runs (its async context carries the token), then free
   * it. Reentrant: called from inside the holder's own code, `work` simply runs.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.holds()) return work();
    // Check and take in one synchronous step after each wake-up, so nothing slips in between.
    while (this.holder !== null) await this.whenReleased();
    const token = {};
    this.holder = token;
    try {
      return await this.context.run(token, work);
    } finally {
      this.holder = null;
      const release = this.release;
      this.released = null;
      this.release = null;
      release?.();
    }
  }
}
