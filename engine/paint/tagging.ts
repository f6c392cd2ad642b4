/**
 * Tagged PDF in the paint pass: the draw items of a page are wrapped in marked-content sequences
 * (`/P <</MCID n>> BDC ... EMC` for content, `/Artifact BMC ... EMC` for page furniture and
 * decoration), and the structure tree built by the prepare pass (engine/tags/struct.ts) is
 * written as structure elements. pdfkit keeps the document-level parts (`tagged: true`: MarkInfo,
 * StructTreeRoot with its ParentTree number tree, StructParents keys, Tabs /S on pages); the
 * operators go into the page writer's buffer with the rest of the page (no extra writes), and the
 * elements are plain indirect objects written once, at the end (pdfkit's PDFStructureElement
 * flushes element by element and cost a third more time on a table-heavy report).
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
import { ObjectPacker, text } from './objstm.ts';

type Doc = InstanceType<typeof PDFDocument>;

/** A pdfkit indirect object. */
interface Ref {
  data: Record<string, unknown>;
  end(): void;
}
interface TaggingDoc {
  ref(data: Record<string, unknown>): Ref;
  page: { dictionary: Ref; structParentTreeKey: number; annotations: Ref[] };
  getStructTreeRoot(): Ref;
  getStructParentTree(): { get(key: number): Ref[]; add(key: number, value: unknown): void };
  createStructParentTreeNextKey(): number;
}

/** What an element holds, in order: MCIDs on a page, child elements, annotations. */
type Kid = { readonly page: Ref; readonly mcid: number } | Written | { readonly objr: Ref; readonly page: Ref };

/** An element being written: its object, and its kids in reading order. */
interface Written {
  readonly ref: Ref;
  readonly kids: Kid[];
  /** Its object has been written (or packed). */
  done?: boolean;
}

/** The object number of a reference. */
function id(r: Ref): number {
  return (r as unknown as { id: number }).id;
}

/** The sequence open on the page: artifact, an element's content, or a link's. */
type Open = null | typeof ARTIFACT | StructNode | { readonly link: Written; readonly parent: StructNode };

/** Writes marked content and the structure tree of one document. */
export class Tagger {
  private readonly d: TaggingDoc;
  private readonly elements = new Map<StructNode, Written>();
  private open: Open = null;
  /** Inside an item drawn whole as one artifact (the watermark's group). */
  private suppressed = 0;
  /** MCIDs of the current page: the ParentTree's array for it. */
  private marks: Ref[] | null = null;
  /** Notes numbered so far (their IDs). */
  private notes = 0;
  /** Elements go into compressed object streams where the file allows (objstm.ts). */
  private readonly packer: ObjectPacker | null;

  /**
   * @param root the structure tree's root element (Document), built by the prepare pass.
   * @param emit appends content operators to the page (after what was drawn before).
   */
  constructor(doc: Doc, private readonly root: StructNode, private readonly emit: (ops: string) => void) {
    this.d = doc as unknown as TaggingDoc;
    this.packer = ObjectPacker.usable(doc) ? new ObjectPacker(doc) : null;
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
    // (An anchor draws nothing: it neither opens nor closes a sequence.)
    if (this.suppressed > 0 || item.kind === 'anchor') return null;
    const owner = Tagger.owner(item);
    if (owner !== ARTIFACT && item.kind === 'text' && item.run.style.link) {
      this.close();
      const link: Written = { ref: this.newRef({ S: 'Link' }), kids: [] };
      this.mark('Link', link);
      this.open = { link, parent: owner };
      const key = this.d.createStructParentTreeNextKey();
      this.d.getStructParentTree().add(key, link.ref);
      return { StructParent: key, Contents: new String(item.run.style.link) };
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
    if (this.suppressed > 0 || item.tag === ARTIFACT) {
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
    if (typeof open === 'object' && 'link' in open) this.element(open.parent).kids.push(open.link);
  }

  /** The end of a page's content: its ParentTree array goes into an object stream too. */
  endPage(): void {
    this.close();
    if (this.marks && this.packer) {
      const array = this.newRef({});
      (array as { data: unknown }).data = this.marks;
      this.d.getStructParentTree().add(this.d.page.structParentTreeKey, array);
      this.packer.add(array as never);
    }
    this.marks = null;
  }

  /** Write the structure tree (before doc.end()). */
  end(): void {
    this.close();
    const treeRoot = this.d.getStructTreeRoot();
    const root = this.build(this.root, treeRoot) ?? this.write({ ref: this.newRef({ S: 'Document' }), kids: [] }, treeRoot);
    treeRoot.data.K = [root.ref];
    this.packer?.flush();
  }

  /** An element's object: packed into an object stream, or written on its own by pdfkit. */
  private newRef(data: Record<string, unknown>): Ref {
    return this.packer ? (this.packer.ref(data) as unknown as Ref) : this.d.ref(data);
  }

  /** A marked-content sequence with the page's next MCID, owned by `el`. */
  private mark(type: string, el: Written): void {
    if (this.marks === null) this.marks = this.d.getStructParentTree().get(this.d.page.structParentTreeKey);
    const mcid = this.marks.length;
    this.marks.push(el.ref);
    el.kids.push({ page: this.d.page.dictionary, mcid });
    this.emit(`/${type}<</MCID ${mcid}>>BDC`);
  }

  private element(node: StructNode): Written {
    let el = this.elements.get(node);
    if (!el) {
      const data: Record<string, unknown> = { S: node.type };
      // PDF/UA: every Note has an ID of its own.
      if (node.type === 'Note') data.ID = new String(`note-${++this.notes}`);
      if (node.alt) data.Alt = new String(node.alt);
      if (node.lang) data.Lang = new String(node.lang);
      if (node.scope || node.rowSpan || node.colSpan) {
        const attrs: Record<string, unknown> = { O: 'Table' };
        if (node.scope) attrs.Scope = node.scope;
        if (node.rowSpan) attrs.RowSpan = node.rowSpan;
        if (node.colSpan) attrs.ColSpan = node.colSpan;
        data.A = attrs;
      }
      el = { ref: this.newRef(data), kids: [] };
      this.elements.set(node, el);
    }
    return el;
  }

  /** The element of `node` with its children in template order, written; null when it is empty. */
  private build(node: StructNode, parent: Ref): Written | null {
    const painted = this.elements.get(node);
    // (An object is made only for an element that will be written: pdfkit lists every one.)
    if (!painted && !this.holds(node)) return null;
    const el = painted ?? this.element(node);
    for (const child of node.children) {
      const k = this.build(child, el.ref);
      if (k) el.kids.push(k);
    }
    return this.write(el, parent);
  }

  /** Whether an element is written: it got content, is kept, or holds one that is. */
  private holds(node: StructNode): boolean {
    if (node.keep || this.elements.has(node)) return true;
    for (const child of node.children) if (this.holds(child)) return true;
    return false;
  }

  /** Write an element and the Link elements inside it: P, Pg (the page of its first MCID), K. */
  private write(el: Written, parent: Ref): Written {
    el.done = true;
    if (this.packer) {
      this.packer.add(el.ref as never, this.body(el, parent));
      return el;
    }
    const data = el.ref.data;
    data.P = parent;
    const k: unknown[] = [];
    let pg: Ref | undefined;
    for (const kid of el.kids) {
      if ('ref' in kid) {
        if (!kid.done) this.write(kid, el.ref);
        k.push(kid.ref);
      } else if ('objr' in kid) k.push({ Type: 'OBJR', Obj: kid.objr, Pg: kid.page });
      else {
        pg ??= kid.page;
        k.push(kid.page === pg ? kid.mcid : { Type: 'MCR', Pg: kid.page, MCID: kid.mcid });
      }
    }
    if (pg) data.Pg = pg;
    data.K = k.length === 1 ? k[0] : k;
    el.ref.end();
    return el;
  }

  /** An element's dictionary in PDF syntax, written directly (thousands of table cells). */
  private body(el: Written, parent: Ref): string {
    const data = el.ref.data as { S: string; ID?: unknown; Alt?: unknown; Lang?: unknown; A?: { Scope?: string; RowSpan?: number; ColSpan?: number } };
    let out = `<</S/${data.S}/P ${id(parent)} 0 R`;
    if (data.ID !== undefined) out += `/ID${text(String(data.ID))}`;
    if (data.Alt !== undefined) out += `/Alt${text(String(data.Alt))}`;
    if (data.Lang !== undefined) out += `/Lang${text(String(data.Lang))}`;
    const a = data.A;
    if (a) out += `/A<</O/Table${a.Scope ? `/Scope/${a.Scope}` : ''}${a.RowSpan ? `/RowSpan ${a.RowSpan}` : ''}${a.ColSpan ? `/ColSpan ${a.ColSpan}` : ''}>>`;
    let k = '';
    let n = 0;
    let pg: Ref | undefined;
    for (const kid of el.kids) {
      if (n++ > 0) k += ' ';
      if ('ref' in kid) {
        if (!kid.done) this.write(kid, el.ref);
        k += `${id(kid.ref)} 0 R`;
      } else if ('objr' in kid) k += `<</Type/OBJR/Obj ${id(kid.objr)} 0 R/Pg ${id(kid.page)} 0 R>>`;
      else {
        pg ??= kid.page;
        k += kid.page === pg ? String(kid.mcid) : `<</Type/MCR/Pg ${id(kid.page)} 0 R/MCID ${kid.mcid}>>`;
      }
    }
    if (pg) out += `/Pg ${id(pg)} 0 R`;
    return `${out}/K${n === 1 ? ` ${k}` : `[${k}]`}>>`;
  }
}
