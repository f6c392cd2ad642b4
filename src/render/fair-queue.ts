/**
 * Fair admission of work from several teams to a fixed number of slots (render threads, job
 * runner places). Each key (a team id) has its own FIFO. A free slot goes to the key, among those
 * with work waiting and fewer than `perKey` slots held, that holds the fewest slots, and among
 * those to the one served least recently (round-robin). So one team's slow work holds at most
 * `perKey` slots while the others' work keeps moving, and teams take turns.
 */

/** Limits of a {@link FairQueue}. */
export interface FairQueueLimits {
  /** Slots in all (at least 1). */
  slots: number;
  /** Slots one key may hold at once (at least 1; at most `slots` has effect). */
  perKey: number;
  /** The cap of one key, read each time a slot is handed out; default: `perKey` for every key. */
  capOf?: (key: string) => number;
}

/** Gives a held slot back; calling it again does nothing. */
export type Release = () => void;

export class FairQueue {
  /** Waiting grants by key. */
  private readonly waiting = new Map<string, Array<(release: Release) => void>>();
  private readonly held = new Map<string, number>();
  /** When each key with slots held or work waiting was last served (a rising counter). */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private inUse = 0;
  private waitingCount = 0;

  constructor(private readonly limits: FairQueueLimits) {
    if (!(limits.slots >= 1 && limits.perKey >= 1)) throw new RangeError('slots and perKey must be at least 1');
  }

  /** Resolve with a {@link Release} once `key` is granted a slot; the caller must release it. */
  acquire(key: string): Promise<Release> {
    return new Promise((grant) => {
      let queue = this.waiting.get(key);
      if (!queue) this.waiting.set(key, (queue = []));
      queue.push(grant);
      this.waitingCount++;
      this.pump();
    });
  }

  /** Run `work` in a slot of `key` and release the slot when it settles. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const release = await this.acquire(key);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Drop every waiting grant (they never resolve); held slots are unaffected. @returns how many. */
  clear(): number {
    const n = this.waitingCount;
    for (const key of this.waiting.keys()) if (!this.held.has(key)) this.lastServed.delete(key);
    this.waiting.clear();
    this.waitingCount = 0;
    return n;
  }

  /** Grants waiting. */
  get pending(): number {
    return this.waitingCount;
  }

  /** Slots held. */
  get running(): number {
    return this.inUse;
  }

  private pump(): void {
    while (this.inUse < this.limits.slots && this.waitingCount > 0) {
      const key = this.nextKey();
      if (key === undefined) return;
      const queue = this.waiting.get(key)!;
      const grant = queue.shift()!;
      this.waitingCount--;
      if (queue.length === 0) this.waiting.delete(key);
      this.lastServed.set(key, ++this.served);
      this.inUse++;
      this.held.set(key, (this.held.get(key) ?? 0) + 1);
      let released = false;
      grant(() => {
        if (released) return;
        released = true;
        this.inUse--;
        const n = this.held.get(key)! - 1;
        if (n > 0) this.held.set(key, n);
        else {
          this.held.delete(key);
          if (!this.waiting.has(key)) this.lastServed.delete(key);
        }
        this.pump();
      });
    }
  }

  /** The waiting key below its cap holding the fewest slots, served least recently; undefined if none may take one. */
  private nextKey(): string | undefined {
    let best: string | undefined;
    let bestHeld = Infinity;
    let bestServed = Infinity;
    for (const key of this.waiting.keys()) {
      const held = this.held.get(key) ?? 0;
      if (held >= (this.limits.capOf?.(key) ?? this.limits.perKey)) continue;
      const served = this.lastServed.get(key) ?? 0;
      if (held < bestHeld || (held === bestHeld && served < bestServed)) {
        best = key;
        bestHeld = held;
        bestServed = served;
      }
    }
    return best;
  }
}
