/**
 * Worker threads that render PDFs (DESIGN §2: rendering never blocks the event loop), sized by
 * PLATEN_RENDER_THREADS and shared by synchronous requests and queued jobs.
 *
 * Every render runs where it can be stopped: each thread has a V8 heap limit
 * (PLATEN_RENDER_MEMORY_MB; its young generation: PLATEN_RENDER_YOUNG_MB, heap.ts), each
 * render a deadline (PLATEN_RENDER_TIMEOUT_MS) after which its thread is terminated, and a
 * thread whose heap stays above PLATEN_RENDER_RECYCLE_MB after its renders is replaced. A
 * thread runs one render at a time, so stopping it stops nothing else. Threads are handed out
 * fairly (fair-queue.ts): one FIFO per team, round-robin, at most PLATEN_RENDER_TEAM_THREADS
 * threads per team at once; and a render running longer than PLATEN_RENDER_SLOW_MS runs at a
 * lower CPU priority, so short renders keep their latency.
 */
import { setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import { DEFAULT_CACHE_MB, DEFAULT_LIMITS, type Limits, type PdfVariant, type Protection, type RenderWarning } from '../../engine/index.ts';
import { DEFAULT_CHECK_IN_THREAD_BYTES, type EngineLimits } from '../config.ts';
import type { Logger } from '../logger.ts';
import { FairQueue, type Release } from './fair-queue.ts';
import { DEFAULT_RENDER_MEMORY_MB, DEFAULT_RENDER_YOUNG_MB, RENDER_V8_FLAGS, renderResourceLimits } from './heap.ts';
import type { CheckOutcome, CheckTask, ImageCheckOutcome, ImageCheckTask, ImageTask, RenderOutcome, RenderTask, RenderWorkerData, ThreadReady } from './task.ts';

export type { CheckOutcome, CheckTask, ImageTask } from './task.ts';

// V8 flags are per process and these are read at allocation time: set when this module loads, they
// hold for every render thread started afterwards (and for the main thread).
for (const flag of RENDER_V8_FLAGS) setFlagsFromString(flag);

/**
 * A failed render: the engine's error code (TEMPLATE_INVALID, LIMIT_EXCEEDED, ...) or the pool's
 * own (RENDER_TIMEOUT, RENDER_MEMORY, RENDER_CRASHED), with the message and the template or data
 * path of the fault when there is one.
 */
export class RenderFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'RenderFailure';
  }
}

/** How renders are bounded; every field has an environment variable (src/config.ts). */
export interface RenderLimits {
  /** V8 old-generation heap limit of one render thread, MiB (PLATEN_RENDER_MEMORY_MB). */
  memoryMb: number;
  /**
   * V8 young generation of one render thread, MiB (PLATEN_RENDER_YOUNG_MB): where a render's
   * short-lived objects are made; smaller keeps the thread's resident memory down, larger means
   * fewer scavenges.
   */
  youngMb: number;
  /** Wall-clock deadline of one render, ms (PLATEN_RENDER_TIMEOUT_MS). */
  timeoutMs: number;
  /** A thread whose heap is above this many MiB after two renders in a row is replaced (PLATEN_RENDER_RECYCLE_MB). */
  recycleMb: number;
  /** Threads one team may hold at once (PLATEN_RENDER_TEAM_THREADS). */
  teamThreads: number;
  /**
   * A render still running after this many ms gives way: its thread's CPU priority is lowered
   * (nice 10, Linux) until it ends, so other teams' short renders and the HTTP thread get the cores
   * first; 0: never (PLATEN_RENDER_SLOW_MS).
   */
  slowMs: number;
  /** Budget of the engine's caches (shaped words, font subsets, images, ...) in one thread, MiB (PLATEN_ENGINE_CACHE_MB). */
  cacheMb: number;
  /**
   * Template definitions whose JSON text is longer than this many bytes are validated (and data
   * checked against them) on a render thread, not on the HTTP thread (PLATEN_CHECK_IN_THREAD_BYTES):
   * a small one takes a few ms here, where it needs no wait for a thread.
   */
  checkInThreadBytes: number;
}


/** Defaults for `threads` render threads. */
export function defaultRenderLimits(threads: number): RenderLimits {
  return { memoryMb: DEFAULT_RENDER_MEMORY_MB, youngMb: DEFAULT_RENDER_YOUNG_MB, timeoutMs: 30_000, recycleMb: 256, teamThreads: Math.max(1, threads - 1), slowMs: 1000, cacheMb: DEFAULT_CACHE_MB, checkInThreadBytes: DEFAULT_CHECK_IN_THREAD_BYTES };
}

/** One render's input. `now`: `$now` and the creation date (default: the current time). */
export interface RenderInput {
  definitionJson: string;
  /** The data; or, as `dataJson`, its JSON text, parsed on the render thread (a job's stored data: parsing and copying a million values took 0.25 s of the main thread). */
  data?: unknown;
  dataJson?: string;
  now?: Date;
  pdfVariant?: PdfVariant;
  /** Text drawn diagonally over every page (previews: "PREVIEW"). */
  watermark?: string;
  /** Image output: one page as PNG or JPEG instead of the PDF (pdfVariant is ignored). */
  image?: ImageTask;
  /** Bytes of the image sources fetched before the render (URLs, assets), by source. */
  images?: Map<string, Uint8Array>;
  /** Encrypt the PDF (password, owner_password, permissions). */
  protection?: Protection;
}

/**
 * A render's result: the PDF, its page count, the engine's warnings and `ms`, the time from the
 * call to the result in milliseconds (waiting for a thread, the handoff both ways, the render).
 */
export interface RenderResult {
  /** The PDF; with `input.image`, the image file. */
  pdf: Buffer;
  /** With `input.image`: the image's pixel size. */
  image?: { width: number; height: number };
  pages: number;
  warnings: RenderWarning[];
  ms: number;
}

/**
 * Renders on the thread it was handed with; may be called once. `check` runs a definition check
 * (CheckTask) on the same thread before the render: a caller holding a thread must not wait for
 * another one (two jobs holding both threads of a pool would wait for each other).
 * @throws RenderFailure
 */
export type RenderOnThread = ((input: RenderInput) => Promise<RenderResult>) & { check(task: CheckTask): Promise<CheckOutcome> };

/** The nice value of a render thread while its render runs longer than `slowMs` (Linux). */
const SLOW_RENDER_NICE = 10;
/** How long a slow render keeps its team capped at PLATEN_RENDER_TEAM_THREADS, ms. */
const SLOW_MEMORY_MS = 10 * 60_000;
/** What counts as slow when PLATEN_RENDER_SLOW_MS is 0 (priority lowering off), ms. */
const DEFAULT_SLOW_MS = 1000;
/** Teams whose speed is remembered; past it the least recently rendered is forgotten. */
const MAX_TEAM_SPEEDS = 100_000;

/** Consecutive renders above `recycleMb` that get a thread replaced. */
const HIGH_HEAP_RENDERS = 2;
/** Wait before trying again to start a thread that failed to start, ms (doubles up to 30 s). */
const RESTART_DELAY_MS = 500;

/** One render thread: a single-thread piscina pool, replaced whole when its thread must go. */
class RenderThread {
  private pool!: Piscina;
  /** Settles once the current thread has loaded the engine and fonts. */
  ready!: Promise<void>;
  /** The current thread's kernel thread id (Linux), to lower its priority during a slow render. */
  private tid: number | null = null;
  private highHeapRenders = 0;
  private closed = false;

  constructor(
    private readonly workerData: RenderWorkerData,
    private readonly limits: RenderLimits,
    private readonly log: Logger | undefined,
  ) {
    this.start(RESTART_DELAY_MS);
  }

  /** Render `task` with the deadline. @throws RenderFailure (the thread is replaced when the failure was the thread's) */
  async render(task: RenderTask): Promise<RenderOutcome> {
    const out = await this.run<RenderOutcome>(task, undefined);
    if (typeof out?.ok !== 'boolean') throw new RenderFailure('RENDER_ERROR', 'the render thread returned no result');
    return out;
  }

  /** Validate a definition (and check data against it) with the deadline. @throws RenderFailure as {@link render} */
  async check(task: CheckTask): Promise<CheckOutcome> {
    const out = await this.run<CheckOutcome>(task, 'check');
    if (out === undefined || !('definitionErrors' in out)) throw new RenderFailure('RENDER_ERROR', 'the render thread returned no result');
    return out;
  }

  /** Check an uploaded image with the deadline. @throws RenderFailure as {@link render} */
  async checkImage(task: ImageCheckTask): Promise<ImageCheckOutcome> {
    const out = await this.run<ImageCheckOutcome>(task, 'checkImage');
    if (typeof out?.ok !== 'boolean') throw new RenderFailure('RENDER_ERROR', 'the render thread returned no result');
    return out;
  }

  /** Run the worker's task `name` (its default export when undefined) under the deadline, memory and priority rules. */
  private async run<T extends { heapMb?: number }>(task: unknown, name: string | undefined): Promise<T | undefined> {
    await this.ready;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.limits.timeoutMs);
    let lowered = false;
    const tid = this.tid;
    const slow = tid === null || this.limits.slowMs === 0 ? undefined : setTimeout(() => (lowered = setThreadPriority(tid, SLOW_RENDER_NICE)), this.limits.slowMs);
    let out: T | undefined;
    try {
      out = (await this.pool.run(task, { signal: deadline.signal, name })) as T | undefined;
    } catch (e) {
      const failure = this.failureOf(e, deadline.signal.aborted);
      this.log?.warn({ code: failure.code, err: e }, 'render thread stopped; starting another');
      this.replace();
      throw failure;
    } finally {
      clearTimeout(timer);
      clearTimeout(slow);
    }
    // Back to normal priority; without the privilege to raise it again, a new thread instead.
    let replace = lowered && !setThreadPriority(tid!, 0);
    const heapMb = typeof out?.heapMb === 'number' ? out.heapMb : 0;
    this.highHeapRenders = heapMb > this.limits.recycleMb ? this.highHeapRenders + 1 : 0;
    if (this.highHeapRenders >= HIGH_HEAP_RENDERS) {
      this.log?.info({ heapMb: Math.round(heapMb) }, 'render thread recycled: its heap stayed high');
      replace = true;
    }
    if (replace) this.replace();
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.destroy();
  }

  private failureOf(e: unknown, timedOut: boolean): RenderFailure {
    if (timedOut) return new RenderFailure('RENDER_TIMEOUT', `the render took longer than ${this.limits.timeoutMs} ms and was stopped`);
    if ((e as NodeJS.ErrnoException)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new RenderFailure('RENDER_MEMORY', `the render needed more than the ${this.limits.memoryMb} MiB of memory a render may use and was stopped`);
    }
    return new RenderFailure('RENDER_CRASHED', `the render thread stopped unexpectedly (${(e as Error)?.message ?? String(e)})`);
  }

  /** Start a new thread (the old pool, if any, is destroyed in the background). */
  private replace(): void {
    const old = this.pool;
    this.highHeapRenders = 0;
    this.start(RESTART_DELAY_MS);
    old.destroy().catch(() => {});
  }

  private start(retryMs: number): void {
    if (this.closed) return;
    const pool = new Piscina({
      filename: new URL('./worker.mjs', import.meta.url).href,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Infinity,
      resourceLimits: renderResourceLimits(this.limits),
      workerData: this.workerData,
    });
    // A thread that dies with no task on it is reported here; unheard, the event would throw.
    pool.on('error', (err: unknown) => this.log?.warn({ err }, 'render thread error'));
    this.pool = pool;
    this.tid = null;
    this.ready = pool.run(null, { name: 'ready' }).then(
      (info: ThreadReady) => {
        if (this.pool === pool) this.tid = info.tid;
      },
      async (err: unknown) => {
        if (this.closed) return;
        this.log?.error({ err }, `a render thread failed to start; trying again in ${retryMs} ms`);
        await new Promise((r) => setTimeout(r, retryMs));
        await pool.destroy().catch(() => {});
        if (this.closed) return;
        this.start(Math.min(retryMs * 2, 30_000));
        return this.ready;
      },
    );
  }
}

/** Set kernel thread `tid`'s nice value. @returns whether it could be set. */
function setThreadPriority(tid: number, nice: number): boolean {
  try {
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

export class RenderPool {
  private readonly threadList: RenderThread[];
  private readonly idle: RenderThread[];
  private readonly queue: FairQueue;
  /** Whether each team's renders are fast (see capOf), least recently rendered first. */
  private readonly teamSpeed = new Map<string, { lastFast: boolean; lastSlowAt: number }>();
  readonly limits: RenderLimits;
  /** The engine's limits every render of this pool runs with (PLATEN_MAX_*). */
  readonly engineLimits: Limits;

  /**
   * @param fontDirs extra font folders (PLATEN_FONT_DIRS), scanned once per thread.
   * @param limits memory, deadline, recycling and per-team share (defaults: {@link defaultRenderLimits}).
   * @param engineLimits the engine's per-render limits (pages, characters, ...; default DEFAULT_LIMITS).
   */
  constructor(threads: number, fontDirs: string[] = [], limits: Partial<RenderLimits> = {}, log?: Logger, engineLimits: Partial<EngineLimits> = {}) {
    this.limits = { ...defaultRenderLimits(threads), ...limits };
    this.engineLimits = { ...DEFAULT_LIMITS, ...engineLimits };
    this.threadList = Array.from({ length: threads }, () => new RenderThread({ fontDirs, limits: engineLimits, cacheMb: this.limits.cacheMb }, this.limits, log));
    this.idle = [...this.threadList];
    this.queue = new FairQueue({ slots: threads, perKey: this.limits.teamThreads, capOf: (team) => this.capOf(team) });
  }

  /**
   * Threads `team` may hold: every thread while its renders are known to be fast (the last one
   * finished under PLATEN_RENDER_SLOW_MS and none ran longer within SLOW_MEMORY_MS), else
   * PLATEN_RENDER_TEAM_THREADS. A team with no finished render yet counts as slow, so a burst of
   * slow renders from a new team cannot take every thread before its first one is seen.
   */
  private capOf(team: string): number {
    const record = this.teamSpeed.get(team);
    const fast = record !== undefined && record.lastFast && Date.now() - record.lastSlowAt > SLOW_MEMORY_MS;
    return fast ? this.threadList.length : this.limits.teamThreads;
  }

  /** Note how long a render of `team` took (or that it has run `ms` so far and still runs). */
  private noteSpeed(team: string, ms: number, finished: boolean): void {
    const slow = ms >= (this.limits.slowMs || DEFAULT_SLOW_MS);
    if (!finished && !slow) return;
    const record = this.teamSpeed.get(team) ?? { lastFast: false, lastSlowAt: -Infinity };
    if (slow) record.lastSlowAt = Date.now();
    if (finished || slow) record.lastFast = !slow;
    this.teamSpeed.delete(team); // re-inserted last: the map's order is least recently rendered first
    this.teamSpeed.set(team, record);
    if (this.teamSpeed.size > MAX_TEAM_SPEEDS) this.teamSpeed.delete(this.teamSpeed.keys().next().value as string);
  }

  /**
   * Render `definitionJson` with `data` on a thread, once `options.team`'s turn comes.
   * @throws RenderFailure when the engine refuses or fails, or the render is stopped.
   */
  render(definitionJson: string, data: unknown, options: { team?: string; now?: Date; pdfVariant?: PdfVariant; watermark?: string; image?: ImageTask; images?: Map<string, Uint8Array>; protection?: Protection } = {}): Promise<RenderResult> {
    const start = performance.now();
    return this.withThread(options.team ?? '', async (render) => {
      const result = await render({ definitionJson, data, now: options.now, pdfVariant: options.pdfVariant, watermark: options.watermark, image: options.image, images: options.images, protection: options.protection });
      return { ...result, ms: performance.now() - start };
    });
  }

  /**
   * Validate `task.definitionJson` as a template, and check `task.data` against it when given, on
   * a thread in `team`'s fair share, like a render: validating a large definition takes the CPU
   * time of a render (0.4 s for 10 MB of valid nodes, 2 s when each is faulty), which must not
   * stall the HTTP thread.
   * @returns the definition's faults, else the data's (each null when there are none).
   * @throws RenderFailure when the thread is stopped (RENDER_TIMEOUT, RENDER_MEMORY, RENDER_CRASHED).
   */
  async check(task: CheckTask, team: string): Promise<CheckOutcome> {
    return this.onThread(team, (thread) => thread.check(task));
  }

  /**
   * Check an uploaded image (`task.bytes`) as a render would decode it, on a thread in `team`'s
   * fair share (an SVG's parse takes a render's CPU time).
   * @throws RenderFailure when the thread is stopped.
   */
  async checkImage(task: ImageCheckTask, team: string): Promise<ImageCheckOutcome> {
    return this.onThread(team, (thread) => thread.checkImage(task));
  }

  /** Run `work` on a thread once `team`'s turn comes, and give the thread back after it. */
  private async onThread<T>(team: string, work: (thread: RenderThread) => Promise<T>): Promise<T> {
    const release = await this.queue.acquire(team);
    const thread = this.idle.pop()!;
    const start = performance.now();
    try {
      return await work(thread);
    } finally {
      this.noteSpeed(team, performance.now() - start, true);
      this.giveBack(thread, release);
    }
  }

  /**
   * Wait for a thread for `team` (fair order, see the module comment), then run `work` with it.
   * The thread is given back as soon as `work`'s render settles (or `work` ends without one), so
   * what `work` does after rendering does not hold it. Lets a caller do last-moment work, such as
   * claiming a job, only once a thread is really there.
   */
  async withThread<T>(team: string, work: (render: RenderOnThread) => Promise<T>): Promise<T> {
    const release = await this.queue.acquire(team);
    const thread = this.idle.pop()!;
    await thread.ready; // only a thread still starting with the server is not ready yet
    let used = false;
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      this.giveBack(thread, release);
    };
    const renderOnce = async (input: RenderInput): Promise<RenderResult> => {
      if (used) throw new Error('one render per thread lease');
      used = true;
      const start = performance.now();
      // A render still running past the slow mark caps its team at once, not only when it ends.
      const slowMark = setTimeout(() => this.noteSpeed(team, performance.now() - start, false), this.limits.slowMs || DEFAULT_SLOW_MS);
      try {
        const task: RenderTask = { definitionJson: input.definitionJson, data: input.data, dataJson: input.dataJson, now: (input.now ?? new Date()).getTime(), pdfVariant: input.pdfVariant, watermark: input.watermark, image: input.image, images: input.images, protection: input.protection };
        const out = await thread.render(task);
        if (!out.ok) throw new RenderFailure(out.code, out.message, out.path);
        return { pdf: Buffer.from(out.pdf.buffer, out.pdf.byteOffset, out.pdf.byteLength), image: out.image, pages: out.pages, warnings: out.warnings, ms: performance.now() - start };
      } finally {
        clearTimeout(slowMark);
        this.noteSpeed(team, performance.now() - start, true);
        giveBack();
      }
    };
    const check = async (task: CheckTask): Promise<CheckOutcome> => {
      if (used) throw new Error('a check comes before the render of a thread lease');
      return thread.check(task);
    };
    const render: RenderOnThread = Object.assign(renderOnce, { check });
    try {
      return await work(render);
    } finally {
      giveBack();
    }
  }

  /** Threads in the pool. */
  get threads(): number {
    return this.threadList.length;
  }

  /** Renders waiting for a thread. */
  get waiting(): number {
    return this.queue.pending;
  }

  async close(): Promise<void> {
    this.queue.clear();
    await Promise.all(this.threadList.map((t) => t.close()));
  }

  /** The thread is handed out again once it is ready (at once, unless it is being replaced). */
  private giveBack(thread: RenderThread, release: Release): void {
    thread.ready.then(() => {
      this.idle.push(thread);
      release();
    });
  }
}
