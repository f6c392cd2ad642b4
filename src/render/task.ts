/**
 * The work one render thread does: definition + data -> PDF bytes through the engine. Errors come
 * back as values (RenderError's code, message and path survive the thread boundary).
 */
import { workerData } from 'node:worker_threads';
import { BUNDLED_FONT_DIR, FontLibrary, renderPdf, RenderError, type PdfVariant } from '../../engine/index.ts';

/** What every task of a pool shares: extra font folders (PLATEN_FONT_DIRS). */
export interface RenderWorkerData {
  fontDirs: string[];
}

// One font library per thread, built once: the bundled fonts plus PLATEN_FONT_DIRS as fallbacks.
const fontDirs = (workerData as RenderWorkerData | undefined)?.fontDirs ?? [];
const fonts = fontDirs.length > 0 ? new FontLibrary([BUNDLED_FONT_DIR, ...fontDirs]) : undefined;

export interface RenderTask {
  /** The definition's JSON text: cheaper to pass between threads than an object, and a cache key. */
  definitionJson: string;
  data: unknown;
  /** `$now` and the creation date, ms since the epoch. */
  now: number;
  /** PDF/A variant (spec §2.1 pdf_variant). */
  pdfVariant?: PdfVariant;
}

export type RenderOutcome =
  | { ok: true; pdf: Uint8Array; pages: number; warnings: string[] }
  | { ok: false; code: string; message: string; path?: string };

// Parsed definitions by their text: the same object comes back for the same text, so the engine
// recognises it as validated already (parseTemplate's identity cache).
const definitions = new Map<string, unknown>();
const MAX_DEFINITIONS = 256;

function definitionOf(json: string): unknown {
  let def = definitions.get(json);
  if (def === undefined) {
    def = JSON.parse(json);
    if (definitions.size >= MAX_DEFINITIONS) definitions.delete(definitions.keys().next().value as string);
    definitions.set(json, def);
  }
  return def;
}

export default async function render(task: RenderTask): Promise<RenderOutcome> {
  try {
    const result = await renderPdf(definitionOf(task.definitionJson), task.data, { now: new Date(task.now), pdfVariant: task.pdfVariant, fonts });
    // Structured clone copies the bytes to the main thread: some µs for an invoice. (Moving them
    // would need piscina's private symbols, which the single binary's separate bundles don't share.)
    return { ok: true, pdf: new Uint8Array(result.pdf.buffer, result.pdf.byteOffset, result.pdf.byteLength), pages: result.pages, warnings: result.warnings };
  } catch (e) {
    if (e instanceof RenderError) return { ok: false, code: e.code, message: e.message, path: e.path };
    return { ok: false, code: 'RENDER_ERROR', message: (e as Error).message ?? String(e) };
  }
}
