/**
 * A cache keyed by strings of a template or of the data, bounded by entries and by characters.
 * Bounding by entries alone let long keys pile up: 20 template saves with an 8 MB text holding a
 * placeholder kept 660 MB in the service's HTTP process (the parse of each text cached under it),
 * and 10,000 entries could hold far more. Oldest entries go first; a key longer than a quarter of
 * the character budget is not kept at all (worked out again at each use: such strings are rare,
 * and parsing one costs about what reading it costs).
 */
export class StringKeyedCache<V> {
  private readonly map = new Map<string, V>();
  private chars = 0;

  /**
   * @param maxEntries entries kept at most.
   * @param maxChars characters of keys kept at most (a cached value is about the size of its key, or smaller).
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  /** Keeps `value` under `key` when the key is short enough; returns `value`. */
  remember(key: string, value: V): V {
    if (key.length > this.maxChars / 4 || this.map.has(key)) return value;
    while (this.map.size > 0 && (this.map.size >= this.maxEntries || this.chars + key.length > this.maxChars)) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
      this.chars -= oldest.length;
    }
    this.map.set(key, value);
    this.chars += key.length;
    return value;
  }
}
