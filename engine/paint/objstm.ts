/**
 * Compressed object streams (PDF 1.5, ISO 32000-1 7.5.7) for the many small dictionaries of a
 * structure tree: a table of 1,000 rows has 8,000 structure elements, which written one by one
 * (pdfkit's way) made the report eight times larger and cost more time than the rest of the paint.
 * Packed into object streams they deflate together; the file then ends with a cross-reference
 * stream (7.5.8) in place of pdfkit's xref table, listing pdfkit's objects by offset and the
 * packed ones by stream and index.
 *
 * Only for PDF 1.5 and later without encryption (PDF/A-1 is PDF 1.4; strings in an encrypted
 * object stream would need another encryption pass): {@link ObjectPacker.usable} says.
 */
import { deflateSync } from 'node:zlib';
import type PDFDocument from 'pdfkit';

type Doc = InstanceType<typeof PDFDocument>;

/** A pdfkit indirect object. */
export interface PackRef {
  readonly id: number;
  readonly gen: number;
  data: Record<string, unknown>;
}

interface DocInternals {
  version: string;
  _security: unknown;
  _offsets: (number | null)[];
  _offset: number;
  _waiting: number;
  _ended: boolean;
  _root: PackRef;
  _info: PackRef;
  _id: Uint8Array;
  ref(data: Record<string, unknown>): PackRef & { end(chunk?: Buffer): void };
  _write(data: string | Uint8Array): void;
  _finalize(): void;
  push(chunk: null): void;
}

/** Objects per stream: readers load a stream whole to read one of its objects. */
const PER_STREAM = 200;

/** Packs dictionaries into object streams and writes the cross-reference stream at the end. */
export class ObjectPacker {
  private readonly d: DocInternals;
  private pending: { ref: PackRef; body: string | undefined }[] = [];
  /** Packed object id -> [stream id, index]. */
  private readonly packed = new Map<number, [number, number]>();

  /** Whether a document can have object streams: PDF 1.5 or later, not encrypted. */
  static usable(doc: Doc): boolean {
    const d = doc as unknown as DocInternals;
    return Number(d.version) >= 1.5 && !d._security;
  }

  constructor(doc: Doc) {
    this.d = doc as unknown as DocInternals;
    this.d._finalize = () => this.finalize();
  }

  /**
   * A new object to be packed: an object number and a pdfkit reference (written `n 0 R` where
   * pdfkit's objects point to it) without the stream machinery of doc.ref's, which it never uses.
   */
  ref(data: Record<string, unknown>): PackRef {
    const ref = Object.create(Object.getPrototypeOf(this.d._root) as object) as PackRef & { document: unknown };
    Object.assign(ref, { id: this.d._offsets.push(null), gen: 0, data, document: this.d });
    return ref;
  }

  /**
   * Write `ref` (made by {@link ref}) into an object stream instead of on its own: `body` (its
   * PDF syntax) when given, else its data serialized.
   */
  add(ref: PackRef, body?: string): void {
    this.pending.push({ ref, body });
    if (this.pending.length >= PER_STREAM) this.flush();
  }

  /** Write the pending objects as one object stream. */
  flush(): void {
    const refs = this.pending;
    if (refs.length === 0) return;
    this.pending = [];
    // Deflated here at level 1: the dictionaries repeat so much that level 6 (pdfkit's) spends
    // ten times as long on them for a fifth less size.
    const stream = this.d.ref({ Type: 'ObjStm', N: refs.length, First: 0, Filter: 'FlateDecode' });
    const offsets: string[] = [];
    const bodies: string[] = [];
    let at = 0;
    refs.forEach(({ ref, body: given }, i) => {
      const body = given ?? serialize(ref.data);
      offsets.push(`${ref.id} ${at}`);
      bodies.push(body);
      at += body.length + 1;
      this.packed.set(ref.id, [stream.id, i]);
    });
    const head = `${offsets.join(' ')}\n`;
    stream.data.First = head.length;
    stream.end(deflateSync(Buffer.from(head + bodies.join('\n'), 'latin1'), { level: 1 }));
  }

  /** pdfkit's end of file, with a cross-reference stream. */
  private finalize(): void {
    const d = this.d;
    const xrefOffset = d._offset;
    const id = d._offsets.length + 1;
    const size = id + 1;
    const row = Buffer.alloc(7 * size);
    const put = (n: number, type: number, field2: number, field3: number) => {
      row[n * 7] = type;
      row.writeUInt32BE(field2, n * 7 + 1);
      row.writeUInt16BE(field3, n * 7 + 5);
    };
    put(0, 0, 0, 65535);
    for (let n = 1; n < id; n++) {
      const offset = d._offsets[n - 1];
      const packed = this.packed.get(n);
      if (packed) put(n, 2, packed[0], packed[1]);
      else if (typeof offset === 'number') put(n, 1, offset, 0);
      else put(n, 0, 0, 0);
    }
    put(id, 1, xrefOffset, 0);
    const data = deflateSync(row, { level: 1 });
    const idHex = `<${Buffer.from(d._id).toString('hex')}>`;
    const dict = `<< /Type /XRef /Size ${size} /W [1 4 2] /Root ${d._root.id} 0 R /Info ${d._info.id} 0 R /ID [${idHex} ${idHex}] /Filter /FlateDecode /Length ${data.length} >>`;
    d._write(`${id} 0 obj`);
    d._write(dict);
    d._write('stream');
    d._write(data);
    d._write('\nendstream');
    d._write('endobj');
    d._write('startxref');
    d._write(`${xrefOffset}`);
    d._write('%%EOF');
    d.push(null);
  }
}

// Names repeat (S, P, K, TD, ...): each is escaped once.
const names = new Map<string, string>();

/** A PDF name: irregular characters as #xx. */
function name(s: string): string {
  let n = names.get(s);
  if (n === undefined) {
    n = `/${s.replace(/[^!-~]|[#%()/<>[\]{}]/g, (c) => `#${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`;
    if (names.size < 1000) names.set(s, n);
  }
  return n;
}

/** A PDF text string: literal when printable ASCII, else UTF-16BE with a byte-order mark. */
export function text(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  return `<FEFF${Buffer.from(s, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}

/**
 * The PDF syntax of a structure element's values: JS strings are names (pdfkit's convention),
 * String objects text strings, pdfkit refs `n 0 R`, numbers, booleans, arrays, dictionaries.
 */
function serialize(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6);
  if (typeof v === 'string') return name(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof String) return text(String(v));
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ' ' : '') + serialize(v[i]);
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  if (typeof o.gen === 'number' && typeof o.id === 'number') return `${o.id} ${o.gen} R`;
  let out = '<<';
  for (const k in o) {
    const x = o[k];
    if (x !== undefined) out += `${name(k)} ${serialize(x)}`;
  }
  return `${out}>>`;
}
