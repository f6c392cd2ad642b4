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

interface DocInternals {
  version: string;
  _security: unknown;
  _offsets: (number | null)[];
  _offset: number;
  _root: { readonly id: number };
  _info: { readonly id: number };
  _id: Uint8Array;
  ref(data: Record<string, unknown>): { readonly id: number; data: Record<string, unknown>; end(chunk?: Buffer): void };
  _write(data: string | Uint8Array): void;
  _finalize(): void;
  push(chunk: null): void;
}

/**
 * Objects per stream: readers load a stream whole to read one of its objects (500 table cells are
 * about 25 KB). Each stream is one deflateSync call: 200 a stream cost the report's 8,000
 * elements 0.9-1.0 ms of deflate against 0.5-0.7 ms at 500 (same bytes, fewer calls).
 */
const PER_STREAM = 500;

/**
 * ASCII bytes written in place, without a string per piece: a structure tree has thousands of
 * elements, and the strings of their dictionaries were most of what tagging allocated.
 */
export class AsciiWriter {
  buf = Buffer.allocUnsafe(4096);
  len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }

  /** Append `s` (ASCII: PDF syntax, names, escaped strings). */
  ascii(s: string): this {
    this.room(s.length);
    const b = this.buf;
    let at = this.len;
    for (let i = 0; i < s.length; i++) b[at++] = s.charCodeAt(i);
    this.len = at;
    return this;
  }

  /** Append a non-negative integer in decimal. */
  int(n: number): this {
    if (n > 0x7fffffff) return this.ascii(String(n));
    this.room(16);
    const b = this.buf;
    if (n < 10) {
      b[this.len++] = 48 + n;
      return this;
    }
    // (Object numbers, offsets and MCIDs: a few digits, counted without dividing.)
    const digits = n < 100 ? 2 : n < 1_000 ? 3 : n < 10_000 ? 4 : n < 100_000 ? 5 : n < 1_000_000 ? 6 : n < 10_000_000 ? 7 : n < 100_000_000 ? 8 : n < 1_000_000_000 ? 9 : 10;
    let at = this.len + digits;
    this.len = at;
    for (let m = n; m > 0; ) {
      const q = (m / 10) | 0;
      b[--at] = 48 + m - q * 10;
      m = q;
    }
    return this;
  }

  /** Append `n 0 R`. */
  ref(n: number): this {
    return this.int(n).ascii(' 0 R');
  }
}

/** Packs dictionaries into object streams and writes the cross-reference stream at the end. */
export class ObjectPacker {
  private readonly d: DocInternals;
  /** The pending stream: its objects' numbers and its offset table. */
  private ids: number[] = [];
  private readonly head = new AsciiWriter();
  /** Where the bodies of the pending objects are written ({@link begin}). */
  private readonly body = new AsciiWriter();
  /** Packed objects: number, then stream number * 65536 + index in the stream. */
  private readonly packed: number[] = [];

  /** Whether a document can have object streams: PDF 1.5 or later, not encrypted. */
  static usable(doc: Doc): boolean {
    const d = doc as unknown as DocInternals;
    return Number(d.version) >= 1.5 && !d._security;
  }

  constructor(doc: Doc) {
    this.d = doc as unknown as DocInternals;
    this.d._finalize = () => this.finalize();
  }

  /** A new object number, for an object to be packed ({@link add}); pdfkit's objects point to it as `n 0 R`. */
  alloc(): number {
    return this.d._offsets.push(null);
  }

  /** Write object `id` (from {@link alloc}) into an object stream: `body` is its PDF syntax, ASCII. */
  add(id: number, body: string): void {
    this.begin(id).ascii(body);
    this.end();
  }

  /**
   * Start object `id` (from {@link alloc}): write its body into the returned writer, then call
   * {@link end}; no other object may begin in between.
   */
  begin(id: number): AsciiWriter {
    this.head.int(id).ascii(' ').int(this.body.len).ascii(' ');
    this.ids.push(id);
    return this.body;
  }

  /** The end of the object begun last. */
  end(): void {
    this.body.ascii('\n');
    if (this.ids.length >= PER_STREAM) this.flush();
  }

  /** Write the pending objects as one object stream. */
  flush(): void {
    const ids = this.ids;
    if (ids.length === 0) return;
    // Deflated here at level 1: the dictionaries repeat so much that level 6 (pdfkit's) spends
    // ten times as long on them for a fifth less size.
    const stream = this.d.ref({ Type: 'ObjStm', N: ids.length, First: this.head.len, Filter: 'FlateDecode' });
    for (let i = 0; i < ids.length; i++) this.packed.push(ids[i], stream.id * 65536 + i);
    const data = deflateSync(Buffer.concat([this.head.buf.subarray(0, this.head.len), this.body.buf.subarray(0, this.body.len)]), { level: 1 });
    this.ids = [];
    this.head.len = 0;
    this.body.len = 0;
    stream.end(data);
  }

  /** pdfkit's end of file, with a cross-reference stream. */
  private finalize(): void {
    const d = this.d;
    const xrefOffset = d._offset;
    const id = d._offsets.length + 1;
    const size = id + 1;
    // Rows of 7 bytes: type, field 2 (4 bytes), field 3 (2 bytes), big-endian; zero-filled, so
    // free entries (type 0) and zero fields are left as they are.
    const row = Buffer.alloc(7 * size);
    const put = (n: number, type: number, field2: number, field3: number) => {
      const at = n * 7;
      row[at] = type;
      row[at + 1] = field2 >>> 24;
      row[at + 2] = (field2 >>> 16) & 255;
      row[at + 3] = (field2 >>> 8) & 255;
      row[at + 4] = field2 & 255;
      row[at + 5] = field3 >>> 8;
      row[at + 6] = field3 & 255;
    };
    put(0, 0, 0, 65535);
    const offsets = d._offsets;
    for (let n = 1; n < id; n++) {
      const offset = offsets[n - 1];
      if (typeof offset === 'number') put(n, 1, offset, 0);
    }
    const packed = this.packed;
    for (let i = 0; i < packed.length; i += 2) put(packed[i], 2, Math.floor(packed[i + 1] / 65536), packed[i + 1] % 65536);
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

/** A PDF text string: literal when printable ASCII, else UTF-16BE with a byte-order mark. */
export function text(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  return `<FEFF${Buffer.from(s, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
}
