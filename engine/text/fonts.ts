/**
 * The font library: which faces exist, and one parsed fontkit font per face for the whole process.
 *
 * A font directory holds TTF/OTF files and a `manifest.json`:
 * `{"default": "Noto Sans", "aliases": {"serif": "Noto Serif"}, "faces": [{"family", "weight", "style", "file", "license"}]}`.
 * Files are read and parsed lazily, on first use of a face, and never again (DESIGN §6: nothing on
 * the hot path reads a file).
 */
import { readFileSync } from 'node:fs';
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
  faces: ManifestFace[];
}

interface FaceEntry extends ManifestFace {
  path: string;
  loaded?: FontFace;
}

/** The bundled fonts folder (`fonts/` at the repository root). */
export const BUNDLED_FONT_DIR = fileURLToPath(new URL('../../fonts/', import.meta.url));

/** A set of font faces from one or more directories, parsed lazily and once. */
export class FontLibrary {
  readonly defaultFamily: string;
  private readonly families = new Map<string, FaceEntry[]>();
  private readonly aliases = new Map<string, string>();
  private readonly resolved = new Map<string, FontFace>();

  /** @throws Error when a directory has no readable manifest.json. */
  constructor(dirs: string[] = [BUNDLED_FONT_DIR]) {
    let defaultFamily: string | undefined;
    for (const dir of dirs) {
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
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
    }
    if (!defaultFamily) throw new Error('font library: no manifest names a default family');
    this.defaultFamily = defaultFamily;
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
    const face = best.loaded ?? (best.loaded = loadFace(best));
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

function loadFace(entry: FaceEntry): FontFace {
  const font = fontkit.create(readFileSync(entry.path)) as Font;
  const upm = font.unitsPerEm;
  return {
    key: `${entry.family}|${entry.weight}|${entry.style}`,
    family: entry.family,
    weight: entry.weight,
    style: entry.style,
    font,
    unitsPerEm: upm,
    ascent: font.ascent / upm,
    descent: Math.abs(font.descent) / upm,
    underlinePosition: Math.abs(font.underlinePosition || -0.1 * upm) / upm,
    underlineThickness: (font.underlineThickness || 0.05 * upm) / upm,
    xHeight: (font.xHeight || 0.5 * upm) / upm,
  };
}

let bundled: FontLibrary | undefined;

/** The process-wide library of the bundled fonts, created on first use. */
export function bundledFontLibrary(): FontLibrary {
  return (bundled ??= new FontLibrary());
}
