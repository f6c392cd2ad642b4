/**
 * The V8 heap settings of a render thread, in one place: pool.ts starts its threads with them, and
 * the engine bench (bench/engine-child.ts) runs Platen in a process of its own under the same
 * settings given as Node flags, so its RSS figures are those of a render thread's heap.
 * Imports nothing, so a bench can read it without loading the engine.
 */

/** Default V8 old-generation limit of one render thread, MiB (PLATEN_RENDER_MEMORY_MB). */
export const DEFAULT_RENDER_MEMORY_MB = 512;

/**
 * Default V8 young generation of one render thread, MiB (PLATEN_RENDER_YOUNG_MB). 24 against 12
 * (bench/README.md, Latest results of 2026-11-28): a 25-page report in a worker thread about 170
 * against 267 ms wall and 260 against 410 ms of CPU per render (its layout, alive until painted,
 * outlives more scavenges at 12), for 15-20 MB more peak RSS per render thread (a process
 * rendering the report: 145 -> 160 MB). V8 sizes semi-spaces in powers of two: 15 or 18 behave
 * as 24.
 */
export const DEFAULT_RENDER_YOUNG_MB = 24;

/**
 * Process-wide V8 flags for render threads, set once when pool.ts loads. V8 "pretenures"
 * allocation sites whose objects survived a scavenge: their objects then go straight to the old
 * generation. A scavenge that lands mid-render finds that render's objects alive, so sites get
 * pretenured whose objects die when the render ends; the old generation fills with garbage and
 * mark-compacts land on requests. Without it (bench/README.md), the slowest render at one
 * connection fell from 35-52 ms to 15-19 ms and the p99 by a few ms.
 */
export const RENDER_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];

/** A render thread's heap: old generation `memoryMb` (its hard limit), young generation `youngMb`. */
export interface RenderHeap {
  memoryMb: number;
  youngMb: number;
}

/** The worker_threads resourceLimits of a render thread. */
export function renderResourceLimits(heap: RenderHeap): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  return { maxOldGenerationSizeMb: heap.memoryMb, maxYoungGenerationSizeMb: heap.youngMb };
}

/**
 * The same heap as Node flags for a process of its own. V8 sizes a young generation as three
 * semi-spaces (two that scavenges copy between, and as much again for large new objects), so a
 * worker's maxYoungGenerationSizeMb of 24 is --max-semi-space-size=8 (measured: new space 16 MB,
 * heap limit 536 MB for a 512 MB old generation, either way).
 */
export function renderNodeFlags(heap: RenderHeap): string[] {
  return [`--max-old-space-size=${heap.memoryMb}`, `--max-semi-space-size=${Math.max(1, Math.round(heap.youngMb / 3))}`, ...RENDER_V8_FLAGS];
}
