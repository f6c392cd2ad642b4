/**
 * Tagged PDF in the paint pass: the draw items of a page are wrapped in marked-content sequences
 * (`/P <</MCID n>> BDC ... EMC` for content, `/Artifact BMC ... EMC` for page furniture and
 * decoration) and the structure tree built by the prepare pass (engine/tags/struct.ts) is written
 * through pdfkit's own structure support (doc.struct, markStructureContent, addStructure, which
 * keep the ParentTree, StructParents and MarkInfo).
 *
 * Lifecycle, as pdfkit's own features: {@link Tagger} is made with the document, `enter` is called
 * before each draw item, `endPage` before the page is finished, and `end` before doc.end().
 *
 * - Text, images and codes whose item carries an element are that element's content; a text run
 *   with a link becomes a Link element (its own content and its annotation as an OBJR) inside it.
 * - Rectangles, rules and bullets (borders, fills, stripes, decorative lines), items tagged
 *   artifact (header, footer, background, repeated table headers, the watermark) and items no
 *   element claims are artifacts.
 * - Elements are written in template order (the reading order), whatever order the content was
 *   painted in; an element that got no content and has none below it is left out, except table
 *   cells (the table's grid stays whole).
 */
import type PDFDocument from 'pdfkit';
import type { DrawItem } from '../layout/nodes.ts';
import { ARTIFACT, type ItemTag, type StructNode } from '../tags/struct.ts';

type Doc = InstanceType<typeof PDFDocument>;

/** pdfkit's structure element and structure content (not in its type declarations). */
interface PdfStructElement {
  dictionary: { data: Record<string, unknown> };
  add(child: unknown): PdfStructElement;
  end(): void;
}
interface TaggingDoc {
  struct(type: string, options?: Record<string, unknown>, children?: unknown[] | null): PdfStructElement;
  markStructureContent(tag: string, options?: Record<string, unknown>): unknown;
  markContent(tag: string, options?: Record<string, unknown> | null): unknown;
  endMarkedContent(): unknown;
  addStructure(el: PdfStructElement): unknown;
}

/** The sequence open on the page: artifact, an element's content, or a link's. */
type Open = null | typeof ARTIFACT | StructNode | { readonly link: PdfStructElement; readonly parent: StructNode };

/** Writes marked content and the structure tree of one document. */
export class Tagger {
  private readonly d: TaggingDoc;
  private readonly elements = new Map<StructNode, PdfStructElement>();
  private open: Open = null;
  /** Inside an item drawn whole as one artifact (the watermark's group). */
  private suppressed = 0;

  /**
   * @param root the structure tree's root element (Document), built by the prepare pass.
   * @param emit appends content operators to the page (after what was drawn before).
   */
  constructor(doc: Doc, private readonly root: StructNode, private readonly emit: (ops: string) => void) {
    this.d = doc as unknown as TaggingDoc;
  }

  /** What an item is: an element's content or an artifact. */
  private static owner(item: DrawItem): ItemTag {
    const tag = item.tag;
    if (tag === undefined || tag === ARTIFACT) return ARTIFACT;
    switch (item.kind) {
      case 'text':
      case 'image':
      case 'bars':
        return tag;
      default:
        return ARTIFACT;
    }
  }

  /**
   * Open the sequence `item` belongs to (closing the one before when it differs).
   * @returns for a text run with a link inside an element, the options its link annotation
   * takes (StructParent, Contents); otherwise null. Call {@link linked} once it is made.
   */
  enter(item: DrawItem): Record<string, unknown> | null {
    if (this.suppressed > 0) return null;
    const owner = Tagger.owner(item);
    if (owner !== ARTIFACT && item.kind === 'text' && item.run.style.link) {
      this.close();
      const link = this.d.struct('Link');
      this.flush();
      link.add(this.d.markStructureContent('Link'));
      this.open = { link, parent: owner };
      return { structParent: link, Contents: new String(item.run.style.link) };
    }
    if (owner === this.open) return null;
    this.close();
    if (owner === ARTIFACT) this.emit('/Artifact BMC');
    else this.mark(owner.type, this.element(owner));
    this.open = owner;
    return null;
  }

  /** The link annotation just made for the open Link element: its OBJR. */
  linked(): void {
    const open = this.open;
    if (open === null || typeof open !== 'object' || !('link' in open)) return;
    const annots = this.d.page.annotations;
    open.link.kids.push({ objr: annots[annots.length - 1], page: this.d.page.dictionary });
  }

  /** Draw a group (its items) as one artifact: the watermark; or let its items be marked one by one. */
  group(item: DrawItem, draw: () => void): void {
    if (this.suppressed > 0 || item.tag === ARTIFACT || item.tag === undefined) {
      this.enter({ ...item, tag: ARTIFACT } as DrawItem);
      this.suppressed++;
      try {
        draw();
      } finally {
        this.suppressed--;
      }
      return;
    }
    // Marked content must not straddle the group's q ... Q.
    this.close();
    draw();
    this.close();
  }

  /** Close the open sequence (before a page ends, or an item that is not its). */
  close(): void {
    if (this.suppressed > 0 || this.open === null) return;
    this.emit('EMC');
    const open = this.open;
    this.open = null;
    if (typeof open === 'object' && 'link' in open) {
      // Ended on its page: pdfkit writes the OBJR's page now.
      open.link.end();
      this.element(open.parent).add(open.link);
    }
  }

  /** The end of a page's content. */
  endPage(): void {
    this.close();
  }

  /** Write the structure tree (before doc.end()). */
  end(): void {
    this.close();
    const root = this.build(this.root) ?? this.d.struct('Document');
    this.d.addStructure(root);
  }

  /** A marked-content sequence with the page's next MCID, owned by `el`. */
  private mark(type: string, el: Written): void {
    if (this.marks === null) this.marks = this.d.getStructParentTree().get(this.d.page.structParentTreeKey);
    const mcid = this.marks.length;
    this.marks.push(el.ref);
    el.kids.push({ page: this.d.page.dictionary, mcid });
    this.emit(`/${type} <</MCID ${mcid}>> BDC`);
  }

  private element(node: StructNode): Written {
    let el = this.elements.get(node);
    if (!el) {
      const options: Record<string, unknown> = {};
      if (node.alt) options.alt = node.alt;
      if (node.lang) options.lang = node.lang;
      el = this.d.struct(node.type, options);
      if (node.scope || node.rowSpan || node.colSpan) {
        const attrs: Record<string, unknown> = { O: 'Table' };
        if (node.scope) attrs.Scope = node.scope;
        if (node.rowSpan) attrs.RowSpan = node.rowSpan;
        if (node.colSpan) attrs.ColSpan = node.colSpan;
        el.dictionary.data.A = attrs;
      }
      this.elements.set(node, el);
    }
    return el;
  }

  /** The element of `node` with its children in template order, or null when it is empty. */
  private build(node: StructNode): PdfStructElement | null {
    const painted = this.elements.get(node);
    const kids: PdfStructElement[] = [];
    for (const child of node.children) {
      const k = this.build(child);
      if (k) kids.push(k);
    }
    if (!painted && kids.length === 0 && !node.keep) return null;
    const el = painted ?? this.element(node);
    for (const k of kids) el.add(k);
    el.end();
    return el;
  }
}
