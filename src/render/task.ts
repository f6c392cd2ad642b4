/**
 * The work one render thread does: definition + data -> PDF bytes (or one page as an image) through the engine. Errors come
 * back as values (RenderError's code, message and path survive the thread boundary).
 */
import { readlinkSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { workerData } from 'node:worker_threads';
import { BUNDLED_FONT_DIR, checkData, checkImageBytes, configureCaches, FontLibrary, renderImage, renderPdf, RenderError, warmUp, type CheckedImage, type ImageLimits, type ImageFormat, type Limits, type PdfVariant, type Protection } from '../../engine/index.ts';
import { definitionCache } from './definitions.ts';
import { checkDefinitionJson, type CheckOutcome, type CheckTask } from './check.ts';

export type { CheckOutcome, CheckTask } from './check.ts';

/** What every task of a pool shares: extra font folders (PLATEN_FONT_DIRS) and the engine's limits (PLATEN_MAX_*). */
export interface RenderWorkerData {
  fontDirs: string[];
  limits?: Partial<Limits>;
  /** Budget of the engine's caches in this thread, MiB (PLATEN_ENGINE_CACHE_MB). */
  cacheMb?: number;
}

// One font library per thread, built once: the bundled fonts plus PLATEN_FONT_DIRS as fallbacks.
const fontDirs = (workerData as RenderWorkerData | undefined)?.fontDirs ?? [];
const fonts = fontDirs.length > 0 ? new FontLibrary([BUNDLED_FONT_DIR, ...fontDirs]) : undefined;
const limits = (workerData as RenderWorkerData | undefined)?.limits;
const cacheMb = (workerData as RenderWorkerData | undefined)?.cacheMb;
if (cacheMb !== undefined) configureCaches(cacheMb);

export interface RenderTask {
  /** The definition's JSON text: cheaper to pass between threads than an object, and a cache key. */
  definitionJson: string;
  data?: unknown;
  /** The data as JSON text, instead of `data`: parsed here. */
  dataJson?: string;
  /** `$now` and the creation date, ms since the epoch. */
  now: number;
  /** PDF/A variant (spec §2.1 pdf_variant). */
  pdfVariant?: PdfVariant;
  /** Text drawn diagonally over every page (previews). */
  watermark?: string;
  /** Image output instead of a PDF: one page as PNG or JPEG (pdfVariant is ignored). */
  image?: ImageTask;
  /** Bytes of the image sources fetched before the render (URLs, assets), by source. */
  images?: Map<string, Uint8Array>;
  /** Encrypt the PDF (request fields password, owner_password, permissions). */
  protection?: Protection;
}

/** An image render: page `page` (from 1) at `scale` pixels per point, at most `maxPixels` pixels. */
export interface ImageTask {
  format: ImageFormat;
  scale: number;
  page: number;
  maxPixels: number;
  /** PNG compression: "small" (default) or "fast" (previews). */
  effort?: 'fast' | 'small';
}

/** What a render gives back; `heapMb`: this thread's V8 heap in use right after it, in MiB (for recycling). */
export type RenderOutcome = (
  | { ok: true; pdf: Uint8Array; pages: number; warnings: import('../../engine/index.ts').RenderWarning[]; image?: { width: number; height: number } }
  | { ok: false; code: string; message: string; path?: string }
) & { heapMb: number };

const definitionOf = definitionCache();

const heapMb = () => getHeapStatistics().used_heap_size / 1048576;

export default async function render(task: RenderTask): Promise<RenderOutcome> {
  try {
    if (task.dataJson !== undefined) task = { ...task, data: JSON.parse(task.dataJson) };
    if (task.image) {
      const img = await renderImage(definitionOf(task.definitionJson), task.data, { now: new Date(task.now), watermark: task.watermark, fonts, limits, images: task.images, ...task.image });
      // `pdf` carries the output file: here the image.
      return { ok: true, pdf: new Uint8Array(img.image.buffer, img.image.byteOffset, img.image.byteLength), pages: img.pages, warnings: img.warnings, image: { width: img.width, height: img.height }, heapMb: heapMb() };
    }
    const result = await renderPdf(definitionOf(task.definitionJson), task.data, { now: new Date(task.now), pdfVariant: task.pdfVariant, watermark: task.watermark, fonts, limits, images: task.images, protection: task.protection });
    // Structured clone copies the bytes to the main thread: some µs for an invoice. (Moving them
    // would need piscina's private symbols, which the single binary's separate bundles don't share.)
    return { ok: true, pdf: new Uint8Array(result.pdf.buffer, result.pdf.byteOffset, result.pdf.byteLength), pages: result.pages, warnings: result.warnings, heapMb: heapMb() };
  } catch (e) {
    if (e instanceof RenderError) return { ok: false, code: e.code, message: e.message, path: e.path, heapMb: heapMb() };
    return { ok: false, code: 'RENDER_ERROR', message: (e as Error)?.message ?? String(e), heapMb: heapMb() };
  }
}

/**
 * Validate a definition as the service does before storing or previewing it (validateTemplate),
 * check data against it (checkData), and find what else a request needs to know up front (the
 * fields it reads, a page's pixel size, the image sources to fetch): off the HTTP thread, where a 10 MB definition held
 * everything else 0.4 to 2 s. The parsed definition stays in this thread's cache, so a render of
 * it here does not parse it again.
 */
export function check(task: CheckTask): CheckOutcome {
  return { ...checkDefinitionJson(definitionOf(task.definitionJson), task), heapMb: heapMb() };
}

/** An uploaded image to check as a render would decode it (checkImageBytes). */
export interface ImageCheckTask {
  bytes: Uint8Array;
  limits: ImageLimits;
}

/** What {@link checkImage} found: the image's type and size, or the engine's reason it cannot be drawn; this thread's heap in use after it, MiB. */
export type ImageCheckOutcome = ({ ok: true; type: CheckedImage['type']; width: number; height: number } | { ok: false; code: string; message: string }) & { heapMb: number };

/**
 * Check an upload (asset) as a render would decode it, off the HTTP thread: parsing a 5 MB SVG
 * took 100-145 ms there.
 */
export async function checkImage(task: ImageCheckTask): Promise<ImageCheckOutcome> {
  try {
    const image = await checkImageBytes(task.bytes, task.limits);
    return { ok: true, type: image.type, width: image.width, height: image.height, heapMb: heapMb() };
  } catch (e) {
    if (e instanceof RenderError) return { ok: false, code: e.code, message: e.message, heapMb: heapMb() };
    throw e;
  }
}

// A small document rendered once when a thread starts, so that its first real render does not pay
// for compiling the engine's hot paths (a cold invoice took 0.7-0.9 s, a warm one 10-20 ms). It
// uses the common node kinds (columns, image, table, list, QR code, a footer with page numbers,
// filters, tagging): each one left out is code the first real document runs cold.
const WARM_UP_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const WARM_UP = {
  metadata: { title: 'Warm-up {{n}}', language: 'en' },
  footer: [
    { line: { thickness: 0.5, color: '#c5ccd3' } },
    { columns: [{ width: '*', content: [{ text: 'Platen warm-up', fontSize: 7.5 }] }, { width: 'auto', content: [{ text: 'Page {{$page}} of {{$pages}}', fontSize: 7.5, textAlign: 'right' }] }], gap: 16 },
  ],
  content: [
    { columns: [{ width: '*', content: [{ image: WARM_UP_PNG, width: 20, alt: 'dot' }] }, { width: 120, content: [{ text: 'Platen {{n}}', fontSize: 14, fontWeight: 'bold', textAlign: 'right' }] }], margin: [0, 0, 10, 0] },
    { text: 'A paragraph long enough to be broken into lines, with numbers {{amount | number:2}}, {{amount | currency:"EUR"}} and a date, {{date | date:"d MMM yyyy"}}.' },
    { table: { columns: ['*', 60], header: [['Item', 'Price']], rows: [{ each: 'rows', as: 'r', row: ['{{r.name}}', { text: '{{r.price}}', textAlign: 'right' }] }] } },
    { list: ['One', 'Two'] },
    { qrcode: 'https://example.com/warm-up/{{n}}', size: 40, alt: 'warm-up' },
  ],
};

/** What a thread reports once ready: its heap in use (MiB) and its kernel thread id (Linux; else null). */
export interface ThreadReady {
  heapMb: number;
  tid: number | null;
}

/** This thread's kernel thread id, from /proc/thread-self (Linux), or null elsewhere. */
function kernelThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Answers once the thread has loaded the engine and its fonts, done the engine's one-time setup
 * (warmUp: faces, HarfBuzz, the QR encoder, number and date formats) and rendered a warm-up
 * document: the pool hands a thread renders (and starts their deadline) only after this.
 */
export async function ready(): Promise<ThreadReady> {
  await warmUp(fonts);
  const rows = Array.from({ length: 20 }, (_, i) => ({ name: `Item ${i}`, price: (i * 1.5).toFixed(2) }));
  await renderPdf(WARM_UP, { n: 1, rows, amount: 1234.5, date: '2026-01-15' }, { now: new Date(0), fonts });
  // Work a render defers to a timer (hb-subset's preprocessing of a face it subset, for fonts
  // without glyf outlines) runs now, not inside the thread's first real render (it doubled that
  // render's CPU time when the bundled fonts went through hb-subset).
  await new Promise((resolve) => setTimeout(resolve, 1));
  return { heapMb: heapMb(), tid: kernelThreadId() };
}
