/**
 * The paint pass: pages of absolute draw items become a PDF through pdfkit. Text, rectangles,
 * rules and bars are written as content-stream operators directly; images (prepared once per image
 * by images.ts) and link annotations go through pdfkit's API. Coordinates arrive top-left based
 * (pdfkit flips every page for us).
 */
import PDFDocument from 'pdfkit';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { RenderError } from '../errors.ts';
import { installMetadata } from '../pdfa/document.ts';
import type { PdfaProfile } from '../pdfa/variant.ts';
import { xmpText } from '../pdfa/xmp.ts';
import type { FontFace } from '../text/fonts.ts';
import type { Line, LineRun, RGB } from '../text/paragraph.ts';
import type { DecodedImage, DrawItem, Page } from '../layout/nodes.ts';
import type { EmbeddedFace } from './fonts.ts';
import { embedPrepared, prepareImage, type PreparedImage } from './images.ts';
import { drawSvg, loadSvgPainter } from './svg.ts';
import { mirroredBrackets, num, pdfFont, tjArray, type MirroredGlyphs } from './glyphs.ts';
import { Tagger } from './tagging.ts';
import type { StructNode } from '../tags/struct.ts';

/** Document-level properties written to the Info dictionary. */
export interface DocumentInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  /** BCP 47 language tag: the catalog's /Lang. */
  language?: string;
  /** CreationDate and ModDate. */
  date: Date;
}

type Doc = InstanceType<typeof PDFDocument>;

/** Paint state of one page, so colours and fonts are set only when they change. */
class PageWriter {
  private ops: string[] = [];
  private fill = '';
  private font = '';
  /** Tagged PDF: marks each item's content (tagging.ts); null for an untagged PDF. */
  tagger: Tagger | null = null;
  /** The options of the link annotation of the text run being drawn (tagging.ts). */
  private linkOptions: Record<string, unknown> | null = null;
  /** Ids of the document's anchors: the destinations internal links ("#id") may go to. */
  destinations: ReadonlySet<string> = new Set();
  /** Headings met so far, in order, for the outline. */
  headings: { level: number; title: string; id: string }[] = [];
  constructor(
    private readonly doc: Doc,
    private readonly fonts: Map<FontFace, EmbeddedFace>,
    private readonly images: Map<DecodedImage, unknown>,
    private readonly prepared: ReadonlyMap<DecodedImage, PreparedImage>,
    private readonly pdfa: PdfaProfile | undefined,
    /** Refuse .notdef glyphs (PDF/A, PDF/UA). */
    private readonly strictGlyphs: boolean = pdfa !== undefined,
  ) {}

  private setFill(c: RGB): void {
    const v = `${num(c[0] / 255)} ${num(c[1] / 255)} ${num(c[2] / 255)} rg`;
    if (v !== this.fill) {
      this.ops.push(v);
      this.fill = v;
    }
  }

  private stroke(c: RGB, width: number, dash?: readonly number[]): void {
    this.ops.push(`${num(c[0] / 255)} ${num(c[1] / 255)} ${num(c[2] / 255)} RG ${num(width)} w${dash && dash.length ? ` [${dash.map(num).join(' ')}] 0 d` : ' [] 0 d'}`);
  }

  text(x: number, y: number, run: LineRun, line?: Line): void {
    const st = run.style;
    if (this.strictGlyphs) refuseMissingGlyphs(run, this.pdfa ? 'PDF/A' : 'PDF/UA');
    const f = pdfFont(this.doc, this.fonts, run.face);
    const page = this.doc.page as unknown as { fonts: Record<string, unknown> };
    if (page.fonts[f.id] === undefined) page.fonts[f.id] = f.ref;
    this.setFill(st.color);
    const tf = `/${f.id} ${num(st.size)} Tf`;
    const fontOp = tf !== this.font ? `${tf} ` : '';
    this.font = tf;
    const show = `BT ${fontOp}1 0 0 -1 ${num(x)} ${num(y)} Tm ${tjArray(f, run.face, run, line && this.mirrors(line))} ET`;
    const actual = actualText(run);
    this.ops.push(actual ? `/Span <</ActualText ${actual}>> BDC ${show} EMC` : show);
    if (st.decoration !== 'none') {
      const face = run.face;
      const thickness = face.underlineThickness * st.size;
      const ly = st.decoration === 'underline' ? y + face.underlinePosition * st.size : y - (face.xHeight * st.size) / 2;
      this.stroke(st.color, thickness);
      this.ops.push(`${num(x)} ${num(ly)} m ${num(x + run.width)} ${num(ly)} l S`);
    }
    if (st.link) {
      this.flush();
      const top = y - run.face.ascent * st.size;
      // F 4: printable (PDF/A requires it; harmless elsewhere).
      const h = (run.face.ascent + run.face.descent) * st.size;
      if (!st.link.startsWith('#')) this.doc.link(x, top, run.width, h, st.link, { F: 4, ...this.linkOptions } as never);
      // An internal link goes to the named destination of its id (none: LINK_UNRESOLVED, no link).
      else if (this.destinations.has(st.link.slice(1))) this.doc.goTo(x, top, run.width, h, st.link.slice(1), { F: 4, ...this.linkOptions } as never);
      else return;
      if (this.linkOptions) this.tagger?.linked();
    }
  }

  /** The line whose runs are being drawn, and its mirrored brackets (worked out once per line). */
  private mirrorsLine: Line | null = null;
  private mirrorsOfLine: MirroredGlyphs | null = null;

  /**
   * A line's mirrored brackets. Its runs are drawn one after another, so the last line's answer
   * is kept (a lookup table keyed by line cost more: thousands of lines a document).
   */
  private mirrors(line: Line): MirroredGlyphs | null {
    if (line !== this.mirrorsLine) {
      this.mirrorsLine = line;
      this.mirrorsOfLine = lineMirrors(line);
    }
    return this.mirrorsOfLine;
  }

  rect(x: number, y: number, w: number, h: number, fill: RGB | null, stroke: RGB | null, lineWidth: number, radius?: number): void {
    if (fill) this.setFill(fill);
    if (stroke) this.stroke(stroke, lineWidth);
    this.ops.push(`${rectPath(x, y, w, h, radius)} ${fill && stroke ? 'B' : fill ? 'f' : 'S'}`);
  }

  line(x1: number, y1: number, x2: number, y2: number, color: RGB, width: number, dash?: readonly number[]): void {
    this.stroke(color, width, dash);
    this.ops.push(`${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S`);
  }

  bars(item: Extract<DrawItem, { kind: 'bars' }>): void {
    this.setFill(item.color);
    this.ops.push(`q ${fine(item.sx)} 0 0 ${fine(item.sy)} ${num(item.x)} ${num(item.y)} cm\n${barsPath(item.rects)}\nf\nQ`);
  }

  shape(item: Extract<DrawItem, { kind: 'shape' }>): void {
    const { cx, cy, size } = item;
    const r = size / 2;
    if (item.shape === 'square') {
      this.setFill(item.color);
      this.ops.push(`${num(cx - r)} ${num(cy - r)} ${num(size)} ${num(size)} re f`);
      return;
    }
    // A circle from four cubic Béziers (k = 4/3 (sqrt 2 - 1)).
    const k = 0.5522847498 * r;
    const path = [
      `${num(cx + r)} ${num(cy)} m`,
      `${num(cx + r)} ${num(cy + k)} ${num(cx + k)} ${num(cy + r)} ${num(cx)} ${num(cy + r)} c`,
      `${num(cx - k)} ${num(cy + r)} ${num(cx - r)} ${num(cy + k)} ${num(cx - r)} ${num(cy)} c`,
      `${num(cx - r)} ${num(cy - k)} ${num(cx - k)} ${num(cy - r)} ${num(cx)} ${num(cy - r)} c`,
      `${num(cx + k)} ${num(cy - r)} ${num(cx + r)} ${num(cy - k)} ${num(cx + r)} ${num(cy)} c`,
    ].join(' ');
    if (item.shape === 'disc') {
      this.setFill(item.color);
      this.ops.push(`${path} f`);
    } else {
      this.stroke(item.color, size * 0.16);
      this.ops.push(`${path} S`);
    }
  }

  image(item: Extract<DrawItem, { kind: 'image' }>): void {
    this.flush();
    // Laid out with no room (a 0 pt wide cell): nothing to see. pdfkit would draw a width or
    // height of 0 at the picture's own size instead, off the paper.
    if (!(item.w > 0 && item.h > 0)) return;
    if (item.image.type === 'svg') return this.svg(item);
    let img = this.images.get(item.image);
    if (!img) {
      img = embedPrepared(this.doc, this.prepared.get(item.image)!, `Im${this.images.size + 1}`);
      this.images.set(item.image, img);
    }
    if (item.clip) {
      this.doc.save();
      this.ops.push(`${rectPath(item.clip.x, item.clip.y, item.clip.w, item.clip.h, item.clip.radius)} W n`);
      this.flush();
    }
    this.doc.image(img as never, item.x, item.y, { width: item.w, height: item.h });
    if (item.clip) this.doc.restore();
  }

  /** An SVG image as vectors (svg.ts), clipped like a raster image. */
  svg(item: Extract<DrawItem, { kind: 'image' }>): void {
    if (this.pdfa?.part === 1) {
      const svg = item.image.data.toString('utf8');
      if (/opacity/i.test(svg)) throw new RenderError('PDFA_CONFLICT', 'an SVG image uses opacity, which PDF/A-1 forbids (transparency); use pdf/a-2b or pdf/a-3b, or an opaque SVG');
      // svg-to-pdfkit embeds the text's font without the CIDSet PDF/A-1 requires.
      if (/<([\w-]+:)?text[\s>]/.test(svg)) throw new RenderError('PDFA_CONFLICT', 'an SVG image with text cannot be written as PDF/A-1; use pdf/a-2b or pdf/a-3b, or an SVG whose text is converted to paths');
    }
    this.doc.save();
    if (item.clip) {
      this.ops.push(`${rectPath(item.clip.x, item.clip.y, item.clip.w, item.clip.h, item.clip.radius)} W n`);
      this.flush();
    }
    drawSvg(this.doc, item.image, item.x, item.y, item.w, item.h, item.path);
    this.doc.restore();
  }

  /** Items through a transform, at an opacity: saved and restored around them. */
  group(item: Extract<DrawItem, { kind: 'group' }>): void {
    if (this.tagger) return this.tagger.group(item, () => this.groupItems(item));
    this.groupItems(item);
  }

  private groupItems(item: Extract<DrawItem, { kind: 'group' }>): void {
    this.flush();
    this.doc.save();
    // Every fill and stroke at the opacity (PDF/A-1 templates with opacity are refused before layout).
    if (item.opacity !== null) this.doc.opacity(item.opacity);
    this.ops.push(`${item.matrix.map(fine).join(' ')} cm`);
    if (item.clip) this.ops.push(`${rectPath(item.clip.x, item.clip.y, item.clip.w, item.clip.h, item.clip.radius)} W n`);
    for (const inner of item.items) this.draw(inner);
    // Marked content opened inside the group ends before its Q (a whole-artifact group's stays open).
    this.tagger?.close();
    this.flush();
    this.doc.restore();
    // The restore brought back the colour and font of before the group.
    this.fill = '';
    this.font = '';
  }

  draw(item: DrawItem): void {
    if (item.kind === 'anchor') return this.anchor(item);
    if (this.tagger && item.kind !== 'group') this.linkOptions = this.tagger.enter(item);
    switch (item.kind) {
      case 'text': return this.text(item.x, item.y, item.run, item.line);
      case 'rect': return this.rect(item.x, item.y, item.w, item.h, item.fill, item.stroke, item.lineWidth, item.radius);
      case 'line': return this.line(item.x1, item.y1, item.x2, item.y2, item.color, item.width, item.dash);
      case 'bars': return this.bars(item);
      case 'image': return this.image(item);
      case 'shape': return this.shape(item);
      case 'group': return this.group(item);
    }
  }

  /** A named destination at the anchor (its first one per id), and a heading for the outline. */
  anchor(item: Extract<DrawItem, { kind: 'anchor' }>): void {
    if (this.named.has(item.id)) return;
    this.named.add(item.id);
    this.doc.addNamedDestination(item.id, 'XYZ', item.x, item.y, null);
    if (item.heading) this.headings.push({ ...item.heading, id: item.id });
  }

  /** Ids given a named destination already (shared by the document's pages). */
  named: Set<string> = new Set();

  /** Append content operators (marked content, from tagging.ts) after what was drawn so far. */
  emit(op: string): void {
    this.ops.push(op);
  }

  flush(): void {
    if (this.ops.length > 0) {
      // As bytes: pdfkit would copy a string into bytes one character at a time (and add the
      // newline); Node's latin1 encoder gives the same bytes natively.
      this.doc.addContent(Buffer.from(`${this.ops.join('\n')}\n`, 'latin1') as unknown as string);
      this.ops = [];
    }
  }
}

/**
 * zlib level of page content streams. Measured on the 1,000-row report's 887 KB of content (25
 * pages): level 6 (zlib's and pdfkit's default) 10.7 ms and 111.6 KB, 3 5.6 ms and 125.0 KB
 * (+4.7% of the 285 KB file), 1 3.8 ms and 134.5 KB.
 */
const CONTENT_LEVEL = 3;

/** pdfkit's stream object (PDFReference), as much of it as compressFaster needs. */
interface ContentStream {
  compress: boolean;
  data: Record<string, unknown>;
  buffer: Uint8Array[];
  finalize(): void;
}

/** A page's content stream deflated at {@link CONTENT_LEVEL} instead of pdfkit's level 6. */
function compressFaster(content: ContentStream): void {
  if (!content.compress) return; // pdfkit set not to compress: leave it so
  content.compress = false;
  content.data.Filter = 'FlateDecode';
  const finalize = content.finalize;
  content.finalize = function (this: ContentStream) {
    if (this.buffer.length > 0) this.buffer = [deflateSync(Buffer.concat(this.buffer), { level: CONTENT_LEVEL })];
    finalize.call(this);
  };
}

/**
 * Text the glyphs cannot tell on their own: where a left-to-right run's glyphs, read in order,
 * do not spell its text (Thai ำ drawn as two glyphs, Devanagari ि drawn before its consonant),
 * the run is marked with /ActualText so extraction, search and copy give the text as written.
 * @returns the ActualText string (UTF-16BE hex), or null when the glyphs suffice.
 */
function actualText(run: LineRun): string | null {
  let mismatch = false;
  for (const piece of run.pieces) {
    // Right-to-left glyphs stand in visual order, as extraction expects (it puts them back in
    // logical order); mirrored brackets carry their own ActualText (glyphs.ts).
    if (piece.level % 2 === 1) return null;
    if (!spells(piece.run, piece.text)) mismatch = true;
  }
  if (!mismatch) return null;
  let text = '';
  for (const piece of run.pieces) text += piece.text;
  return utf16(text);
}

/** A line's mirrored brackets (glyphs.ts), or null for a line without right-to-left text. */
function lineMirrors(line: Line): MirroredGlyphs | null {
  for (const r of line.runs) for (const p of r.pieces) if (p.level % 2 === 1) return mirroredBrackets(line);
  return null;
}

function utf16(text: string): string {
  return `<FEFF${Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}

/** The ids of every anchor of the pages (inside groups too). */
function anchorIds(pages: readonly Page[]): Set<string> {
  const ids = new Set<string>();
  const walk = (items: readonly DrawItem[]): void => {
    for (const item of items) {
      if (item.kind === 'anchor') ids.add(item.id);
      else if (item.kind === 'group') walk(item.items);
    }
  };
  for (const page of pages) walk(page.items);
  return ids;
}

/**
 * The document outline (bookmarks) from its headings, in order, nested by level (an h3 after an
 * h1 goes under it), each going to its heading's named destination; top levels open.
 */
function addOutline(doc: Doc, headings: readonly { level: number; title: string; id: string }[]): void {
  type Item = { addItem: (title: string, options?: object) => Item; outlineData: Record<string, unknown> };
  const root = (doc as unknown as { outline: Item }).outline;
  // Bookmarks are there, but viewers open the document as usual (pdfkit would ask for UseOutlines).
  if (headings.length > 0) (doc as unknown as { _root: { data: Record<string, unknown> } })._root.data.PageMode = 'UseNone';
  const open: { level: number; item: Item }[] = [];
  for (const h of headings) {
    while (open.length > 0 && open[open.length - 1].level >= h.level) open.pop();
    const parent = open.length > 0 ? open[open.length - 1].item : root;
    const item = parent.addItem(h.title, { expanded: open.length === 0 });
    item.outlineData.Dest = new String(h.id);
    open.push({ level: h.level, item });
  }
}

/** A rectangle's path, its corners rounded by `radius` (at most half the shorter side) with cubic Béziers. */
function rectPath(x: number, y: number, w: number, h: number, radius?: number): string {
  const r = Math.min(radius ?? 0, w / 2, h / 2);
  if (!(r > 0)) return `${num(x)} ${num(y)} ${num(w)} ${num(h)} re`;
  const k = r * (1 - 0.5522847498);
  const x2 = x + w;
  const y2 = y + h;
  return [
    `${num(x + r)} ${num(y)} m`,
    `${num(x2 - r)} ${num(y)} l`,
    `${num(x2 - k)} ${num(y)} ${num(x2)} ${num(y + k)} ${num(x2)} ${num(y + r)} c`,
    `${num(x2)} ${num(y2 - r)} l`,
    `${num(x2)} ${num(y2 - k)} ${num(x2 - k)} ${num(y2)} ${num(x2 - r)} ${num(y2)} c`,
    `${num(x + r)} ${num(y2)} l`,
    `${num(x + k)} ${num(y2)} ${num(x)} ${num(y2 - k)} ${num(x)} ${num(y2 - r)} c`,
    `${num(x)} ${num(y + r)} l`,
    `${num(x)} ${num(y + k)} ${num(x + k)} ${num(y)} ${num(x + r)} ${num(y)} c h`,
  ].join(' ');
}

// A code's rectangles in module units, as path operators: the same for every render of the code.
const paths = new WeakMap<readonly number[], string>();

/** A number with six decimals: the code's scale multiplies any rounding by its size in modules. */
function fine(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
}

function barsPath(rects: readonly number[]): string {
  let path = paths.get(rects);
  if (path === undefined) {
    const parts: string[] = [];
    for (let i = 0; i < rects.length; i += 4) parts.push(`${fine(rects[i])} ${fine(rects[i + 1])} ${fine(rects[i + 2])} ${fine(rects[i + 3])} re`);
    path = parts.join('\n');
    paths.set(rects, path);
  }
  return path;
}

// Shaped runs are cached and shared: whether one spells its text is worked out once.
const spelled = new WeakMap<object, boolean>();

/** Whether a glyph run's code points, read in order, are its text (NFC-equal). */
function spells(run: LineRun['pieces'][number]['run'], text: string): boolean {
  let ok = spelled.get(run);
  if (ok === undefined) {
    let glyphText = '';
    for (const cps of run.codePoints) glyphText += String.fromCodePoint(...cps);
    ok = glyphText === text || glyphText.normalize('NFC') === text.normalize('NFC');
    spelled.set(run, ok);
  }
  return ok;
}

/** PDF/A (6.2.11.8 in parts 2 and 3) forbids showing .notdef: a character the font lacks. */
function refuseMissingGlyphs(run: LineRun, standard: 'PDF/A' | 'PDF/UA'): void {
  for (const piece of run.pieces) {
    const glyphs = piece.run.glyphs;
    for (let i = 0; i < glyphs.length; i++) {
      if (glyphs[i].id !== 0) continue;
      const ch = String.fromCodePoint(...(piece.run.codePoints[i].length ? piece.run.codePoints[i] : [0xfffd]));
      const hex = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      throw new RenderError(standard === 'PDF/A' ? 'PDFA_CONFLICT' : 'RENDER_ERROR', `${standard} forbids missing glyphs: "${ch}" (U+${hex}) is not in the font ${run.face.family} nor in any fallback; choose a font that has it`);
    }
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}

/** Options of {@link paintPdf}. */
export interface PaintOptions {
  /** Write PDF/A: version, output intent, pdfaid, CIDSet, no transparency, no .notdef. */
  pdfa?: PdfaProfile;
  /** Encrypt the PDF (AES-256, PDF 1.7 extension level 3); not with `pdfa`. */
  protection?: Protection;
  /**
   * Write a tagged PDF: the structure tree under this root element (engine/tags/struct.ts, built
   * by the prepare pass), marked content, MarkInfo, ParentTree. Untagged when not given.
   */
  tags?: StructNode;
  /** Claim PDF/UA-1 (pdfuaid in the XMP) and refuse .notdef glyphs; needs `tags` and a title. */
  pdfUa?: boolean;
}

/** What a reader may do with a protected PDF opened with the user password (or none). */
export type Permission = 'print' | 'copy' | 'modify' | 'annotate';

/** The permissions a protected PDF can grant, in their documented order. */
export const PERMISSIONS: readonly Permission[] = ['print', 'copy', 'modify', 'annotate'];

/**
 * Output protection: the PDF is encrypted with AES-256. `userPassword` is asked for to open it
 * (none: it opens without one); `ownerPassword` lifts the restrictions (none: a random one nobody
 * knows, so they cannot be lifted). `permissions` lists what is allowed without the owner
 * password; when absent, everything is. Text extraction for accessibility is always allowed.
 */
export interface Protection {
  readonly userPassword?: string;
  readonly ownerPassword?: string;
  readonly permissions?: readonly Permission[];
}

/** pdfkit's encryption options for `protection`. */
function securityOptions(p: Protection): Record<string, unknown> {
  const allowed = new Set<Permission>(p.permissions ?? PERMISSIONS);
  return {
    pdfVersion: '1.7ext3',
    userPassword: p.userPassword ?? '',
    ownerPassword: p.ownerPassword || randomBytes(24).toString('base64url'),
    permissions: {
      printing: allowed.has('print') ? 'highResolution' : undefined,
      copying: allowed.has('copy'),
      modifying: allowed.has('modify'),
      documentAssembly: allowed.has('modify'),
      annotating: allowed.has('annotate'),
      fillingForms: allowed.has('annotate'),
      contentAccessibility: true,
    },
  };
}

/**
 * Paint pages into a PDF.
 * @returns the PDF bytes.
 * @throws RenderError PDFA_CONFLICT when PDF/A cannot be honoured (a character no font has).
 */
export async function paintPdf(pages: readonly Page[], info: DocumentInfo, options: PaintOptions = {}): Promise<Buffer> {
  const pdfa = options.pdfa;
  // Info and XMP must say exactly the same (PDF/A-1 6.7.3): both get the XML-safe text.
  const title = info.title && xmpText(info.title);
  const author = info.author && xmpText(info.author);
  const subject = info.subject && xmpText(info.subject);
  const keywords = info.keywords && xmpText(info.keywords);
  const doc = new PDFDocument({
    autoFirstPage: false,
    // No default font: pdfkit would otherwise load Helvetica (a standard-14 font we never use).
    font: null,
    compress: true,
    pdfVersion: pdfa?.pdfVersion ?? '1.7',
    lang: info.language,
    displayTitle: Boolean(title),
    tagged: Boolean(options.tags),
    fontLayoutCache: false,
    ...(options.protection && !pdfa ? securityOptions(options.protection) : {}),
    info: definedOnly({
      Title: title,
      Author: author,
      Subject: subject,
      Keywords: keywords,
      Creator: 'Platen',
      Producer: 'Platen',
      CreationDate: info.date,
      ModDate: info.date,
    }),
  } as never);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  installMetadata(doc, { title, author, subject, keywords, language: info.language, creator: 'Platen', producer: 'Platen', created: info.date, modified: info.date }, pdfa, Boolean(options.pdfUa));
  const fonts = new Map<FontFace, EmbeddedFace>();
  const images = new Map<DecodedImage, unknown>();
  const pictures = new Set<DecodedImage>();
  let vectors = false;
  // Images inside groups (rotated, translucent, clipped boxes; watermarks) too.
  const collect = (items: readonly DrawItem[]): void => {
    for (const item of items) {
      if (item.kind === 'image') {
        if (item.image.type !== 'svg') pictures.add(item.image);
        else vectors = true;
      } else if (item.kind === 'group') collect(item.items);
    }
  };
  for (const page of pages) collect(page.items);
  if (vectors) await loadSvgPainter();
  const prepared = new Map<DecodedImage, PreparedImage>();
  for (const image of pictures) prepared.set(image, await prepareImage(doc, image, Boolean(pdfa?.opaqueImages)));
  let w: PageWriter | null = null;
  const tagger = options.tags ? new Tagger(doc, options.tags, (op) => w?.emit(op)) : null;
  const destinations = anchorIds(pages);
  const named = new Set<string>();
  const headings: { level: number; title: string; id: string }[] = [];
  for (const page of pages) {
    doc.addPage({ size: [page.width, page.height], margin: 0 });
    compressFaster((doc.page as unknown as { content: ContentStream }).content);
    w = new PageWriter(doc, fonts, images, prepared, pdfa, pdfa !== undefined || Boolean(options.pdfUa));
    w.tagger = tagger;
    w.destinations = destinations;
    w.named = named;
    w.headings = headings;
    for (const item of page.items) w.draw(item);
    tagger?.endPage();
    w.flush();
  }
  tagger?.end();
  addOutline(doc, headings);
  for (const f of fonts.values()) f.finalize(Boolean(pdfa));
  doc.end();
  return done;
}
