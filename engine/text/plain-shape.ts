/**
 * A fast path for shaping plain words: for a left-to-right string of Latin and common characters
 * (letters, digits, punctuation, symbols of the Latin blocks) that the font shapes without any
 * substitution, the glyph run HarfBuzz gives is each character's own glyph at its own advance, plus
 * a pair adjustment between neighbours (kerning). Both come FROM HarfBuzz: each character shaped
 * once alone and each pair of characters shaped once as a pair (lazily, on first use), per face
 * and per script context (a word with a Latin letter is shaped as Latin; one of digits and
 * punctuation only as Common, which may select other lookups). A word then costs a few table
 * reads instead of a HarfBuzz call.
 *
 * Which characters qualify is read from the bytes of the font's GSUB, GPOS and GDEF, over every
 * lookup of every feature HarfBuzz may turn on by default (all features but a list of known
 * optional ones) in each script's default language system: a character is "plain" when its glyph can start no
 * substitution in a word of plain characters (single, multiple, alternate substitutions: never;
 * ligatures: none whose other components are plain; contextual rules: none whose every context
 * position could be plain; other formats: never), is no mark, has no cursive or mark attachment,
 * and no contextual positioning can start at it. Pair positioning must leave the second glyph alone
 * (value format 2 empty: HarfBuzz would skip the next pair otherwise); a font with any other pair
 * positioning has no fast path. A character whose single shaping, or a pair whose shaping, does not
 * come back as the expected glyphs with zero offsets is not taken either. Anything else (marks,
 * other scripts, right-to-left, OpenType features asked for, U+2044 fraction slash, which turns on
 * frac/numr/dnom) is shaped by HarfBuzz itself. test/engine/plain-shape.test.ts checks, over random
 * words of the bundled fonts' Latin repertoire, that the runs are identical to HarfBuzz's.
 */
import type { FontFace } from './fonts.ts';
import { hbShape } from './harfbuzz.ts';

/** Features HarfBuzz applies only when asked for (or only in contexts plain words never have). */
const OPTIONAL_FEATURES = new Set([
  'aalt', 'afrc', 'c2pc', 'c2sc', 'case', 'cpsp', 'dlig', 'dnom', 'frac', 'halt', 'hist', 'hlig', 'jalt', 'lfbd', 'lnum', 'mgrk',
  'nalt', 'numr', 'onum', 'opbd', 'ordn', 'ornm', 'palt', 'pcap', 'pnum', 'rtbd', 'rtlm', 'salt', 'sinf', 'smcp', 'subs', 'sups',
  'swsh', 'titl', 'tnum', 'unic', 'vert', 'vhal', 'vkrn', 'vpal', 'vrt2', 'zero',
]);
const isOptional = (tag: string) => OPTIONAL_FEATURES.has(tag) || /^(ss\d\d|cv\d\d)$/.test(tag);

/**
 * Code units considered: Basic Latin to Latin Extended-B, Latin Extended Additional, and general
 * punctuation to letterlike symbols.
 */
const LIMIT = 0x2150;
const BLOCKS: readonly (readonly [number, number])[] = [
  [0x20, 0x24f],
  [0x1e00, 0x1eff],
  [0x2000, 0x214f],
];
const CANDIDATE = /^[\p{Script=Latin}\p{Script=Common}]$/u;
const EXCLUDED = /^[\p{M}\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cn}\p{Co}]$/u;
const LATIN = /^\p{Script=Latin}$/u;

let candidateList: number[] | undefined;
/** 1 for a Latin letter, 2 for a Common character, by code unit (of the candidates). */
let latinScript: Uint8Array | undefined;
/** The candidate code units (of the Latin or Common script; no marks, controls, format characters or U+2044), made once. */
function candidates(): number[] {
  if (candidateList) return candidateList;
  const list: number[] = [];
  latinScript = new Uint8Array(LIMIT);
  for (const [from, to] of BLOCKS) {
    for (let c = from; c <= to; c++) {
      const ch = String.fromCharCode(c);
      if (c === 0x2044 || !CANDIDATE.test(ch) || EXCLUDED.test(ch)) continue;
      list.push(c);
      latinScript[c] = LATIN.test(ch) ? 1 : 2;
    }
  }
  return (candidateList = list);
}

/** Script contexts, as HarfBuzz guesses them for a word: Latin when it has a Latin letter. */
const HB_SCRIPT_LATIN = 0x4c61746e; // 'Latn'
const HB_SCRIPT_COMMON = 0x5a797979; // 'Zyyy'

interface Context {
  readonly script: number;
  /** Glyph id of each code unit (0: not shaped yet), from HarfBuzz shaping it alone. */
  readonly glyph: Uint16Array;
  /** Its advance alone, in font units. */
  readonly advance: Int32Array;
  /** Pair adjustment of the first glyph by code units (a << 16 | b); NaN: the pair is not plain. */
  readonly kern: Map<number, number>;
}

interface PlainTables {
  /** 1: plain, Latin; 2: plain, Common; 0: not plain. */
  readonly kind: Uint8Array;
  /** The character map's glyph of each code unit. */
  readonly glyphOf: Uint16Array;
  readonly latin: Context;
  readonly common: Context;
}

const tables = new WeakMap<FontFace, PlainTables | null>();
/** Words shaped in a face before its tables are made (see shapePlain). */
const wordsSeen = new WeakMap<FontFace, number>();
/** The fast path starts with a face's 1,000th word shaped (not from the cache). */
const PLAIN_AFTER = 1000;

/**
 * The parts of a font's GSUB, GPOS and GDEF tables this module reads, read from the file's bytes
 * directly (fontkit decodes whole tables: 70-100 ms for Noto Sans's kerning, in a first render).
 * Offsets as in the OpenType specification.
 */
class LayoutReader {
  private readonly view: DataView;
  constructor(
    bytes: Uint8Array,
    private readonly dir: Readonly<Record<string, { offset: number; length: number } | undefined>>,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u16(at: number): number {
    return this.view.getUint16(at);
  }
  table(tag: string): number | undefined {
    return this.dir[tag]?.offset;
  }
  /** Glyphs of the coverage table at `at`, in coverage-index order. */
  coverage(at: number): number[] {
    const out: number[] = [];
    const format = this.u16(at);
    const count = this.u16(at + 2);
    if (format === 1) for (let i = 0; i < count; i++) out.push(this.u16(at + 4 + i * 2));
    else if (format === 2) {
      for (let i = 0; i < count; i++) for (let g = this.u16(at + 4 + i * 6), end = this.u16(at + 6 + i * 6); g <= end; g++) out.push(g);
    } else throw new Error(`coverage format ${format}`);
    return out;
  }
  /** The `count` coverage tables whose offsets from `base` are listed at `at`. */
  coverages(base: number, at: number, count: number): number[][] {
    return Array.from({ length: count }, (_, i) => this.coverage(base + this.u16(at + i * 2)));
  }
  /** Glyphs GDEF classes as marks (class 3). */
  marks(): number[] {
    const gdef = this.table('GDEF');
    const out: number[] = [];
    if (gdef === undefined || this.u16(gdef + 4) === 0) return out;
    const at = gdef + this.u16(gdef + 4);
    const format = this.u16(at);
    if (format === 1) {
      const start = this.u16(at + 2);
      const count = this.u16(at + 4);
      for (let i = 0; i < count; i++) if (this.u16(at + 6 + i * 2) === 3) out.push(start + i);
    } else if (format === 2) {
      const count = this.u16(at + 2);
      for (let i = 0; i < count; i++) {
        const r = at + 4 + i * 6;
        if (this.u16(r + 4) === 3) for (let g = this.u16(r), end = this.u16(r + 2); g <= end; g++) out.push(g);
      }
    } else throw new Error(`class definition format ${format}`);
    return out;
  }
  /**
   * The lookups HarfBuzz may apply by default: those of the features of each script's default
   * language system (HarfBuzz's default language is none the fonts name), required feature
   * included, optional features left out, all scripts together. Each as its type and subtable
   * offsets (extensions unwrapped).
   */
  defaultLookups(tag: 'GSUB' | 'GPOS'): { type: number; subtables: number[] }[] {
    const t = this.table(tag);
    if (t === undefined) return [];
    const scripts = t + this.u16(t + 4);
    const features = t + this.u16(t + 6);
    const lookups = t + this.u16(t + 8);
    const featureIndexes = new Set<number>();
    for (let i = 0, n = this.u16(scripts); i < n; i++) {
      const script = scripts + this.u16(scripts + 2 + i * 6 + 4);
      const defaultLangSys = this.u16(script);
      if (defaultLangSys === 0) continue;
      const langSys = script + defaultLangSys;
      const required = this.u16(langSys + 2);
      if (required !== 0xffff) featureIndexes.add(required);
      for (let k = 0, m = this.u16(langSys + 4); k < m; k++) featureIndexes.add(this.u16(langSys + 6 + k * 2));
    }
    const lookupIndexes = new Set<number>();
    const featureCount = this.u16(features);
    for (const f of featureIndexes) {
      if (f >= featureCount) throw new Error('feature index out of range');
      const record = features + 2 + f * 6;
      const name = String.fromCharCode(this.view.getUint8(record), this.view.getUint8(record + 1), this.view.getUint8(record + 2), this.view.getUint8(record + 3));
      if (isOptional(name)) continue;
      const feature = features + this.u16(record + 4);
      for (let k = 0, m = this.u16(feature + 2); k < m; k++) lookupIndexes.add(this.u16(feature + 4 + k * 2));
    }
    const extension = tag === 'GSUB' ? 7 : 9;
    const lookupCount = this.u16(lookups);
    const out: { type: number; subtables: number[] }[] = [];
    for (const i of lookupIndexes) {
      if (i >= lookupCount) throw new Error('lookup index out of range');
      const lookup = lookups + this.u16(lookups + 2 + i * 2);
      const declared = this.u16(lookup);
      let type = declared;
      const subtables: number[] = [];
      for (let k = 0, m = this.u16(lookup + 4); k < m; k++) {
        let sub = lookup + this.u16(lookup + 6 + k * 2);
        if (declared === extension) {
          type = this.u16(sub + 2);
          sub += this.view.getUint32(sub + 4);
        }
        subtables.push(sub);
      }
      out.push({ type, subtables });
    }
    return out;
  }
}

/**
 * Remove from `safe` the glyphs at which the subtable at `at` could act in a word of safe glyphs.
 * @returns false when the font's positioning cannot be reproduced pairwise (no fast path).
 */
function restrict(r: LayoutReader, table: 'GSUB' | 'GPOS', type: number, at: number, safe: Set<number>): boolean {
  const drop = (glyphs: Iterable<number>) => {
    for (const g of glyphs) safe.delete(g);
  };
  const contextual = (table === 'GSUB' && (type === 5 || type === 6)) || (table === 'GPOS' && (type === 7 || type === 8));
  if (contextual) {
    if (r.u16(at) !== 3) {
      drop(r.coverage(at + r.u16(at + 2))); // rules by glyph or by class: any might match
      return true;
    }
    let inputs: number[][];
    let all: number[][];
    if (type === 5 || type === 7) {
      inputs = r.coverages(at, at + 6, r.u16(at + 2));
      all = inputs;
    } else {
      let p = at + 2;
      const backtrack = r.coverages(at, p + 2, r.u16(p));
      p += 2 + backtrack.length * 2;
      inputs = r.coverages(at, p + 2, r.u16(p));
      p += 2 + inputs.length * 2;
      const lookahead = r.coverages(at, p + 2, r.u16(p));
      all = [...backtrack, ...inputs, ...lookahead];
    }
    // The rule can match in a plain word only if every position of it could be plain: then its first glyphs are not plain.
    if (inputs.length > 0 && all.every((c) => c.some((g) => safe.has(g)))) drop(inputs[0]!);
    return true;
  }
  if (table === 'GSUB') {
    const first = r.coverage(at + r.u16(at + 2));
    if (type !== 4) {
      drop(first); // single, multiple, alternate, reverse chaining: never
      return true;
    }
    // Ligatures: the first glyph is not plain when the other components of one of its ligatures all are.
    first.forEach((g, k) => {
      const set = at + r.u16(at + 6 + k * 2);
      for (let l = 0, n = r.u16(set); l < n; l++) {
        const lig = set + r.u16(set + 2 + l * 2);
        let plain = true;
        for (let c = 1, m = r.u16(lig + 2); c < m && plain; c++) plain = safe.has(r.u16(lig + 4 + (c - 1) * 2));
        if (plain) safe.delete(g);
      }
    });
    return true;
  }
  switch (type) {
    case 1: // single adjustment: in each character's own shaping
      return true;
    case 2: // pair adjustment: pairwise, unless it moves the second glyph (HarfBuzz then skips the next pair)
      return r.u16(at + 6) === 0;
    case 3:
    case 4:
    case 5:
    case 6: // cursive attachment; mark to base, ligature, mark: the first coverage is of the glyphs that move
      drop(r.coverage(at + r.u16(at + 2)));
      return true;
    default:
      return false;
  }
}

function newContext(script: number): Context {
  return { script, glyph: new Uint16Array(LIMIT), advance: new Int32Array(LIMIT), kern: new Map() };
}

/** The face's tables, made on first use; null when the face has no fast path. */
function plainTables(face: FontFace): PlainTables | null {
  let t = tables.get(face);
  if (t !== undefined) return t;
  try {
    t = buildTables(face);
  } catch {
    t = null;
  }
  tables.set(face, t);
  return t;
}

type FontInternals = {
  stream?: { buffer?: Uint8Array };
  directory?: { tables?: Record<string, { offset: number; length: number }> };
  _cmapProcessor?: { lookup(cp: number): number };
};

/**
 * Which characters are plain (from the layout tables); their glyphs and advances come later, from
 * HarfBuzz, the first time a word needs them.
 */
function buildTables(face: FontFace): PlainTables | null {
  const font = face.font as unknown as FontInternals;
  const bytes = font.stream?.buffer;
  const dir = font.directory?.tables;
  const cmap = font._cmapProcessor;
  if (!(bytes instanceof Uint8Array) || !dir || typeof cmap?.lookup !== 'function') return null;
  const reader = new LayoutReader(bytes, dir);
  const glyphOf = new Uint16Array(LIMIT);
  const safe = new Set<number>();
  for (const c of candidates()) {
    const g = cmap.lookup(c);
    if (!g || g > 0xffff) continue;
    glyphOf[c] = g;
    safe.add(g);
  }
  for (const g of reader.marks()) safe.delete(g);
  for (const tag of ['GSUB', 'GPOS'] as const) {
    for (const lookup of reader.defaultLookups(tag)) {
      for (const at of lookup.subtables) if (!restrict(reader, tag, lookup.type, at, safe)) return null;
    }
  }
  const kind = new Uint8Array(LIMIT);
  for (const c of candidates()) if (glyphOf[c] !== 0 && safe.has(glyphOf[c]!)) kind[c] = latinScript![c]!;
  return { kind, glyphOf, latin: newContext(HB_SCRIPT_LATIN), common: newContext(HB_SCRIPT_COMMON) };
}

/**
 * Character c alone in `ctx`, from HarfBuzz on first use: true when it comes back as its own glyph
 * with no offset (its glyph and advance are then in ctx), else false, and c is not plain from then on.
 */
function single(face: FontFace, t: PlainTables, ctx: Context, c: number): boolean {
  if (ctx.glyph[c] !== 0) return true;
  const s = hbShape(face, String.fromCharCode(c), [], false, ctx.script);
  if (s.ids.length !== 1 || s.ids[0] === 0 || s.ids[0] !== t.glyphOf[c] || s.xOffsets[0] !== 0 || s.yOffsets[0] !== 0) {
    t.kind[c] = 0;
    return false;
  }
  ctx.glyph[c] = s.ids[0]!;
  ctx.advance[c] = s.xAdvances[0]!;
  return true;
}

/** The pair adjustment of a before b in `ctx`, shaped by HarfBuzz once; NaN when the pair is not plain. */
function pairKern(face: FontFace, ctx: Context, a: number, b: number): number {
  const key = a * 65536 + b;
  let k = ctx.kern.get(key);
  if (k !== undefined) return k;
  const s = hbShape(face, String.fromCharCode(a, b), [], false, ctx.script);
  const plain =
    s.ids.length === 2 && s.ids[0] === ctx.glyph[a] && s.ids[1] === ctx.glyph[b] && s.clusters[0] === 0 && s.clusters[1] === 1 &&
    s.xOffsets[0] === 0 && s.yOffsets[0] === 0 && s.xOffsets[1] === 0 && s.yOffsets[1] === 0 && s.xAdvances[1] === ctx.advance[b];
  k = plain ? s.xAdvances[0]! - ctx.advance[a]! : Number.NaN;
  ctx.kern.set(key, k);
  return k;
}

/** Glyph ids and advances (font units) of a plain word, one glyph per character. */
export interface PlainShaped {
  readonly ids: Uint16Array;
  readonly advances: Int32Array;
}

/**
 * `text` shaped by the tables (left to right, default features), or undefined when it is not a
 * plain word of this face (empty, a character or a pair that is not plain, no fast path for the
 * face) or the face has not shaped its first 1,000 words yet (unless `now`): the caller shapes it
 * with HarfBuzz. Requires HarfBuzz (the tables come from it).
 */
export function shapePlain(face: FontFace, text: string, now = false): PlainShaped | undefined {
  const n = text.length;
  if (n === 0 || n > 256) return undefined;
  let t = tables.get(face);
  if (t === undefined) {
    // Not in a face's first words: a process that renders a document or two would pay for the
    // tables (a few ms, and a HarfBuzz call per new pair) more than they give back.
    const seen = (wordsSeen.get(face) ?? 0) + 1;
    wordsSeen.set(face, seen);
    if (seen < PLAIN_AFTER && !now) return undefined;
    t = plainTables(face);
  }
  if (!t) return undefined;
  const kind = t.kind;
  let latin = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const k = c < LIMIT ? kind[c]! : 0;
    if (k === 0) return undefined;
    if (k === 1) latin = true;
  }
  const ctx = latin ? t.latin : t.common;
  const glyph = ctx.glyph;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (glyph[c] === 0 && !single(face, t, ctx, c)) return undefined;
  }
  const ids = new Uint16Array(n);
  const advances = new Int32Array(n);
  let prev = text.charCodeAt(0);
  for (let i = 0; i < n; i++) {
    ids[i] = ctx.glyph[prev]!;
    let advance = ctx.advance[prev]!;
    if (i + 1 < n) {
      const next = text.charCodeAt(i + 1);
      const kern = pairKern(face, ctx, prev, next);
      if (kern !== kern) return undefined; // NaN: the pair is not plain
      advance += kern;
      prev = next;
    }
    advances[i] = advance;
  }
  return { ids, advances };
}
