/**
 * A cache keyed by strings of a template or of the data, bounded by entries and by characters
 * (lru-cache, keys weighed by their length). Bounding by entries alone let long keys pile up: 20
 * template saves with an 8 MB text holding a placeholder kept 660 MB in the service's HTTP process
 * (the parse of each text cached under it), and 10,000 entries could hold far more. The least
 * recently used entries go first; a key longer than a quarter of the character budget is not kept
 * at all (worked out again at each use: such strings are rare, and parsing one costs about what
 * reading it costs).
 */
import { LRUCache } from 'lru-cache';

export class StringKeyedCache<V extends {}> {
  private readonly lru: LRUCache<string, V>;

  /**
   * @param maxEntries entries kept at most.
   * @param maxChars characters of keys kept at most (a cached value is about the size of its key, or smaller).
   */
  constructor(maxEntries: number, maxChars: number) {
    this.lru = new LRUCache<string, V>({ max: maxEntries, maxSize: maxChars, maxEntrySize: maxChars / 4, sizeCalculation: (_v, key) => Math.max(1, key.length) });
  }

  get(key: string): V | undefined {
    return this.lru.get(key);
  }

  /** Keeps `value` under `key` when the key is short enough; returns `value`. */
  remember(key: string, value: V): V {
    this.lru.set(key, value);
    return value;
  }
}
