/**
 * The work one render thread does: definition + data -> PDF bytes through the engine. Errors come
 * back as values (RenderError's code, message and path survive the thread boundary).
 */
import { renderPdf, RenderError, type PdfVariant } from '../../engine/index.ts';

export interface RenderTask {
  definition: unknown;
  data: unknown;
  /** `$now` and the creation date, ms since the epoch. */
  now: number;
  /** PDF/A variant (spec §2.1 pdf_variant). */
  pdfVariant?: PdfVariant;
}

export type RenderOutcome =
  | { ok: true; pdf: Uint8Array; pages: number }
  | { ok: false; code: string; message: string; path?: string };

export default async function render(task: RenderTask): Promise<RenderOutcome> {
  try {
    const result = await renderPdf(task.definition, task.data, { now: new Date(task.now), pdfVariant: task.pdfVariant });
    // Structured clone copies the bytes to the main thread (a few hundred µs for a large PDF).
    return { ok: true, pdf: new Uint8Array(result.pdf.buffer, result.pdf.byteOffset, result.pdf.byteLength), pages: result.pages };
  } catch (e) {
    if (e instanceof RenderError) return { ok: false, code: e.code, message: e.message, path: e.path };
    return { ok: false, code: 'RENDER_ERROR', message: (e as Error).message ?? String(e) };
  }
}
