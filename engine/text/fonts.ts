/**
 * The font library: which faces exist, and one parsed fontkit font per face for the whole process.
 *
 * A font directory holds TTF/OTF files and, optionally, a `manifest.json`:
 * `{"default": "Noto Sans", "aliases": {"serif": "Noto Serif"}, "fallbacks": ["Noto Sans Arabic"],
 *   "faces": [{"family", "weight", "style", "file", "license"}]}`.
 * A directory without a manifest (PLATEN_FONT_DIRS, e.g. CJK fonts) is scanned: every .ttf/.otf
 * becomes a face (family, weight and style from the font's own tables) and a fallback.
 * Files are parsed lazily, on first use of a face, and never again (DESIGN §6: nothing on the hot
 * path reads a file).
 *
 * Font stacks: a style names one family or a list; `resolveStack` appends the fallbacks, and
 * text is drawn, character by character, in the first face of the stack that has a glyph.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as fontkit from 'fontkit';
import type { Font } from 'fontkit';
import { RenderError } from '../errors.ts';

export type FontStyle = 'normal' | 'italic';

/** One face of a family, with metrics already divided by unitsPerEm (so multiply by the font size in points). */
export interface FontFace {
  /** Unique within the library: `Noto Sans|700|italic`. Also the cache key of shaped text. */
  readonly key: string;
  readonly family: string;
  readonly weight: number;
  readonly style: FontStyle;
  readonly font: Font;
  readonly unitsPerEm: number;
  /** Ascent above the baseline, in ems (positive). */
  readonly ascent: number;
  /** Descent below the baseline, in ems (positive). */
  readonly descent: number;
  /** Underline position below the baseline and its thickness, in ems (positive). */
  readonly underlinePosition: number;
  readonly underlineThickness: number;
  /** Height of lower-case letters, in ems; places the strike-through line. */
  readonly xHeight: number;
}

interface ManifestFace {
  family: string;
  weight: number;
  style: FontStyle;
  file: string;
}
interface Manifest {
  default?: string;
  aliases?: Record<string, string>;
  fallbacks?: string[];
  faces: ManifestFace[];
}

interface FaceEntry extends ManifestFace {
  path: string;
  loaded?: FontFace;
  /** Already parsed while scanning a directory. */
  font?: Font;
}

/** The bundled fonts folder (`fonts/` at the repository root). */
export const BUNDLED_FONT_DIR = fileURLToPath(new URL('../../fonts/', import.meta.url));

/** A set of font faces from one or more directories, parsed lazily and once. */
export class FontLibrary {
  readonly defaultFamily: string;
  private readonly families = new Map<string, FaceEntry[]>();
  private readonly aliases = new Map<string, string>();
  private readonly resolved = new Map<string, FontFace>();
  private readonly stacks = new Map<string, readonly FontFace[]>();
  /** Families tried after a stack's own, in order. */
  private readonly fallbacks: string[] = [];

  /**
   * @param dirs font directories; the first must have a manifest naming the default family.
   * @throws Error when no manifest names a default family.
   */
  constructor(dirs: string[] = [BUNDLED_FONT_DIR]) {
    let defaultFamily: string | undefined;
    for (const dir of dirs) {
      const manifestPath = join(dir, 'manifest.json');
      const manifest: Manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : scanDirectory(dir);
      defaultFamily ??= manifest.default;
      for (const [alias, family] of Object.entries(manifest.aliases ?? {})) {
        this.aliases.set(alias.toLowerCase(), family.toLowerCase());
      }
      for (const face of manifest.faces) {
        const key = face.family.toLowerCase();
        const list = this.families.get(key) ?? [];
        list.push({ ...face, path: join(dir, face.file) });
        this.families.set(key, list);
      }
      for (const family of manifest.fallbacks ?? []) if (!this.fallbacks.includes(family)) this.fallbacks.push(family);
    }
    if (!defaultFamily) throw new Error('font library: no manifest names a default family');
    this.defaultFamily = defaultFamily;
  }

  /**
   * The faces to try for a style: each family of `families` (or the default), then the fallbacks,
   * each at the nearest weight and style, without repeats.
   * @throws RenderError FONT_NOT_FOUND when a named family is unknown.
   */
  resolveStack(families: readonly string[], weight = 400, style: FontStyle = 'normal'): readonly FontFace[] {
    const key = `${families.join('\u0000')}|${weight}|${style}`;
    const hit = this.stacks.get(key);
    if (hit) return hit;
    const faces: FontFace[] = [];
    for (const family of families.length > 0 ? families : [this.defaultFamily]) {
      const face = this.resolve(family, weight, style);
      if (!faces.includes(face)) faces.push(face);
    }
    for (const family of this.fallbacks) {
      const face = this.resolve(family, weight, style);
      if (!faces.includes(face)) faces.push(face);
    }
    this.stacks.set(key, faces);
    return faces;
  }

  /** Family names the library holds, as written in the manifests. */
  familyNames(): string[] {
    return [...this.families.values()].map((faces) => faces[0].family);
  }

  /** Whether `family` (or an alias) is known. */
  hasFamily(family: string): boolean {
    return this.entriesOf(family) !== undefined;
  }

  /**
   * The face that best matches, by CSS font-matching rules: same style if present (else the other),
   * then the nearest weight (heavier first for weights above 500, lighter first below).
   * @throws RenderError FONT_NOT_FOUND when the family is unknown.
   */
  resolve(family: string | undefined, weight = 400, style: FontStyle = 'normal'): FontFace {
    const cacheKey = `${family ?? ''}|${weight}|${style}`;
    const hit = this.resolved.get(cacheKey);
    if (hit) return hit;
    const entries = this.entriesOf(family ?? this.defaultFamily);
    if (!entries) {
      throw new RenderError('FONT_NOT_FOUND', `unknown font family "${family}"; available: ${this.familyNames().join(', ')}`);
    }
    const sameStyle = entries.filter((e) => e.style === style);
    const pool = sameStyle.length > 0 ? sameStyle : entries;
    const best = pool.reduce((a, b) => (weightDistance(b.weight, weight) < weightDistance(a.weight, weight) ? b : a));
    const face = best.loaded ?? (best.loaded = loadFace(best, best.font));
    this.resolved.set(cacheKey, face);
    return face;
  }

  private entriesOf(family: string): FaceEntry[] | undefined {
    const key = family.toLowerCase();
    return this.families.get(key) ?? this.families.get(this.aliases.get(key) ?? '');
  }
}

function weightDistance(candidate: number, wanted: number): number {
  const d = candidate - wanted;
  // Prefer heavier faces for bold requests and lighter for light ones, as CSS does.
  if (wanted > 500) return d >= 0 ? d : 1000 - d;
  return d <= 0 ? -d : 1000 + d;
}

/** A manifest for a directory that has none: every font file it holds, as fallbacks. */
function scanDirectory(dir: string): Manifest & { faces: (ManifestFace & { font?: Font })[] } {
  const faces: (ManifestFace & { font: Font })[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!/\.(ttf|otf)$/i.test(file)) continue;
    let font: Font;
    try {
      font = fontkit.create(readFileSync(join(dir, file))) as Font;
    } catch {
      continue; // not a font fontkit can read: skipped
    }
    const os2 = (font as unknown as { 'OS/2'?: { usWeightClass?: number; fsSelection?: { italic?: boolean } } })['OS/2'];
    faces.push({
      family: font.familyName,
      weight: os2?.usWeightClass ?? 400,
      style: os2?.fsSelection?.italic || font.italicAngle !== 0 ? 'italic' : 'normal',
      file,
      font,
    });
  }
  return { faces, fallbacks: [...new Set(faces.map((f) => f.family))] };
}

/** The face's BMP coverage table: 0 not looked up yet, 1 has a glyph, 2 has none. */
export function coverageTable(face: FontFace): Uint8Array {
  let table = bmp.get(face);
  if (!table) bmp.set(face, (table = new Uint8Array(0x10000)));
  return table;
}

/** Whether `face` has a glyph for code point `cp` (cached per face: a table for the BMP). */
export function hasGlyph(face: FontFace, cp: number): boolean {
  if (cp < 0x10000) {
    const table = coverageTable(face);
    let v = table[cp];
    if (v === 0) table[cp] = v = face.font.hasGlyphForCodePoint(cp) ? 1 : 2;
    return v === 1;
  }
  let cache = coverage.get(face);
  if (!cache) coverage.set(face, (cache = new Map()));
  let has = cache.get(cp);
  if (has === undefined) cache.set(cp, (has = face.font.hasGlyphForCodePoint(cp)));
  return has;
}
const coverage = new WeakMap<FontFace, Map<number, boolean>>();
const bmp = new WeakMap<FontFace, Uint8Array>();

function loadFace(entry: FaceEntry, parsed?: Font): FontFace {
  const font = parsed ?? (fontkit.create(readFileSync(entry.path)) as Font);
  const m = faceMetrics(font);
  const upm = m.unitsPerEm;
  return {
    key: `${entry.family}|${entry.weight}|${entry.style}`,
    family: entry.family,
    weight: entry.weight,
    style: entry.style,
    font,
    unitsPerEm: upm,
    ascent: m.ascent / upm,
    descent: Math.abs(m.descent) / upm,
    underlinePosition: Math.abs(m.underlinePosition || -0.1 * upm) / upm,
    underlineThickness: (m.underlineThickness || 0.05 * upm) / upm,
    xHeight: (m.xHeight || 0.5 * upm) / upm,
  };
}

/** A face's vertical metrics in font units, as fontkit's getters give them (xHeight 0 when OS/2 has none). */
interface RawMetrics {
  unitsPerEm: number;
  ascent: number;
  descent: number;
  underlinePosition: number;
  underlineThickness: number;
  xHeight: number;
}

/**
 * The metrics a FontFace needs, read straight from the head, hhea, post and OS/2 tables of the
 * font file: fontkit decodes a whole table on first access, and its `post` holds every glyph's
 * name (some 10 ms for a few faces, for two numbers). Falls back to fontkit's getters when the
 * file or a table is not where fontkit found it.
 */
function faceMetrics(font: Font): RawMetrics {
  const bytes = (font as unknown as { stream?: { buffer?: Uint8Array } }).stream?.buffer;
  const tables = (font as unknown as { directory?: { tables?: Record<string, { offset: number; length: number } | undefined> } }).directory?.tables;
  const head = tables?.head;
  const hhea = tables?.hhea;
  const post = tables?.post;
  const os2 = tables?.['OS/2'];
  const fits = (t: { offset: number; length: number } | undefined, size: number) => t !== undefined && t.length >= size && t.offset + size <= bytes!.length;
  if (!(bytes instanceof Uint8Array) || !fits(head, 20) || !fits(hhea, 8) || !fits(post, 12)) {
    return { unitsPerEm: font.unitsPerEm, ascent: font.ascent, descent: font.descent, underlinePosition: font.underlinePosition, underlineThickness: font.underlineThickness, xHeight: font.xHeight };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (fits(post, 32)) lazyPost(font, view, post!);
  // OS/2 versions 2 and later have sxHeight at byte 86.
  const xHeight = fits(os2, 88) && view.getUint16(os2!.offset) >= 2 ? view.getInt16(os2!.offset + 86) : 0;
  return {
    unitsPerEm: view.getUint16(head!.offset + 18),
    ascent: view.getInt16(hhea!.offset + 4),
    descent: view.getInt16(hhea!.offset + 6),
    underlinePosition: view.getInt16(post!.offset + 8),
    underlineThickness: view.getInt16(post!.offset + 10),
    xHeight,
  };
}

/**
 * fontkit decodes a table whole on its first read, and `post` holds every glyph's name: reading
 * italicAngle or isFixedPitch (a PDF font descriptor) cost 20-60 ms a face in a fresh process.
 * This puts the table's 32-byte header where fontkit keeps its decoded tables; anything else
 * (glyph names) decodes the whole table then. Left to fontkit if its internals are not as expected.
 */
function lazyPost(font: Font, view: DataView, table: { offset: number; length: number }): void {
  const internals = font as unknown as { _tables?: Record<string, unknown>; _decodeTable?: (table: unknown) => Record<string | symbol, unknown> };
  const decodeTable = internals._decodeTable;
  if (typeof internals._tables !== 'object' || internals._tables === null || typeof decodeTable !== 'function' || 'post' in internals._tables) return;
  const at = table.offset;
  const header: Record<string | symbol, unknown> = {
    version: view.getInt32(at) / 65536,
    italicAngle: view.getInt32(at + 4) / 65536,
    underlinePosition: view.getInt16(at + 8),
    underlineThickness: view.getInt16(at + 10),
    isFixedPitch: view.getUint32(at + 12),
    minMemType42: view.getUint32(at + 16),
    maxMemType42: view.getUint32(at + 20),
    minMemType1: view.getUint32(at + 24),
    maxMemType1: view.getUint32(at + 28),
  };
  let full: Record<string | symbol, unknown> | undefined;
  internals._tables.post = new Proxy(header, {
    get: (target, key) => (key in target ? target[key] : (full ??= decodeTable.call(font, table))?.[key]),
  });
}

let bundled: FontLibrary | undefined;

/** The process-wide library of the bundled fonts, created on first use. */
export function bundledFontLibrary(): FontLibrary {
  return (bundled ??= new FontLibrary());
}
