/**
 * Tagged PDF in the paint pass: the draw items of a page are wrapped in marked-content sequences
 * (`/P <</MCID n>> BDC ... EMC` for content, `/Artifact BMC ... EMC` for page furniture and
 * decoration), and the structure tree built by the prepare pass (engine/tags/struct.ts) is
 * written as structure elements. pdfkit keeps the document-level parts (`tagged: true`: MarkInfo,
 * StructTreeRoot with its ParentTree number tree, StructParents keys, Tabs /S on pages); the
 * operators go into the page writer's buffer with the rest of the page (no extra writes).
 *
 * The elements are written once, at the end, straight as PDF syntax into compressed object
 * streams (objstm.ts) where the file allows: an element is its StructNode plus an object number
 * and a list of numbers (its MCIDs), with no pdfkit object of its own. A 7,000-cell table made
 * that many pdfkit references, maps and dictionaries, which cost more time than the table's text.
 * In PDF 1.4 and encrypted files they are pdfkit objects written one by one (strings encrypted).
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
import { ARTIFACT, type ItemTag, type StructAttrs, type StructNode } from '../tags/struct.ts';
import { ObjectPacker, text, type AsciiWriter } from './objstm.ts';

type Doc = InstanceType<typeof PDFDocument>;

/** A pdfkit indirect object. */
interface Ref {
  readonly id: number;
  data: Record<string, unknown>;
  end(): void;
}
interface TaggingDoc {
  _offsets: (number | null)[];
  _waiting: number;
  _root: Ref;
  page: { dictionary: Ref; structParentTreeKey: number; annotations: Ref[] };
  getStructTreeRoot(): Ref;
  getStructParentTree(): { add(key: number, value: unknown): void };
  createStructParentTreeNextKey(): number;
}

/** A Link element: a text run with a link, its one MCID and its annotation (0: none was made). */
interface Link {
  readonly obj: number;
  readonly page: number;
  readonly mcid: number;
  annot: number;
}

/** The sequence open on the page: artifact, an element's content, or a link's (the Link's parent: `on`). */
type Open = null | typeof ARTIFACT | StructNode;

/** Writes marked content and the structure tree of one document. */
export class Tagger {
  private readonly d: TaggingDoc;
  private open: Open = null;
  /** The Link element open inside `open`, if any. */
  private link: Link | null = null;
  private readonly links: Link[] = [];
  /** Inside an item drawn whole as one artifact (the watermark's group). */
  private suppressed = 0;
  /** Object numbers of the owners of the current page's MCIDs, by MCID: the page's ParentTree array. */
  private marks: number[] = [];
  /** The current page's object number, 0 before its first MCID. */
  private page = 0;
  /**
   * Where each element's content went, by its object number: its first piece of marked content
   * as a number pair, (page object number, MCID), or (-1 - i, 0) for the i-th Link element made
   * inside it; `firstPage` 0: none yet. The pieces after the first, in painted order, as the
   * same pairs, in `more`. (Kept here, not in the elements: a table cell has one piece, and
   * thousands of cells are laid out before any is painted.)
   */
  private firstPage = new Int32Array(4096);
  private firstMcid = new Int32Array(4096);
  private readonly more = new Map<number, number[]>();
  /** Notes numbered so far (their IDs). */
  private notes = 0;
  /** The dictionary up to K of the last table cell written, and what it was made for (write). */
  private cellHead = '';
  private cellParent = 0;
  private cellPage = 0;
  private cellType = '';
  private cellScope: StructAttrs['scope'] = undefined;
  /** Elements go into compressed object streams where the file allows (objstm.ts). */
  private readonly packer: ObjectPacker | null;
  /** pdfkit's reference class, for objects written one by one and for `n 0 R` values. */
  private readonly Reference: new (doc: Doc, id: number, data: Record<string, unknown>) => Ref;

  /**
   * @param root the structure tree's root element (Document), built by the prepare pass.
   * @param emit appends content operators to the page (after what was drawn before).
   */
  constructor(private readonly doc: Doc, private readonly root: StructNode, private readonly emit: (ops: string) => void) {
    this.d = doc as unknown as TaggingDoc;
    this.packer = ObjectPacker.usable(doc) ? new ObjectPacker(doc) : null;
    this.Reference = this.d._root.constructor as never;
  }

  /**
   * Open the sequence `item` belongs to (closing the one before when it differs).
   * @returns for a text run with a link inside an element, the options its link annotation
   * takes (StructParent, Contents); otherwise null. Call {@link linked} once it is made.
   */
  enter(item: DrawItem): Record<string, unknown> | null {
    // (An anchor draws nothing: it neither opens nor closes a sequence.)
    if (this.suppressed > 0 || item.kind === 'anchor') return null;
    // Only text, images and codes are content; rectangles, rules and bullets are decoration.
    const kind = item.kind;
    const owner: ItemTag = kind !== 'text' && kind !== 'image' && kind !== 'bars' ? ARTIFACT : item.tag ?? ARTIFACT;
    if (owner !== ARTIFACT && item.kind === 'text' && item.run.style.link) {
      const end = this.closing();
      const obj = this.alloc();
      const mcid = this.mark(obj);
      const link: Link = { obj, page: this.page, mcid, annot: 0 };
      this.emit(`${end}/Link<</MCID ${mcid}>>BDC`);
      this.open = owner;
      this.link = link;
      const key = this.d.createStructParentTreeNextKey();
      this.d.getStructParentTree().add(key, this.ref(obj));
      return { StructParent: key, Contents: new String(item.run.style.link) };
    }
    if (owner === this.open && this.link === null) return null;
    const end = this.closing();
    this.open = owner;
    if (owner === ARTIFACT) {
      this.emit(end === '' ? '/Artifact BMC' : 'EMC\n/Artifact BMC');
      return null;
    }
    if (owner.obj === 0) owner.obj = this.alloc();
    const mcid = this.mark(owner.obj);
    this.addPiece(owner.obj, this.page, mcid);
    this.emit(bdc(owner.type, mcid, end !== ''));
    return null;
  }

  /** The link annotation just made for the open Link element: its OBJR. */
  linked(): void {
    if (this.link === null) return;
    const annots = this.d.page.annotations;
    this.link.annot = annots[annots.length - 1].id;
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
    const end = this.closing();
    if (end) this.emit('EMC');
  }

  /** Close the open sequence's bookkeeping; its EMC (with a line break) to emit, or ''. */
  private closing(): string {
    if (this.suppressed > 0 || this.open === null) return '';
    const link = this.link;
    if (link !== null) {
      // A Link element goes into its parent's content where it was painted.
      const owner = this.open as StructNode;
      if (owner.obj === 0) owner.obj = this.alloc();
      this.addPiece(owner.obj, -this.links.push(link), 0);
      this.link = null;
    }
    this.open = null;
    return 'EMC\n';
  }

  /** The end of a page's content: its ParentTree array (into an object stream when packing). */
  endPage(): void {
    this.close();
    if (this.marks.length > 0) {
      const key = this.d.page.structParentTreeKey;
      if (this.packer) {
        const array = this.packer.alloc();
        const w = this.packer.begin(array).ascii('[');
        for (const n of this.marks) w.int(n).ascii(' 0 R ');
        w.ascii(']');
        this.packer.end();
        this.d.getStructParentTree().add(key, this.ref(array));
      } else this.d.getStructParentTree().add(key, this.marks.map((n) => this.ref(n)));
    }
    this.marks = [];
    this.page = 0;
  }

  /** Write the structure tree (before doc.end()). */
  end(): void {
    this.close();
    const treeRoot = this.d.getStructTreeRoot();
    if (!this.build(this.root, treeRoot.id)) {
      this.root.obj = this.alloc();
      this.write(this.root, treeRoot.id);
    }
    treeRoot.data.K = [this.ref(this.root.obj)];
    this.packer?.flush();
  }

  /** A new object number. */
  private alloc(): number {
    return this.d._offsets.push(null);
  }

  /** A piece of element `obj`'s content: (page, MCID), or (-1 - i, 0) for its i-th Link. */
  private addPiece(obj: number, page: number, mcid: number): void {
    if (obj >= this.firstPage.length) {
      const size = Math.max(obj + 1, this.firstPage.length * 2);
      const pages = new Int32Array(size);
      pages.set(this.firstPage);
      this.firstPage = pages;
      const mcids = new Int32Array(size);
      mcids.set(this.firstMcid);
      this.firstMcid = mcids;
    }
    if (this.firstPage[obj] === 0) {
      this.firstPage[obj] = page;
      this.firstMcid[obj] = mcid;
      return;
    }
    const more = this.more.get(obj);
    if (more === undefined) this.more.set(obj, [page, mcid]);
    else more.push(page, mcid);
  }

  /** The page (or Link, < 0) of element `obj`'s first piece of content; 0: it has none. */
  private firstPageOf(obj: number): number {
    return obj < this.firstPage.length ? this.firstPage[obj] : 0;
  }

  /** `n 0 R` where pdfkit writes a value. */
  private ref(id: number): Ref {
    const r = Object.create(this.Reference.prototype) as { id: number; gen: number };
    r.id = id;
    r.gen = 0;
    return r as unknown as Ref;
  }

  /** The next MCID of the page, owned by object `obj`. */
  private mark(obj: number): number {
    if (this.page === 0) this.page = this.d.page.dictionary.id;
    return this.marks.push(obj) - 1;
  }

  /** Write the element of `node` and its children in template order; false when it is left out (empty). */
  private build(node: StructNode, parent: number): boolean {
    // (An object is made only for an element that will be written.)
    if (node.obj === 0) {
      if (!this.holds(node)) return false;
      node.obj = this.alloc();
    }
    // (A child left out keeps object number 0. Indexed loops here: an iterator per element of a
    // 7,000-cell table was a megabyte of garbage per render.)
    const children = node.children;
    for (let i = 0; i < children.length; i++) this.build(children[i], node.obj);
    this.write(node, parent);
    return true;
  }

  /** Whether an element is written: it got content, is kept, or holds one that is. */
  private holds(node: StructNode): boolean {
    if (node.obj !== 0 || node.attrs.keep) return true;
    const children = node.children;
    for (let i = 0; i < children.length; i++) if (this.holds(children[i])) return true;
    return false;
  }

  /** Write an element (and the Link elements in its content): S, P, attributes, Pg (the page of its first MCID), K. */
  private write(node: StructNode, parent: number): void {
    const packer = this.packer;
    if (!packer) return this.writeObject(node, parent);
    const obj = node.obj;
    const first = this.firstPageOf(obj);
    const firstMcid = first === 0 ? 0 : this.firstMcid[obj];
    const content = first === 0 ? null : this.more.get(obj) ?? null;
    const attrs = node.attrs;
    // A leaf with one MCID and no attributes of its own (a table cell: thousands of them): its
    // dictionary up to K is the same for the cells of a row on a page, and is made once for them.
    if (first > 0 && content === null && node.children.length === 0 && !attrs.alt && !attrs.lang && !attrs.rowSpan && !attrs.colSpan && node.type !== 'Note') {
      if (parent !== this.cellParent || first !== this.cellPage || node.type !== this.cellType || attrs.scope !== this.cellScope) {
        this.cellParent = parent;
        this.cellPage = first;
        this.cellType = node.type;
        this.cellScope = attrs.scope;
        this.cellHead = `<</S/${node.type}/P ${parent} 0 R${attrs.scope ? `/A<</O/Table/Scope/${attrs.scope}>>` : ''}/Pg ${first} 0 R/K `;
      }
      packer.begin(obj).ascii(this.cellHead).int(firstMcid).ascii('>>');
      packer.end();
      return;
    }
    // Its pieces of content: the first, then the rest (see firstPage).
    let n = first === 0 ? 0 : 1;
    let pg = first > 0 ? first : 0;
    if (content !== null) {
      n += content.length / 2;
      for (let i = 0; i < content.length && pg === 0; i += 2) if (content[i] > 0) pg = content[i];
    }
    const children = node.children;
    for (let i = 0; i < children.length; i++) if (children[i].obj !== 0) n++;
    const w = packer.begin(obj).ascii('<</S/').ascii(node.type).ascii('/P ').ref(parent);
    // PDF/UA: every Note has an ID of its own.
    if (node.type === 'Note') w.ascii('/ID').ascii(text(`note-${++this.notes}`));
    if (attrs.alt) w.ascii('/Alt').ascii(text(attrs.alt));
    if (attrs.lang) w.ascii('/Lang').ascii(text(attrs.lang));
    if (attrs.scope || attrs.rowSpan || attrs.colSpan) {
      w.ascii(`/A<</O/Table${attrs.scope ? `/Scope/${attrs.scope}` : ''}${attrs.rowSpan ? `/RowSpan ${attrs.rowSpan}` : ''}${attrs.colSpan ? `/ColSpan ${attrs.colSpan}` : ''}>>`);
    }
    if (pg !== 0) w.ascii('/Pg ').ref(pg);
    w.ascii(n === 1 ? '/K ' : '/K[');
    if (first !== 0) this.kid(w, first, firstMcid, pg);
    if (content !== null) {
      for (let i = 0; i < content.length; i += 2) {
        w.ascii(' ');
        this.kid(w, content[i], content[i + 1], pg);
      }
    }
    let sep = first !== 0;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child.obj === 0) continue;
      if (sep) w.ascii(' ');
      sep = true;
      w.ref(child.obj);
    }
    w.ascii(n === 1 ? '>>' : ']>>');
    packer.end();
    // Its Link elements, each an object of its own.
    if (first < 0) this.writeLink(this.links[-first - 1], obj);
    if (content !== null) for (let i = 0; i < content.length; i += 2) if (content[i] < 0) this.writeLink(this.links[-content[i] - 1], obj);
  }

  /** One piece of an element's K: its MCID (on page `pg`), a marked-content reference (another page), or a Link element. */
  private kid(w: AsciiWriter, page: number, mcid: number, pg: number): void {
    if (page < 0) w.ref(this.links[-page - 1].obj);
    else if (page === pg) w.int(mcid);
    else w.ascii('<</Type/MCR/Pg ').ref(page).ascii('/MCID ').int(mcid).ascii('>>');
  }

  private writeLink(link: Link, parent: number): void {
    const w = this.packer!.begin(link.obj).ascii('<</S/Link/P ').ref(parent).ascii('/Pg ').ref(link.page).ascii('/K[').int(link.mcid);
    if (link.annot) w.ascii(' <</Type/OBJR/Obj ').ref(link.annot).ascii('/Pg ').ref(link.page).ascii('>>');
    w.ascii(']>>');
    this.packer!.end();
  }

  /** An element as a pdfkit object written on its own (PDF 1.4, encrypted files: pdfkit encrypts its strings). */
  private writeObject(node: StructNode, parent: number): void {
    const own = node.attrs;
    const data: Record<string, unknown> = { S: node.type, P: this.ref(parent) };
    if (node.type === 'Note') data.ID = new String(`note-${++this.notes}`);
    if (own.alt) data.Alt = new String(own.alt);
    if (own.lang) data.Lang = new String(own.lang);
    if (own.scope || own.rowSpan || own.colSpan) {
      const attrs: Record<string, unknown> = { O: 'Table' };
      if (own.scope) attrs.Scope = own.scope;
      if (own.rowSpan) attrs.RowSpan = own.rowSpan;
      if (own.colSpan) attrs.ColSpan = own.colSpan;
      data.A = attrs;
    }
    const k: unknown[] = [];
    let pg = 0;
    const obj = node.obj;
    const first = this.firstPageOf(obj);
    const content = first === 0 ? [] : [first, this.firstMcid[obj], ...(this.more.get(obj) ?? [])];
    for (let i = 0; i < content.length; i += 2) {
      const page = content[i];
      if (page < 0) {
        const link = this.links[-page - 1];
        const linkKids: unknown[] = [link.mcid];
        if (link.annot) linkKids.push({ Type: 'OBJR', Obj: this.ref(link.annot), Pg: this.ref(link.page) });
        this.writeRef(link.obj, { S: 'Link', P: this.ref(node.obj), Pg: this.ref(link.page), K: linkKids });
        k.push(this.ref(link.obj));
      } else if (pg === 0 || page === pg) {
        pg = page;
        k.push(content[i + 1]);
      } else k.push({ Type: 'MCR', Pg: this.ref(page), MCID: content[i + 1] });
    }
    for (const child of node.children) if (child.obj !== 0) k.push(this.ref(child.obj));
    if (pg !== 0) data.Pg = this.ref(pg);
    data.K = k.length === 1 ? k[0] : k;
    this.writeRef(node.obj, data);
  }

  private writeRef(id: number, data: Record<string, unknown>): void {
    const ref = new this.Reference(this.doc, id, data);
    this.d._waiting++;
    ref.end();
  }
}

// The operators opening an element's marked content, by type and MCID (after an EMC or not): the
// same few hundred strings on every page of every document, made once.
const BDC_CACHED = 2048;
const bdcs = new Map<string, string[]>();

/** `/Type<</MCID n>>BDC`, after `EMC` and a line break when `closing`. */
function bdc(type: string, mcid: number, closing: boolean): string {
  if (mcid >= BDC_CACHED) return `${closing ? 'EMC\n' : ''}/${type}<</MCID ${mcid}>>BDC`;
  let list = bdcs.get(type);
  if (list === undefined) bdcs.set(type, (list = []));
  const at = mcid * 2 + (closing ? 1 : 0);
  return (list[at] ??= `${closing ? 'EMC\n' : ''}/${type}<</MCID ${mcid}>>BDC`);
}
