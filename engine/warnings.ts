/**
 * Render warnings: what was drawn imperfectly without failing the render. Every pass that can
 * find one gets the render's {@link WarningSink} explicitly (binding, prepare, measure); the sink
 * keeps each warning once and at most {@link MAX_WARNINGS} of them.
 */

/** Codes of {@link RenderWarning}. */
export type RenderWarningCode =
  /** A placeholder (or an `each`) reads a data path that the data does not have; it rendered empty. */
  | 'DATA_MISSING'
  /** A value a formatting filter cannot format (text to `number`, no date to `date`: printed as it is), or an object or array where text goes (printed as nothing). */
  | 'DATA_UNFORMATTED'
  /** A character that no font of its stack has; drawn as the first font's missing glyph. */
  | 'GLYPH_MISSING'
  /** An image, QR code or barcode larger than the room it has; drawn smaller, aspect kept. */
  | 'IMAGE_CLAMPED'
  /** Fixed widths (table, columns, or a box's width) that do not fit the room they have; made narrower. */
  | 'WIDTH_CLAMPED'
  /** A box's fixed height taller than a page, or an absolute or rotated box that would leave the page: made smaller or moved onto it. */
  | 'BOX_CLAMPED'
  /** Content taller than its box's fixed height: cut off at the box's edge. */
  | 'CONTENT_CLIPPED'
  /** `fit: "shrink"` text that does not fit its box even at its minFontSize. */
  | 'SHRINK_FAILED'
  /** A line of text wider than its box (a character wider than the room: nothing left to break) or taller than a page: drawn past the edge. */
  | 'CONTENT_OVERFLOW'
  /** An internal link ("#id") to an id that no node of the document has: drawn without the link. */
  | 'LINK_UNRESOLVED';

/** Every {@link RenderWarningCode}, for documentation checks (the compiler checks the list is whole). */
export const RENDER_WARNING_CODES = ['DATA_MISSING', 'DATA_UNFORMATTED', 'GLYPH_MISSING', 'IMAGE_CLAMPED', 'WIDTH_CLAMPED', 'BOX_CLAMPED', 'CONTENT_CLIPPED', 'SHRINK_FAILED', 'CONTENT_OVERFLOW', 'LINK_UNRESOLVED'] as const satisfies readonly RenderWarningCode[];
const everyWarningCodeListed: [Exclude<RenderWarningCode, (typeof RENDER_WARNING_CODES)[number]>] extends [never] ? true : never = true;
void everyWarningCodeListed;

/** One warning: a code, a sentence, and the template path of the node at fault (`content[2].text`). */
export interface RenderWarning {
  readonly code: RenderWarningCode;
  readonly message: string;
  readonly path: string;
}

/** Warnings kept per render; later ones are counted in the last one's message. */
export const MAX_WARNINGS = 100;

interface Entry {
  code: RenderWarningCode;
  message: string;
  path: string;
  /** More occurrences of the same fault (an each item missing the same key, ...). */
  more: number;
  /** What the further occurrences are called in the message ("items", "times"). */
  unit: string;
}

/** Collects the warnings of one render. */
export class WarningSink {
  private readonly byKey = new Map<string, Entry>();
  private dropped = 0;
  private readonly seen = new Set<string>();

  /**
   * Record a warning. Warnings with the same `key` (default: code, path and message) are one:
   * later ones only add to its count, shown as "(and N more <unit>)".
   */
  add(code: RenderWarningCode, message: string, path: string, key?: string, unit = 'times'): void {
    const k = key ?? `${code}\u0000${path}\u0000${message}`;
    const hit = this.byKey.get(k);
    if (hit) {
      hit.more++;
      return;
    }
    if (this.byKey.size >= MAX_WARNINGS) {
      this.dropped++;
      return;
    }
    this.byKey.set(k, { code, message, path, more: 0, unit });
  }

  /**
   * True the first time `key` is asked about, false after: for a fault found again at the same
   * place when that place is measured again (a header on every page), which is not news.
   */
  firstTime(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  /** Whether `key` was recorded already (to skip building a message again). */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Count one more occurrence of `key`, which must have been recorded. */
  again(key: string): void {
    const hit = this.byKey.get(key);
    if (hit) hit.more++;
  }

  /** Take in the warnings of `other` (a pass's own sink, kept only when the pass's result is), counts included. */
  absorb(other: WarningSink): void {
    for (const [key, e] of other.byKey) {
      const hit = this.byKey.get(key);
      if (hit) hit.more += e.more + 1;
      else if (this.byKey.size >= MAX_WARNINGS) this.dropped += e.more + 1;
      else this.byKey.set(key, { ...e });
    }
    this.dropped += other.dropped;
    for (const key of other.seen) this.seen.add(key);
  }

  /** The warnings, in the order first found. */
  list(): RenderWarning[] {
    const out: RenderWarning[] = [];
    for (const e of this.byKey.values()) {
      out.push({ code: e.code, path: e.path, message: e.more > 0 ? `${e.message} (and ${e.more} more ${e.unit})` : e.message });
    }
    if (this.dropped > 0 && out.length > 0) {
      const last = out[out.length - 1];
      out[out.length - 1] = { ...last, message: `${last.message}; ${this.dropped} more warning${this.dropped === 1 ? '' : 's'} not listed` };
    }
    return out;
  }
}
