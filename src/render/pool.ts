/**
 * Worker threads that render PDFs (DESIGN §2: rendering never blocks the event loop). Sized by
 * PLATEN_RENDER_THREADS; shared by synchronous requests and queued jobs.
 */
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import type { PdfVariant } from '../../engine/index.ts';
import type { RenderOutcome, RenderTask, RenderWorkerData } from './task.ts';

// V8 "pretenures" allocation sites whose objects survived a scavenge: their objects then go
// straight to the old generation. A scavenge that lands mid-render finds that render's objects
// alive, so sites get pretenured whose objects die when the render ends; the old generation
// fills with garbage and mark-compacts land on requests. Without it (bench/README.md), the
// slowest render at one connection fell from 35-52 ms to 15-19 ms and the p99 by a few ms.
// V8 flags are per process and this one is read at allocation time: set when this module loads, it
// holds for every render thread started afterwards (and for the main thread).
setFlagsFromString('--no-allocation-site-pretenuring');

/** A failed render, with the engine's error code and the path of the fault. */
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

export class RenderPool {
  private readonly pool: Piscina;

  /** @param fontDirs extra font folders (PLATEN_FONT_DIRS), scanned once per thread. */
  constructor(threads: number, fontDirs: string[] = []) {
    this.pool = new Piscina({
      filename: new URL('./worker.mjs', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      // A second task waits in each thread's port, so a thread that finishes starts the next render
      // at once instead of idling until the main thread (busy with HTTP and SQLite) hands it one.
      concurrentTasksPerWorker: 2,
      workerData: { fontDirs } satisfies RenderWorkerData,
    });
  }

  /**
   * Render `definition` with `data` on a worker thread.
   * @returns the PDF, its page count, the engine's warnings and `ms`: the time from this call to the
   * result (waiting for a thread, the handoff both ways and the render), in milliseconds.
   * @throws RenderFailure when the engine refuses or fails.
   */
  async render(definitionJson: string, data: unknown, options: { now?: Date; pdfVariant?: PdfVariant } = {}): Promise<{ pdf: Buffer; pages: number; warnings: string[]; ms: number }> {
    const task: RenderTask = { definitionJson, data, now: (options.now ?? new Date()).getTime(), pdfVariant: options.pdfVariant };
    const start = performance.now();
    const out = (await this.pool.run(task)) as RenderOutcome | undefined;
    const ms = performance.now() - start;
    if (typeof out?.ok !== 'boolean') throw new RenderFailure('RENDER_ERROR', 'the render thread returned no result');
    if (!out.ok) throw new RenderFailure(out.code, out.message, out.path);
    return { pdf: Buffer.from(out.pdf.buffer, out.pdf.byteOffset, out.pdf.byteLength), pages: out.pages, warnings: out.warnings, ms };
  }

  /** Threads in the pool. */
  get threads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
