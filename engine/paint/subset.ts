/**
 * TrueType subsets through HarfBuzz's hb-subset (the wasm build that harfbuzzjs ships, MIT): a
 * program holding the glyphs a document uses, the components their composite glyphs are made of,
 * and nothing of the font's layout tables, names or character map (a PDF addresses glyphs by CID
 * through CIDToGIDMap, and draws them at the advances of its W array).
 *
 * hb-subset renumbers the glyphs it keeps in the order of their original ids (.notdef first). We
 * compute that set ourselves (the glyphs plus the closure of composite components, read from the
 * glyf table) so the caller knows which original glyph each new id is; the subset's glyph count is
 * checked against it.
 *
 * {@link subsetGlyphs} writes the same bytes itself for the fonts it can (glyf-subset.ts: the
 * bundled ones), two to three times faster, and asks hb-subset for the others. The wasm module
 * (680 KB) is compiled in the background when this module loads and instantiated on first use,
 * once per thread; each face's file is copied into the wasm memory once.
 */
import { readFileSync } from 'node:fs';
import type { FontFace } from '../text/fonts.ts';
import { glyfSource, glyfSubset, type GlyfSource } from './glyf-subset.ts';

/** A subset program: the TrueType bytes and, for each of its glyphs in order, the original id. */
export interface SubsetProgram {
  readonly data: Uint8Array;
  readonly glyphs: readonly number[];
}

interface HbSubsetExports {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_length(blob: number): number;
  hb_blob_get_data(blob: number, length: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, value: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_glyph_set(input: number): number;
  hb_subset_input_set(input: number, which: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_subset_or_fail(face: number, input: number): number;
  hb_subset_preprocess(face: number): number;
}

const HB_MEMORY_MODE_READONLY = 1;
const HB_SUBSET_SETS_DROP_TABLE_TAG = 3;
const HB_SUBSET_FLAGS_NOTDEF_OUTLINE = 0x40;
/** Tables a PDF's CIDFontType2 program does not need (fontkit's subsets had none of them either). */
const DROPPED_TABLES = ['GSUB', 'GPOS', 'GDEF', 'BASE', 'JSTF', 'MATH', 'cmap', 'name', 'post', 'OS/2', 'kern', 'DSIG', 'hdmx', 'VDMX', 'LTSH'];

const WASM_URL = new URL('../../node_modules/harfbuzzjs/dist/harfbuzz-subset.wasm', import.meta.url);

let compiled: WebAssembly.Module | undefined;
let compileFailed = false;
// Started at load so the first render rarely waits for it; a render before it is done compiles
// synchronously instead.
const compiling = (async () => {
  try {
    compiled = await WebAssembly.compile(readFileSync(WASM_URL));
  } catch {
    compileFailed = true;
  }
})();
void compiling;

let hb: HbSubsetExports | undefined;

function harfbuzz(): HbSubsetExports {
  if (hb) return hb;
  const module = compiled ?? new WebAssembly.Module(readFileSync(WASM_URL));
  hb = new WebAssembly.Instance(module, {}).exports as unknown as HbSubsetExports;
  return hb;
}

/** Whether hb-subset could be loaded (false when its wasm file is missing or cannot compile). */
export function hbSubsetAvailable(): boolean {
  if (hb) return true;
  if (compileFailed) return false;
  try {
    harfbuzz();
    return true;
  } catch {
    compileFailed = true;
    return false;
  }
}

const tag = (s: string) => ((s.charCodeAt(0) << 24) | (s.charCodeAt(1) << 16) | (s.charCodeAt(2) << 8) | s.charCodeAt(3)) >>> 0;

/** A face's font file inside the wasm memory, with its glyf/loca tables located for closures. */
interface HbFace extends Outlines {
  /** The face hb-subset reads: the file's at first, its preprocessed copy once made. */
  face: number;
}

const faces = new WeakMap<FontFace, HbFace | null>();
// A face that is collected (a font library dropped) gives its wasm memory back.
const release = new FinalizationRegistry<{ ptr: number; face: number }>(({ ptr, face }) => {
  if (!hb) return;
  hb.hb_face_destroy(face);
  hb.free(ptr);
});

/** The font file bytes fontkit parsed the face from. */
function fileBytes(face: FontFace): Uint8Array | undefined {
  const stream = (face.font as unknown as { stream?: { buffer?: Uint8Array } }).stream;
  return stream?.buffer instanceof Uint8Array ? stream.buffer : undefined;
}

function tableDirectory(bytes: Uint8Array): Map<string, { offset: number; length: number }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tables = new Map<string, { offset: number; length: number }>();
  const count = view.getUint16(4);
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const name = String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
    tables.set(name, { offset: view.getUint32(at + 8), length: view.getUint32(at + 12) });
  }
  return tables;
}

/** The face prepared for hb-subset, or null when it is no TrueType (glyf) font. */
function hbFace(face: FontFace): HbFace | null {
  const known = faces.get(face);
  if (known !== undefined) return known;
  const bytes = fileBytes(face);
  let prepared: HbFace | null = null;
  if (bytes && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0) === 0x00010000) {
    const tables = tableDirectory(bytes);
    const glyf = tables.get('glyf');
    const loca = tables.get('loca');
    const head = tables.get('head');
    const maxp = tables.get('maxp');
    if (glyf && loca && head && maxp) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const h = harfbuzz();
      const ptr = h.malloc(bytes.length);
      new Uint8Array(h.memory.buffer, ptr, bytes.length).set(bytes);
      const blob = h.hb_blob_create(ptr, bytes.length, HB_MEMORY_MODE_READONLY, 0, 0);
      const hbface = h.hb_face_create(blob, 0);
      h.hb_blob_destroy(blob); // the face holds its own reference; the bytes stay while the face lives
      const registration = { ptr, face: hbface };
      release.register(face, registration);
      prepared = {
        face: hbface,
        bytes,
        glyf: glyf.offset,
        loca: loca.offset,
        longLoca: view.getInt16(head.offset + 50) === 1,
        numGlyphs: view.getUint16(maxp.offset + 4),
        components: new Map(),
      };
      // hb-subset's own tables and accelerators, made once per face, cut a subset's cost several
      // times over; making them takes longer than a subset, so it waits until the render that
      // first needed the face is done (a timer that does not keep the process alive).
      const target = prepared;
      setTimeout(() => {
        const pre = h.hb_subset_preprocess(target.face);
        if (pre === target.face) return;
        h.hb_face_destroy(target.face);
        target.face = pre;
        registration.face = pre;
      }, 0).unref();
    }
  }
  faces.set(face, prepared);
  return prepared;
}

/** A font file's glyf and loca tables, for the closure of composite glyphs. */
interface Outlines {
  readonly bytes: Uint8Array;
  readonly glyf: number;
  readonly loca: number;
  readonly longLoca: boolean;
  readonly numGlyphs: number;
  readonly components: Map<number, readonly number[]>;
}

/** The glyph ids a composite glyph is made of (none for a simple or empty glyph). */
function componentsOf(f: Outlines, gid: number): readonly number[] {
  const known = f.components.get(gid);
  if (known) return known;
  const view = new DataView(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
  const start = f.longLoca ? view.getUint32(f.loca + gid * 4) : view.getUint16(f.loca + gid * 2) * 2;
  const end = f.longLoca ? view.getUint32(f.loca + gid * 4 + 4) : view.getUint16(f.loca + gid * 2 + 2) * 2;
  const out: number[] = [];
  if (end > start && view.getInt16(f.glyf + start) < 0) {
    let at = f.glyf + start + 10;
    for (;;) {
      const flags = view.getUint16(at);
      out.push(view.getUint16(at + 2));
      at += 4 + (flags & 0x0001 ? 4 : 2); // ARG_1_AND_2_ARE_WORDS
      if (flags & 0x0008) at += 2; // WE_HAVE_A_SCALE
      else if (flags & 0x0040) at += 4; // WE_HAVE_AN_X_AND_Y_SCALE
      else if (flags & 0x0080) at += 8; // WE_HAVE_A_TWO_BY_TWO
      if (!(flags & 0x0020)) break; // MORE_COMPONENTS
    }
  }
  f.components.set(gid, out);
  return out;
}

/**
 * The subset of `face` holding `glyphs` (original ids) and what they need, or undefined when
 * hb-subset cannot subset this face (no TrueType outlines, wasm not loadable): the caller then
 * subsets another way.
 * @throws Error when hb-subset fails or keeps other glyphs than expected.
 */
export function hbSubset(face: FontFace, glyphs: readonly number[]): SubsetProgram | undefined {
  if (!hbSubsetAvailable()) return undefined;
  const f = hbFace(face);
  if (!f) return undefined;
  const order = closure(f, glyphs);

  const h = harfbuzz();
  const input = h.hb_subset_input_create_or_fail();
  if (!input) throw new Error(`font ${face.family}: hb-subset could not start`);
  let result = 0;
  let blob = 0;
  try {
    const set = h.hb_subset_input_glyph_set(input);
    for (const gid of order) h.hb_set_add(set, gid);
    const drop = h.hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG);
    for (const t of DROPPED_TABLES) h.hb_set_add(drop, tag(t));
    h.hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_NOTDEF_OUTLINE);
    result = h.hb_subset_or_fail(f.face, input);
    if (!result) throw new Error(`font ${face.family}: hb-subset failed`);
    blob = h.hb_face_reference_blob(result);
    const length = h.hb_blob_get_length(blob);
    const data = new Uint8Array(length);
    data.set(new Uint8Array(h.memory.buffer, h.hb_blob_get_data(blob, 0), length));
    const maxp = tableDirectory(data).get('maxp');
    const count = maxp ? new DataView(data.buffer).getUint16(maxp.offset + 4) : -1;
    if (count !== order.length) throw new Error(`font ${face.family}: hb-subset kept ${count} glyphs, expected ${order.length}`);
    return { data, glyphs: order };
  } finally {
    if (blob) h.hb_blob_destroy(blob);
    if (result) h.hb_face_destroy(result);
    h.hb_subset_input_destroy(input);
  }
}

/** `glyphs` (original ids), .notdef and the components of composite glyphs, in ascending order. */
function closure(f: Outlines, glyphs: readonly number[]): number[] {
  const keep = new Set<number>([0]);
  const pending = [...glyphs];
  while (pending.length > 0) {
    const gid = pending.pop()!;
    if (gid >= f.numGlyphs || keep.has(gid)) continue;
    keep.add(gid);
    for (const c of componentsOf(f, gid)) if (!keep.has(c)) pending.push(c);
  }
  return [...keep].sort((a, b) => a - b);
}

/** A face's file read for glyf-subset.ts, with its composite glyphs' components as found. */
interface SourceFace extends Outlines {
  readonly source: GlyfSource;
}

const sources = new WeakMap<FontFace, SourceFace | null>();

function sourceFace(face: FontFace): SourceFace | null {
  const known = sources.get(face);
  if (known !== undefined) return known;
  const bytes = fileBytes(face);
  const source = bytes ? glyfSource(bytes) : undefined;
  const made = source
    ? { source, bytes: source.bytes, glyf: source.tables.get('glyf')!.offset, loca: source.tables.get('loca')!.offset, longLoca: source.longLoca, numGlyphs: source.numGlyphs, components: new Map<number, readonly number[]>() }
    : null;
  sources.set(face, made);
  return made;
}

/**
 * The subset of `face` holding `glyphs` (original ids) and what they need: written by
 * glyf-subset.ts when it can read the face (the same bytes hb-subset makes), else by hb-subset;
 * undefined when neither can (no TrueType outlines, wasm not loadable): the caller then subsets
 * another way.
 * @throws Error when hb-subset fails or keeps other glyphs than expected.
 */
export function subsetGlyphs(face: FontFace, glyphs: readonly number[]): SubsetProgram | undefined {
  const f = sourceFace(face);
  if (f) {
    const order = closure(f, glyphs);
    const data = glyfSubset(f.source, order);
    if (data) return { data, glyphs: order };
  }
  return hbSubset(face, glyphs);
}
