/**
 * OpenType shaping through HarfBuzz (the wasm build that harfbuzzjs ships, MIT), called directly:
 * text goes into the wasm memory as UTF-16, glyph ids, clusters, advances and offsets come back
 * from HarfBuzz's own arrays. One HarfBuzz font per face (font units: the scale is the face's
 * units per em), one reused buffer; the face's file is copied into the wasm memory once.
 *
 * The module (440 KB) is compiled in the background when this module loads and instantiated on
 * first use (or by {@link warmUpHarfBuzz}), once per thread. HarfBuzz's emscripten runtime asks for five imports; only the heap
 * growth does anything here.
 */
import { readFileSync } from 'node:fs';
import type { FontFace } from './fonts.ts';

interface HbExports {
  memory: WebAssembly.Memory;
  __wasm_call_ctors(): void;
  malloc(size: number): number;
  free(ptr: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_font_create(face: number): number;
  hb_font_destroy(font: number): void;
  hb_buffer_create(): number;
  hb_buffer_clear_contents(buffer: number): void;
  hb_buffer_add_utf16(buffer: number, text: number, textLength: number, itemOffset: number, itemLength: number): void;
  hb_buffer_set_direction(buffer: number, direction: number): void;
  hb_buffer_set_cluster_level(buffer: number, level: number): void;
  hb_buffer_set_script(buffer: number, script: number): void;
  hb_buffer_guess_segment_properties(buffer: number): void;
  hb_buffer_get_glyph_infos(buffer: number, length: number): number;
  hb_buffer_get_glyph_positions(buffer: number, length: number): number;
  hb_feature_from_string(str: number, length: number, feature: number): number;
  hb_shape(font: number, buffer: number, features: number, count: number): void;
}

/** What HarfBuzz made of a string: per glyph, in visual order. Units: font units. */
export interface HbShaped {
  readonly ids: Uint32Array;
  /** UTF-16 index of the first character of each glyph's cluster. */
  readonly clusters: Uint32Array;
  readonly xAdvances: Int32Array;
  readonly xOffsets: Int32Array;
  readonly yOffsets: Int32Array;
}

const HB_MEMORY_MODE_READONLY = 1;
const HB_DIRECTION_LTR = 4;
const HB_DIRECTION_RTL = 5;
/** Marks keep clusters of their own: a glyph per character wherever the font allows. */
const HB_BUFFER_CLUSTER_LEVEL_MONOTONE_CHARACTERS = 1;

const WASM_URL = new URL('../../node_modules/harfbuzzjs/dist/harfbuzz.wasm', import.meta.url);

let compiled: WebAssembly.Module | undefined;
let failed = false;
const compiling = (async () => {
  try {
    compiled = await WebAssembly.compile(readFileSync(WASM_URL));
  } catch {
    failed = true;
  }
})();

let hb: HbExports | undefined;
let buffer = 0;
/** Scratch memory in the wasm heap: the text, the length out-parameter, the features. */
let scratch = 0;
let scratchSize = 0;
let lengthPtr = 0;

function instantiate(): HbExports {
  const module = compiled ?? new WebAssembly.Module(readFileSync(WASM_URL));
  let memory: WebAssembly.Memory | undefined;
  const fail = () => {
    throw new Error('harfbuzz: aborted');
  };
  const imports = {
    env: {
      _abort_js: fail,
      _emscripten_runtime_keepalive_clear: () => {},
      _setitimer_js: () => 0,
      emscripten_resize_heap: (requested: number) => {
        const m = memory!;
        const pages = Math.ceil((Math.max(requested >>> 0, m.buffer.byteLength * 1.2) - m.buffer.byteLength) / 65536);
        try {
          m.grow(pages);
          return 1;
        } catch {
          return 0;
        }
      },
    },
    wasi_snapshot_preview1: { proc_exit: fail },
  };
  const exports = new WebAssembly.Instance(module, imports).exports as unknown as HbExports;
  memory = exports.memory;
  exports.__wasm_call_ctors();
  buffer = exports.hb_buffer_create();
  lengthPtr = exports.malloc(4);
  return exports;
}

function harfbuzz(): HbExports | undefined {
  if (hb) return hb;
  if (failed) return undefined;
  try {
    return (hb = instantiate());
  } catch {
    failed = true;
    return undefined;
  }
}

const fonts = new WeakMap<FontFace, number>();
// A face that is collected (a font library dropped) gives its wasm memory back.
const release = new FinalizationRegistry<{ ptr: number; face: number; font: number }>(({ ptr, face, font }) => {
  if (!hb) return;
  hb.hb_font_destroy(font);
  hb.hb_face_destroy(face);
  hb.free(ptr);
});

/** The HarfBuzz font of a face, made on first use from the file fontkit parsed. */
function hbFont(h: HbExports, face: FontFace): number {
  let font = fonts.get(face);
  if (font !== undefined) return font;
  const bytes = (face.font as unknown as { stream?: { buffer?: Uint8Array } }).stream?.buffer;
  if (!(bytes instanceof Uint8Array)) throw new Error(`font ${face.family}: no font file to shape with`);
  const ptr = h.malloc(bytes.length);
  new Uint8Array(h.memory.buffer, ptr, bytes.length).set(bytes);
  const blob = h.hb_blob_create(ptr, bytes.length, HB_MEMORY_MODE_READONLY, 0, 0);
  const hbface = h.hb_face_create(blob, 0);
  h.hb_blob_destroy(blob);
  font = h.hb_font_create(hbface);
  fonts.set(face, font);
  release.register(face, { ptr, face: hbface, font });
  return font;
}

/** Room for `bytes` bytes of scratch memory. */
function reserve(h: HbExports, bytes: number): number {
  if (bytes > scratchSize) {
    if (scratch) h.free(scratch);
    scratchSize = Math.max(bytes, 4096);
    scratch = h.malloc(scratchSize);
  }
  return scratch;
}

/** Features as HarfBuzz reads them, by their text form (`+tnum`, `-liga`), kept once made. */
const featureCache = new Map<string, Uint8Array>();
function featureBytes(h: HbExports, spec: string): Uint8Array {
  let bytes = featureCache.get(spec);
  if (bytes) return bytes;
  const text = Buffer.from(spec, 'latin1');
  const at = reserve(h, text.length + 32);
  const out = at + Math.ceil(text.length / 4) * 4;
  new Uint8Array(h.memory.buffer, at, text.length).set(text);
  if (!h.hb_feature_from_string(at, text.length, out)) throw new Error(`harfbuzz: bad feature ${spec}`);
  bytes = new Uint8Array(h.memory.buffer.slice(out, out + 16));
  featureCache.set(spec, bytes);
  return bytes;
}

/** Letters, digits, punctuation, kerning pairs and a ligature: text that runs the common lookups. */
const WARM_UP_SAMPLE = 'The quick brown fox jumps over the lazy dog; AV To Wa, office 0123456789 (€1,234.56) "ok" - 50%.';

/**
 * Set HarfBuzz up ahead of the first render: wait for the module's background compile, instantiate
 * it, copy each face's file into the wasm memory and shape a short sample in it (V8 compiles wasm
 * functions on their first call: this compiles the common shaping paths). Resolves to whether
 * HarfBuzz is available.
 */
export async function warmUpHarfBuzz(faces: readonly FontFace[]): Promise<boolean> {
  await compiling;
  const h = harfbuzz();
  if (!h) return false;
  for (const face of faces) hbShape(face, WARM_UP_SAMPLE, [], false);
  return true;
}

/** Whether HarfBuzz can be used in this thread (its wasm found and instantiated). */
export function harfbuzzAvailable(): boolean {
  return harfbuzz() !== undefined;
}

/**
 * Shape `text` in `face` with HarfBuzz. `features`: text forms such as `+tnum` or `-liga`.
 * Right-to-left text comes back in visual order, and HarfBuzz mirrors its brackets itself.
 * `script`: an ISO 15924 tag as HarfBuzz's hb_script_t (`Latn` is 0x4c61746e); by default
 * HarfBuzz guesses it from the text (its first character of a script other than Common).
 * @throws Error when HarfBuzz is not available (see {@link harfbuzzAvailable}).
 */
export function hbShape(face: FontFace, text: string, features: readonly string[], rtl: boolean, script?: number): HbShaped {
  const h = harfbuzz();
  if (!h) throw new Error('harfbuzz is not available');
  const font = hbFont(h, face);
  const featureList = features.map((f) => featureBytes(h, f));
  const textBytes = text.length * 2;
  const at = reserve(h, textBytes + featureList.length * 16 + 16);
  const units = new Uint16Array(h.memory.buffer, at, text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  const featureAt = at + Math.ceil(textBytes / 16) * 16;
  for (let i = 0; i < featureList.length; i++) new Uint8Array(h.memory.buffer, featureAt + i * 16, 16).set(featureList[i]!);

  h.hb_buffer_clear_contents(buffer);
  h.hb_buffer_add_utf16(buffer, at, text.length, 0, text.length);
  h.hb_buffer_set_direction(buffer, rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
  h.hb_buffer_set_cluster_level(buffer, HB_BUFFER_CLUSTER_LEVEL_MONOTONE_CHARACTERS);
  if (script !== undefined) h.hb_buffer_set_script(buffer, script);
  h.hb_buffer_guess_segment_properties(buffer);
  h.hb_shape(font, buffer, featureList.length > 0 ? featureAt : 0, featureList.length);

  const infos = h.hb_buffer_get_glyph_infos(buffer, lengthPtr);
  const positions = h.hb_buffer_get_glyph_positions(buffer, 0);
  const memory = h.memory.buffer;
  const n = new Uint32Array(memory, lengthPtr, 1)[0]!;
  const info = new Uint32Array(memory, infos, n * 5);
  const pos = new Int32Array(memory, positions, n * 5);
  const ids = new Uint32Array(n);
  const clusters = new Uint32Array(n);
  const xAdvances = new Int32Array(n);
  const xOffsets = new Int32Array(n);
  const yOffsets = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    ids[i] = info[i * 5]!;
    clusters[i] = info[i * 5 + 2]!;
    xAdvances[i] = pos[i * 5]!;
    xOffsets[i] = pos[i * 5 + 2]!;
    yOffsets[i] = pos[i * 5 + 3]!;
  }
  return { ids, clusters, xAdvances, xOffsets, yOffsets };
}
