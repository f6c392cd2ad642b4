/**
 * Worker threads that render PDFs (DESIGN §2: rendering never blocks the event loop). Sized by
 * PLATEN_RENDER_THREADS; shared by synchronous requests and queued jobs.
 */
import { Piscina } from 'piscina';
import type { PdfVariant } from '../../engine/index.ts';
import type { RenderOutcome, RenderTask, RenderWorkerData } from './task.ts';

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
      workerData: { fontDirs } satisfies RenderWorkerData,
    });
  }

  /**
   * Render `definition` with `data` on a worker thread.
   * @throws RenderFailure when the engine refuses or fails.
   */
  async render(definitionJson: string, data: unknown, options: { now?: Date; pdfVariant?: PdfVariant } = {}): Promise<{ pdf: Buffer; pages: number; warnings: string[] }> {
    const task: RenderTask = { definitionJson, data, now: (options.now ?? new Date()).getTime(), pdfVariant: options.pdfVariant };
    const out = (await this.pool.run(task)) as RenderOutcome;
    if (!out.ok) throw new RenderFailure(out.code, out.message, out.path);
    return { pdf: Buffer.from(out.pdf.buffer, out.pdf.byteOffset, out.pdf.byteLength), pages: out.pages, warnings: out.warnings };
  }

  /** Threads in the pool. */
  get threads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
