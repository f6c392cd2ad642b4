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
 * Which characters qualify is read from the font's GSUB and GPOS (fontkit's parse), over every
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

/** Code units considered: Basic Latin to Latin Extended-B, and general punctuation to letterlike symbols. */
const LIMIT = 0x2150;
const CANDIDATE = /^[\p{Script=Latin}\p{Script=Common}]$/u;
const EXCLUDED = /^[\p{M}\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cn}\p{Co}]$/u;
const LATIN = /^\p{Script=Latin}$/u;

/** Script contexts, as HarfBuzz guesses them for a word: Latin when it has a Latin letter. */
const HB_SCRIPT_LATIN = 0x4c61746e; // 'Latn'
const HB_SCRIPT_COMMON = 0x5a797979; // 'Zyyy'

interface Context {
  readonly script: number;
  /** Glyph id of each code unit (0: not plain), from HarfBuzz shaping it alone. */
  readonly glyph: Uint16Array;
  /** Its advance alone, in font units. */
  readonly advance: Int32Array;
  /** Pair adjustment of the first glyph by code units (a << 16 | b); NaN: the pair is not plain. */
  readonly kern: Map<number, number>;
}

interface PlainTables {
  /** 1: plain, Latin; 2: plain, Common; 0: not plain. */
  readonly kind: Uint8Array;
  readonly latin: Context;
  readonly common: Context;
}

const tables = new WeakMap<FontFace, PlainTables | null>();

type Coverage = { glyphs?: readonly number[]; rangeRecords?: readonly { start: number; end: number }[] } | undefined;

function coverageGlyphs(c: Coverage): number[] {
  if (!c) return [];
  if (c.glyphs) return [...c.glyphs];
  const out: number[] = [];
  for (const r of c.rangeRecords ?? []) for (let g = r.start; g <= r.end; g++) out.push(g);
  return out;
}

/**
 * Lookup indexes of the features HarfBuzz may apply by default: those of each script's default
 * language system (HarfBuzz's default language is none the fonts name, so it uses those), with the
 * required feature, all scripts together.
 */
function defaultLookups(table: Sub): Set<number> {
  const features: Sub[] = table.featureList ?? [];
  const out = new Set<number>();
  for (const record of table.scriptList ?? []) {
    const langSys = record.script?.defaultLangSys;
    if (!langSys) continue;
    const indexes: number[] = [...(langSys.featureIndexes ?? [])];
    if (langSys.reqFeatureIndex !== undefined && langSys.reqFeatureIndex !== 0xffff) indexes.push(langSys.reqFeatureIndex);
    for (const i of indexes) {
      const f = features[i];
      if (!f) throw new Error('feature index out of range');
      if (!isOptional(f.tag)) for (const l of f.feature.lookupListIndexes) out.add(l);
    }
  }
  return out;
}

// fontkit's parsed layout tables, loosely typed (restructure objects).
type Sub = Record<string, any>;

/**
 * Remove from `safe` the glyphs at which a subtable could act in a word of safe glyphs.
 * @returns false when the font's positioning cannot be reproduced pairwise (no fast path).
 */
function restrict(table: 'GSUB' | 'GPOS', type: number, st: Sub, safe: Set<number>): boolean {
  const drop = (glyphs: Iterable<number>) => {
    for (const g of glyphs) safe.delete(g);
  };
  const anySafe = (c: Coverage) => coverageGlyphs(c).some((g) => safe.has(g));
  const contextual = (table === 'GSUB' && (type === 5 || type === 6)) || (table === 'GPOS' && (type === 7 || type === 8));
  if (contextual) {
    const format = st.version ?? st.format;
    if (format === 3) {
      const inputs: Coverage[] = st.inputCoverage ?? st.coverages ?? [];
      const all = [...(st.backtrackCoverage ?? []), ...inputs, ...(st.lookaheadCoverage ?? [])];
      if (all.every(anySafe)) drop(coverageGlyphs(inputs[0]));
      return true;
    }
    drop(coverageGlyphs(st.coverage));
    return true;
  }
  if (table === 'GSUB') {
    if (type === 4) {
      const first = coverageGlyphs(st.coverage);
      first.forEach((g, k) => {
        const set: Sub[] = st.ligatureSets?.[k] ?? [];
        if (set.some((lig) => (lig.components as number[]).every((c) => safe.has(c)))) safe.delete(g);
      });
      return true;
    }
    drop(coverageGlyphs(st.coverage)); // single, multiple, alternate, reverse chaining: never
    return true;
  }
  switch (type) {
    case 1: // single adjustment: in each character's own shaping
      return true;
    case 2: {
      const second = st.valueFormat2 as Record<string, boolean> | undefined;
      return !second || !Object.values(second).some(Boolean);
    }
    case 3:
      drop(coverageGlyphs(st.coverage));
      return true;
    case 4:
    case 5:
      drop(coverageGlyphs(st.markCoverage));
      return true;
    case 6:
      drop(coverageGlyphs(st.mark1Coverage));
      return true;
    default:
      return false;
  }
}

/** Apply `restrict` over the default lookups of a layout table (extensions unwrapped). */
function restrictBy(face: FontFace, tag: 'GSUB' | 'GPOS', safe: Set<number>): boolean {
  const table = (face.font as unknown as Record<string, Sub | undefined>)[tag];
  if (!table) return true;
  const lookups: Sub[] = table.lookupList?.toArray ? table.lookupList.toArray() : (table.lookupList ?? []);
  const extension = tag === 'GSUB' ? 7 : 9;
  for (const i of defaultLookups(table)) {
    const lookup = lookups[i];
    if (!lookup) return false;
    for (const sub of lookup.subTables ?? []) {
      const type = lookup.lookupType === extension ? (sub.extensionLookupType ?? sub.lookupType) : lookup.lookupType;
      const st = lookup.lookupType === extension ? sub.extension : sub;
      if (!st || !restrict(tag, type, st, safe)) return false;
    }
  }
  return true;
}

/** Glyphs GDEF classes as marks. */
function markGlyphs(face: FontFace): Set<number> {
  const out = new Set<number>();
  const classDef = (face.font as unknown as { GDEF?: Sub }).GDEF?.glyphClassDef;
  if (!classDef) return out;
  if (classDef.classValueArray) (classDef.classValueArray as number[]).forEach((c, i) => c === 3 && out.add(classDef.startGlyph + i));
  for (const r of classDef.classRangeRecord ?? []) if (r.class === 3) for (let g = r.start; g <= r.end; g++) out.add(g);
  return out;
}

function newContext(script: number): Context {
  return { script, glyph: new Uint16Array(LIMIT), advance: new Int32Array(LIMIT), kern: new Map() };
}

/** The face's tables, made on first use; null when the face has no fast path. */
function plainTables(face: FontFace): PlainTables | null {
  let t = tables.get(face);
  if (t !== undefined) return t;
  t = null;
  try {
    t = buildTables(face);
  } catch {
    t = null;
  }
  tables.set(face, t);
  return t;
}

function buildTables(face: FontFace): PlainTables | null {
  const font = face.font;
  const cmap = new Map<number, number>();
  const safe = new Set<number>();
  for (let c = 0x20; c < LIMIT; c++) {
    if (c >= 0xd800) break;
    const ch = String.fromCharCode(c);
    if (c === 0x2044 || !CANDIDATE.test(ch) || EXCLUDED.test(ch)) continue;
    if (!font.hasGlyphForCodePoint(c)) continue;
    const g = font.glyphForCodePoint(c).id;
    if (g === 0) continue;
    cmap.set(c, g);
    safe.add(g);
  }
  for (const g of markGlyphs(face)) safe.delete(g);
  if (!restrictBy(face, 'GSUB', safe) || !restrictBy(face, 'GPOS', safe)) return null;
  const kind = new Uint8Array(LIMIT);
  const latin = newContext(HB_SCRIPT_LATIN);
  const common = newContext(HB_SCRIPT_COMMON);
  for (const [c, g] of cmap) {
    if (!safe.has(g)) continue;
    const ch = String.fromCharCode(c);
    let ok = true;
    for (const ctx of [latin, common]) {
      const s = hbShape(face, ch, [], false, ctx.script);
      if (s.ids.length !== 1 || s.ids[0] !== g || s.xOffsets[0] !== 0 || s.yOffsets[0] !== 0) {
        ok = false;
        break;
      }
      ctx.glyph[c] = g;
      ctx.advance[c] = s.xAdvances[0]!;
    }
    if (ok) kind[c] = LATIN.test(ch) ? 1 : 2;
  }
  return { kind, latin, common };
}

/** The pair adjustment of a after b in `ctx`, shaped by HarfBuzz once; NaN when the pair is not plain. */
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
 * face): the caller shapes it with HarfBuzz. Requires HarfBuzz (the tables come from it).
 */
export function shapePlain(face: FontFace, text: string): PlainShaped | undefined {
  const n = text.length;
  if (n === 0 || n > 256) return undefined;
  const t = plainTables(face);
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
