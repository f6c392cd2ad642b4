/**
 * Font embedding: each face used in a document becomes a Type0 font (Identity-H) over a
 * CIDFontType2 whose program is a TrueType subset (subset.ts: the bytes hb-subset makes, written
 * by glyf-subset.ts or hb-subset itself; fontkit's subset encoder for a face neither can take). We
 * write the dictionaries ourselves rather than through pdfkit's EmbeddedFont so that:
 * - W and CIDSet cover every glyph of the subset program, including the components that composite
 *   glyphs (Ö = O + ¨) pull in while subsetting (PDF/A-1 6.3.5; pdfkit's CIDSet misses them);
 * - FontFile2 carries Length1;
 * - the compressed subset program is cached per face and glyph list, so a document that uses the
 *   same glyphs as an earlier one (a template rendered again) skips subsetting and compression
 *   (the engine's `fontPrograms` cache, caches.ts);
 * - a glyph that stands for different text in different places (Thai า alone and inside ำ) gets
 *   one CID per meaning, all mapped to the same glyph by a CIDToGIDMap, so text extracts right.
 * CIDs are given in order of first use while the pages are drawn; the subset program orders its
 * glyphs its own way (hb-subset: by original glyph id), so a CIDToGIDMap maps each CID to its
 * glyph in the program (/Identity when they happen to agree).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type PDFDocument from 'pdfkit';
import { caches } from '../caches.ts';
import type { FontFace } from '../text/fonts.ts';
import { subsetGlyphs } from './subset.ts';

type Doc = InstanceType<typeof PDFDocument>;
/** pdfkit's indirect object (PDFReference): `data` is its dictionary. */
interface Ref {
  data: Record<string, unknown>;
  write(chunk: Buffer | string): void;
  end(chunk?: Buffer | string): void;
}

/** The CID given to a glyph for the text it first stood for, and for any other text since. */
interface CidEntry {
  codePoints: readonly number[];
  hex: string;
  others?: Map<string, string>;
}

function sameCodePoints(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface Program {
  /** Deflated TrueType subset. */
  deflated: Buffer;
  /** Its uncompressed length (FontFile2 /Length1). */
  length: number;
  /** Original glyph id of each glyph of the program, in program order (0 is .notdef). */
  glyphs: readonly number[];
  /** Advance width of each glyph of the program, in 1/1000 em. */
  widths: number[];
}


/** One face embedded in one document. */
export class EmbeddedFace {
  /** Resource name on pages: F1, F2, ... */
  readonly id: string;
  /** The Type0 font dictionary, referenced from page resources now and filled at finalize(). */
  readonly ref: Ref;
  private readonly byGlyph = new Map<number, CidEntry>();
  /** Original glyph id of each CID; CID 0 is .notdef. */
  private readonly cidGlyph: number[] = [0];
  /** Text of each CID (the ToUnicode map). */
  private readonly unicode: (readonly number[])[] = [[]];
  /** Distinct original glyph ids in first-use order (the subset's glyph list and cache key). */
  private readonly glyphs: number[] = [0];
  private readonly glyphIndex = new Map<number, number>([[0, 0]]);

  constructor(
    private readonly doc: Doc,
    readonly face: FontFace,
    id: string,
  ) {
    this.id = id;
    this.ref = (doc as unknown as { ref(data?: object): Ref }).ref();
  }

  /** The 4-hex-digit CID of a glyph showing `codePoints`, assigning the next CID on first use. */
  code(glyphId: number, codePoints: readonly number[]): string {
    const entry = this.byGlyph.get(glyphId);
    if (entry === undefined) {
      const hex = this.newCid(glyphId, codePoints);
      this.byGlyph.set(glyphId, { codePoints, hex });
      return hex;
    }
    if (sameCodePoints(entry.codePoints, codePoints)) return entry.hex;
    const key = codePoints.join(',');
    let hex = entry.others?.get(key);
    if (hex === undefined) (entry.others ??= new Map()).set(key, (hex = this.newCid(glyphId, codePoints)));
    return hex;
  }

  private newCid(glyphId: number, codePoints: readonly number[]): string {
    const cid = this.cidGlyph.length;
    if (cid > 0xffff) throw new Error(`font ${this.face.family}: more than 65,535 distinct glyphs in one document`);
    this.cidGlyph.push(glyphId);
    this.unicode.push(codePoints);
    if (!this.glyphIndex.has(glyphId)) {
      this.glyphIndex.set(glyphId, this.glyphs.length);
      this.glyphs.push(glyphId);
    }
    return cid.toString(16).padStart(4, '0');
  }

  /**
   * CID -> glyph of the program, with CIDs added at the end for the program's glyphs no CID shows
   * (the components composite glyphs pulled in), so that every glyph of the program has a CID
   * (what PDF/A checkers count in the CIDSet). `identity` when CID n is glyph n throughout.
   */
  private cidMap(program: Program): { map: number[]; identity: boolean } {
    const index = new Map<number, number>();
    program.glyphs.forEach((g, i) => index.set(g, i));
    const map = this.cidGlyph.map((g) => index.get(g)!);
    const shown = new Set(map);
    for (let i = 0; i < program.glyphs.length; i++) if (!shown.has(i)) map.push(i);
    const identity = map.length === program.glyphs.length && map.every((gid, cid) => gid === cid);
    return { map, identity };
  }

  /** Write the font program and dictionaries. `cidSet`: list every CID (PDF/A-1 requires it). */
  finalize(cidSet: boolean): void {
    const doc = this.doc as unknown as { ref(data?: object): Ref };
    const font = this.face.font;
    const scale = 1000 / font.unitsPerEm;
    const program = this.program(scale);
    const tag = subsetTag(this.face.key, this.glyphs);
    const name = `${tag}+${(font.postscriptName || this.face.family).replace(/[^\x21-\x7e]|[()<>[\]{}/%#]/g, '')}`;

    const fontFile = doc.ref({ Length1: program.length, Filter: 'FlateDecode' });
    fontFile.end(program.deflated);

    const bbox = font.bbox;
    const os2 = (font as unknown as { 'OS/2'?: { sFamilyClass?: number } })['OS/2'];
    const familyClass = ((os2?.sFamilyClass ?? 0) >> 8) & 0xff;
    let flags = 1 << 2; // symbolic: glyphs are addressed by CID, not a standard encoding
    if ((font as unknown as { post: { isFixedPitch: number } }).post.isFixedPitch) flags |= 1 << 0;
    if (familyClass >= 1 && familyClass <= 7) flags |= 1 << 1;
    if (this.face.style === 'italic' || font.italicAngle !== 0) flags |= 1 << 6;
    const descriptor: Record<string, unknown> = {
      Type: 'FontDescriptor',
      FontName: name,
      Flags: flags,
      FontBBox: [bbox.minX * scale, bbox.minY * scale, bbox.maxX * scale, bbox.maxY * scale].map(Math.round),
      ItalicAngle: font.italicAngle,
      Ascent: Math.round(font.ascent * scale),
      Descent: Math.round(font.descent * scale),
      CapHeight: Math.round((font.capHeight || font.ascent) * scale),
      XHeight: Math.round((font.xHeight || 0) * scale),
      StemV: 80,
      FontFile2: fontFile,
    };
    const { map, identity } = this.cidMap(program);
    const widths = map.map((gid) => program.widths[gid]);
    if (cidSet) {
      const bits = Buffer.alloc(Math.ceil(widths.length / 8));
      for (let cid = 0; cid < widths.length; cid++) bits[cid >> 3] |= 0x80 >> (cid & 7);
      const set = doc.ref();
      set.end(bits);
      descriptor.CIDSet = set;
    }
    const descriptorRef = doc.ref(descriptor);
    descriptorRef.end();

    const cidFont = doc.ref({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: name,
      CIDSystemInfo: { Registry: new String('Adobe'), Ordering: new String('Identity'), Supplement: 0 },
      FontDescriptor: descriptorRef,
      W: [0, widths],
      CIDToGIDMap: identity ? 'Identity' : cidToGidStream(doc, map),
    });
    cidFont.end();

    const toUnicode = doc.ref();
    toUnicode.end(toUnicodeCMap(this.unicode));

    this.ref.data = { Type: 'Font', Subtype: 'Type0', BaseFont: name, Encoding: 'Identity-H', DescendantFonts: [cidFont], ToUnicode: toUnicode };
    this.ref.end();
  }

  /** The subset program for this document's glyphs, from the cache when the same list was seen. */
  private program(scale: number): Program {
    const key = `${this.face.key}|${this.glyphs.join(',')}`;
    return caches.fontPrograms.getOrCompute(key, () => this.subsetProgram(scale)) as Program;
  }

  private subsetProgram(scale: number): Program {
    let subset: { data: Uint8Array; glyphs: readonly number[] } | undefined = subsetGlyphs(this.face, this.glyphs);
    if (!subset) {
      // Not a TrueType-outline face hb-subset takes here: fontkit's encoder (first-use order).
      const fk = this.face.font.createSubset() as unknown as { includeGlyph(id: number): number; glyphs: number[]; encode(): Uint8Array };
      for (const id of this.glyphs) fk.includeGlyph(id);
      subset = { data: fk.encode(), glyphs: fk.glyphs };
    }
    const widths = subset.glyphs.map((id) => Math.round(this.face.font.getGlyph(id).advanceWidth * scale * 1000) / 1000);
    // A copy of its own size: zlib's output is a view into a 16 KB chunk, which the cache would keep whole.
    return { deflated: Buffer.from(deflateSync(subset.data)), length: subset.data.length, glyphs: subset.glyphs, widths };
  }
}

/** A CIDToGIDMap stream: the glyph of each CID as two big-endian bytes. */
function cidToGidStream(doc: { ref(data?: object): Ref }, map: number[]): Ref {
  const bytes = Buffer.alloc(map.length * 2);
  map.forEach((gid, cid) => bytes.writeUInt16BE(gid, cid * 2));
  const ref = doc.ref();
  ref.end(bytes);
  return ref;
}

/** Six upper-case letters derived from the glyph set, as PDF subset names require. */
function subsetTag(faceKey: string, glyphs: number[]): string {
  const digest = createHash('sha1').update(`${faceKey}|${glyphs.join(',')}`).digest();
  let tag = '';
  for (let i = 0; i < 6; i++) tag += String.fromCharCode(65 + (digest[i] % 26));
  return tag;
}

function utf16Hex(codePoints: readonly number[]): string {
  let hex = '';
  for (const cp of codePoints) {
    if (cp > 0xffff) {
      const v = cp - 0x10000;
      hex += (0xd800 | (v >> 10)).toString(16).padStart(4, '0') + (0xdc00 | (v & 0x3ff)).toString(16).padStart(4, '0');
    } else hex += cp.toString(16).padStart(4, '0');
  }
  return hex;
}

/** A ToUnicode CMap mapping each CID to the characters it shows (text extraction, search, copy). */
function toUnicodeCMap(unicode: readonly (readonly number[])[]): string {
  const entries: string[] = [];
  for (let cid = 1; cid < unicode.length; cid++) {
    if (unicode[cid].length > 0) entries.push(`<${cid.toString(16).padStart(4, '0')}> <${utf16Hex(unicode[cid])}>`);
  }
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <ffff>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}
