/**
 * Limits enforced while laying out, so that a document over them stops early, with little memory
 * spent, instead of after every page has been built:
 *
 * - {@link LayoutBudget}: the glyphs (characters of text, counted before shaping) and boxes (every
 *   prepared node, every text line) of one render.
 * - {@link PageEstimate}: a lower bound of the content's page count kept while the content is
 *   prepared, before anything is measured. It packs what is known without a width, in document
 *   order, into pages of the content area's height: one line per hard line break of each text
 *   (at its smallest line height), the heights of lines (rules), and page breaks. The real
 *   layout only adds to that (wrapped lines, padding, margins, images and codes, which are scaled
 *   down to the room they get, rules that move boxes to the next page), so the bound never passes the real count: when it passes maxPages, the
 *   document is certainly too long and the render stops there.
 */
import { RenderError, type Limits } from '../errors.ts';

const EPS = 1e-6;

/** Glyph and box counts of one render against maxGlyphs and maxBoxes. */
export class LayoutBudget {
  private glyphs = 0;
  private boxes = 0;
  constructor(private readonly limits: Pick<Limits, 'maxGlyphs' | 'maxBoxes'>) {}

  /** Count `n` characters about to be shaped. @throws RenderError LIMIT_EXCEEDED past maxGlyphs. */
  glyphsFor(n: number, path: string): void {
    this.glyphs += n;
    if (this.glyphs > this.limits.maxGlyphs) {
      throw new RenderError('LIMIT_EXCEEDED', `the document has more than ${this.limits.maxGlyphs} characters of text`, path);
    }
  }

  /** Count `n` boxes (nodes or lines). @throws RenderError LIMIT_EXCEEDED past maxBoxes. */
  boxesFor(n: number, path: string | undefined): void {
    this.boxes += n;
    if (this.boxes > this.limits.maxBoxes) {
      throw new RenderError('LIMIT_EXCEEDED', `the document has more than ${this.limits.maxBoxes} boxes (nodes and lines of text)`, path);
    }
  }
}

/** A place in the content: pages begun before it, and height used on the current page. */
interface Position {
  pages: number;
  used: number;
}

/** The lower bound of the content's page count (see the module comment). */
export class PageEstimate {
  private pages = 1;
  private used = 0;
  /** A page break was passed: the next content starts a page (a break at the very end does not). */
  private broken = false;

  /**
   * @param regionHeight height of the content area of a page, points.
   * @param maxPages the limit.
   * @param breaks whether page breaks count here (false inside table cells and list items).
   */
  constructor(
    private readonly regionHeight: number,
    private readonly maxPages: number,
    private readonly breaks = true,
  ) {}

  /** `count` unbreakable pieces of `height` points each, one after the other. */
  add(count: number, height: number, path: string): void {
    if (count <= 0) return;
    this.startPage(path);
    const h = Math.min(Math.max(height, 0), this.regionHeight);
    if (h <= EPS) return;
    let left = count;
    while (left > 0) {
      if (this.used > 0 && this.used + h > this.regionHeight + EPS) this.newPage(path);
      const fit = Math.max(1, Math.floor((this.regionHeight - this.used + EPS) / h));
      const take = Math.min(left, fit);
      this.used += take * h;
      left -= take;
    }
  }

  /** A `pageBreak` node: what follows starts a new page. */
  pageBreak(path: string): void {
    if (!this.breaks) return;
    if (this.broken) this.newPage(path); // two breaks in a row make an empty page
    this.broken = true;
  }

  /** A node with `breakBefore: "page"`: a new page unless the current one is still empty. */
  breakBefore(path: string): void {
    if (!this.breaks) return;
    if (this.broken) return this.startPage(path);
    if (this.used > 0) this.newPage(path);
  }

  /** An estimate for content that starts here and runs beside other content (a column, a cell). */
  fork(breaks: boolean): PageEstimate {
    const child = new PageEstimate(this.regionHeight, this.maxPages, this.breaks && breaks);
    child.pages = this.pages;
    child.used = this.used;
    child.broken = this.broken;
    return child;
  }

  /** Continue after content that ran beside each other: where the longest of them ended. */
  join(children: readonly PageEstimate[]): void {
    for (const c of children) {
      if (c.pages > this.pages || (c.pages === this.pages && c.used > this.used)) {
        this.pages = c.pages;
        this.used = c.used;
        this.broken = false;
      }
    }
  }

  private startPage(path: string): void {
    if (this.broken) {
      this.broken = false;
      this.newPage(path);
    }
  }

  private newPage(path: string): void {
    this.pages++;
    this.used = 0;
    if (this.pages > this.maxPages) {
      throw new RenderError('LIMIT_EXCEEDED', `the document needs more than ${this.maxPages} pages`, path);
    }
  }

  /** The current position, for tests. */
  position(): Position {
    return { pages: this.pages, used: this.used };
  }
}
