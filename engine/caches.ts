/**
 * The engine's process-wide caches, in one place, each with a budget (least recently used entries
 * go first) and hit/miss counts.
 *
 * What is kept, and why:
 * - `runs`: shaped glyph runs by face, features and string (shaping a word costs tens of
 *   microseconds; the same words recur across documents). Budget in characters.
 * - `hyphenation`: hyphenated words by language. Budget in characters.
 * - `codes`: encoded QR codes and barcodes by symbology, options and value. Budget in rectangles.
 * - `images`: decoded images by source. Budget in bytes of image data.
 * - `fontPrograms`: compressed font subsets by face and glyph list. Budget in bytes.
 *
 * Renders in one worker thread share its caches; each thread has its own. The budgets are set
 * once per thread with {@link configureCaches} (the service passes PLATEN_ENGINE_CACHE_MB) and
 * are fractions of one total, so memory per thread is bounded by that total plus the entries'
 * object overhead.
 */
import { LRUCache } from 'lru-cache';

/** Budgets of the caches, in their own units (characters, rectangles, bytes). */
export interface CacheBudgets {
  readonly runs: number;
  readonly hyphenation: number;
  readonly codes: number;
  readonly images: number;
  readonly fontPrograms: number;
}

/** Default total budget per thread, in megabytes (PLATEN_ENGINE_CACHE_MB). */
export const DEFAULT_CACHE_MB = 32;

/**
 * Budgets for a total of `megabytes` MB. Shaped runs cost about 17 bytes of heap a character of
 * their key (measured: 3.7 MB for 226,000 characters of report words; glyph objects are shared
 * with the font, advances and offsets are not), counted as 32, so they get a quarter of the total
 * in characters / 32 (32 MB: 262,144 characters, about three different 1,000-row reports; half
 * of the total raised the hit rate over varied reports from 64% to 69% but the peak RSS over
 * 2,000 varied invoices from 210 to 239 MB); hyphenated words 1/32 at ~4 bytes a character;
 * decoded images a quarter in bytes; font subsets an eighth in bytes (32 MB: 4 MB, 250 to 450 subsets of a Latin text face: a
 * subset is reused only when a document uses exactly the same glyphs again, a third of the time
 * over varied invoices with 4 MB as with 22 MB); barcodes 1/16 at ~16 bytes a rectangle.
 */
export function budgetsFor(megabytes: number): CacheBudgets {
  const bytes = Math.max(1, megabytes) * 1024 * 1024;
  return {
    runs: Math.max(1000, Math.floor(bytes / 4 / 32)),
    hyphenation: Math.max(1000, Math.floor(bytes / 32 / 4)),
    codes: Math.max(1000, Math.floor(bytes / 16 / 16)),
    images: Math.max(1, Math.floor(bytes / 4)),
    fontPrograms: Math.max(1, Math.floor(bytes / 8)),
  };
}

/**
 * Bytes a byte array keeps alive: its whole backing store, which can be larger than the array
 * (zlib's output is a view into a 16 KB chunk, 1.7 times a typical deflated subset).
 */
export function retainedBytes(bytes: Uint8Array): number {
  return Math.max(bytes.byteLength, bytes.buffer.byteLength);
}

/** What {@link cacheStats} reports of one cache. */
export interface CacheStat {
  readonly entries: number;
  /** Used budget, in the cache's unit. */
  readonly size: number;
  readonly budget: number;
  readonly unit: 'characters' | 'rectangles' | 'bytes';
  readonly hits: number;
  readonly misses: number;
  /** hits / (hits + misses), 0 before any lookup. */
  readonly hitRate: number;
}

/** An LRU cache with a budget and hit/miss counts. `weigh` gives an entry's cost (at least 1). */
export class BoundedCache<K extends {}, V extends {}> {
  private lru: LRUCache<K, V>;
  hits = 0;
  misses = 0;

  constructor(
    budget: number,
    private readonly weigh: (value: V, key: K) => number,
    readonly unit: CacheStat['unit'],
  ) {
    this.lru = this.make(budget);
  }

  private make(budget: number): LRUCache<K, V> {
    return new LRUCache<K, V>({ maxSize: budget, sizeCalculation: (v, k) => Math.max(1, Math.ceil(this.weigh(v, k))) });
  }

  /** The cached value, or the one `compute` makes (kept unless it alone exceeds the budget). */
  getOrCompute(key: K, compute: () => V): V {
    const hit = this.lru.get(key);
    if (hit !== undefined) {
      this.hits++;
      return hit;
    }
    this.misses++;
    const value = compute();
    if (this.weigh(value, key) <= this.lru.maxSize) this.lru.set(key, value);
    return value;
  }

  /** Whether `key` is cached (does not count as a hit or refresh the entry). */
  has(key: K): boolean {
    return this.lru.has(key);
  }

  /** Drop every entry and start again with `budget` (the counts are kept). */
  resize(budget: number): void {
    this.lru = this.make(budget);
  }

  clear(): void {
    this.lru.clear();
  }

  stat(): CacheStat {
    const lookups = this.hits + this.misses;
    return { entries: this.lru.size, size: this.lru.calculatedSize, budget: this.lru.maxSize, unit: this.unit, hits: this.hits, misses: this.misses, hitRate: lookups === 0 ? 0 : Math.round((this.hits / lookups) * 1000) / 1000 };
  }
}

const budgets = budgetsFor(DEFAULT_CACHE_MB);

/**
 * The caches themselves. Values are typed loosely here (the owning module narrows them) so that
 * this module imports nothing of the engine.
 */
export const caches = {
  runs: new BoundedCache<string, { readonly glyphs: readonly unknown[] }>(budgets.runs, (_run, key) => key.length, 'characters'),
  hyphenation: new BoundedCache<string, string>(budgets.hyphenation, (word) => word.length, 'characters'),
  codes: new BoundedCache<string, { readonly rects: readonly number[] }>(budgets.codes, (code, key) => code.rects.length / 4 + key.length / 16, 'rectangles'),
  images: new BoundedCache<string, { readonly data: Uint8Array }>(budgets.images, (image, key) => retainedBytes(image.data) + key.length, 'bytes'),
  fontPrograms: new BoundedCache<string, { readonly deflated: Uint8Array }>(budgets.fontPrograms, (program, key) => retainedBytes(program.deflated) + key.length, 'bytes'),
};

/** Names of the caches. */
export type CacheName = keyof typeof caches;

/** Set the total budget per thread, in megabytes (empties the caches). */
export function configureCaches(megabytes: number): void {
  const next = budgetsFor(megabytes);
  for (const name of Object.keys(caches) as CacheName[]) caches[name].resize(next[name]);
}

/** Entries, size, budget and hit/miss counts of every cache (the bench reports them). */
export function cacheStats(): Record<CacheName, CacheStat> {
  const out = {} as Record<CacheName, CacheStat>;
  for (const name of Object.keys(caches) as CacheName[]) out[name] = caches[name].stat();
  return out;
}

/** Empty every cache (tests, and a cold-start bench). */
export function clearCaches(): void {
  for (const cache of Object.values(caches)) cache.clear();
}
