/**
 * At most a number of tasks of one team at once in this process, the others waiting their turn (in
 * order) for a bounded time. Used for image fetches: one render fetches at most 4 images at once,
 * but 80 renders of one team at once fetched 320, holding their bytes and the HTTP thread's TLS
 * work while other teams' requests waited.
 */
export class TeamSlots {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** @param limit tasks of one team running at once. */
  constructor(readonly limit: number) {}

  /**
   * Run `task` in one of `team`'s slots, waiting at most `waitMs` for one.
   * @throws the error `tooLong()` makes when no slot came free in time (the task is not run), or what `task` throws.
   */
  async run<T>(team: string, waitMs: number, tooLong: () => Error, task: () => Promise<T>): Promise<T> {
    const running = this.active.get(team) ?? 0;
    if (running < this.limit) this.active.set(team, running + 1);
    else await this.turn(team, waitMs, tooLong);
    try {
      return await task();
    } finally {
      this.release(team);
    }
  }

  /** Tasks of `team` running now. */
  running(team: string): number {
    return this.active.get(team) ?? 0;
  }

  /** Wait until a running task hands its slot over (the count stays as it is). */
  private turn(team: string, waitMs: number, tooLong: () => Error): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.waiting.get(team);
      if (!queue) this.waiting.set(team, (queue = []));
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const q = this.waiting.get(team);
        const at = q?.indexOf(go) ?? -1;
        if (at >= 0) q!.splice(at, 1);
        if (q && q.length === 0) this.waiting.delete(team);
        reject(tooLong());
      }, waitMs);
      queue.push(go);
    });
  }

  private release(team: string): void {
    const queue = this.waiting.get(team);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(team);
    if (next) return next(); // the slot passes to the next task of the team
    const left = (this.active.get(team) ?? 1) - 1;
    if (left > 0) this.active.set(team, left);
    else this.active.delete(team);
  }
}
