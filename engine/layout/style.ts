/**
 * Style resolution (DESIGN §5 "Style properties"): named styles, then the node's own properties,
 * over what the parent passes down. Text properties inherit; box properties do not.
 */
import type { BorderInput, BorderSide, SidesInput, StyleProps } from '../template/types.ts';
import { parseColor } from '../template/colors.ts';
import { sidesOf } from '../template/page.ts';
import type { FontLibrary } from '../text/fonts.ts';
import type { Align, RGB, TextStyle } from '../text/paragraph.ts';
import type { BoxLayout } from './nodes.ts';

/** Four lengths in points, CSS order. */
export interface Sides {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

/** A resolved border side; width 0 means none. */
export interface Stroke {
  readonly width: number;
  readonly color: RGB;
}
export interface Borders {
  readonly top: Stroke;
  readonly right: Stroke;
  readonly bottom: Stroke;
  readonly left: Stroke;
}

/** The computed style of a node. */
export interface ComputedStyle {
  // Inherited.
  /** The family stack, first choice first (the library appends its fallbacks). */
  readonly fontFamily: readonly string[];
  readonly fontSize: number;
  readonly fontWeight: number;
  readonly fontStyle: 'normal' | 'italic';
  readonly color: RGB;
  readonly lineHeight: number;
  readonly textAlign: Align;
  readonly textDecoration: 'none' | 'underline' | 'line-through';
  readonly direction: 'ltr' | 'rtl' | 'auto';
  readonly letterSpacing: number;
  readonly fontFeatures: readonly string[] | undefined;
  /** Hyphenate justified text (default true). */
  readonly hyphenate: boolean;
  /** BCP 47 language of the text (a node's `lang`), or undefined: the document's. */
  readonly lang: string | undefined;
  readonly widows: number;
  readonly orphans: number;
  // Not inherited.
  readonly margin: Sides;
  readonly padding: Sides;
  readonly border: Borders | null;
  readonly backgroundColor: RGB | null;
  readonly keepTogether: boolean;
  readonly breakBefore: boolean;
  /** What follows starts on a new page (pageBreak "after"). */
  readonly breakAfter: boolean;
  readonly verticalAlign: 'top' | 'middle' | 'bottom' | 'baseline';
  readonly keepWithNext: boolean;
  /** Fixed size, position, rotation, opacity, corner radius (null: none of them). */
  readonly box: Omit<BoxLayout, 'path'> | null;
}

export const ZERO_SIDES: Sides = Object.freeze({ top: 0, right: 0, bottom: 0, left: 0 });
const BLACK: RGB = [0, 0, 0];

/** Normalise `margin`/`padding`: a number, `[vertical, horizontal]` or `[top, right, bottom, left]`. */
export function toSides(input: SidesInput | undefined): Sides {
  return input === undefined ? ZERO_SIDES : sidesOf(input);
}

/** Parse a colour already validated by the schema; unparseable (e.g. a placeholder left empty) gives `fallback`. */
export function color(value: string | undefined, fallback: RGB): RGB {
  if (!value) return fallback;
  return parseColor(value) ?? fallback;
}

function stroke(side: BorderSide | undefined, base?: BorderSide): Stroke {
  const width = side?.width ?? base?.width ?? (side || base ? 1 : 0);
  return { width, color: color(side?.color ?? base?.color, BLACK) };
}

function toBorders(input: BorderInput | undefined): Borders | null {
  if (!input) return null;
  if ('top' in input || 'right' in input || 'bottom' in input || 'left' in input) {
    const sides = input as { top?: BorderSide; right?: BorderSide; bottom?: BorderSide; left?: BorderSide };
    const b = { top: stroke(sides.top), right: stroke(sides.right), bottom: stroke(sides.bottom), left: stroke(sides.left) };
    return b.top.width || b.right.width || b.bottom.width || b.left.width ? b : null;
  }
  const all = stroke(input as BorderSide);
  return all.width > 0 ? { top: all, right: all, bottom: all, left: all } : null;
}

function weightOf(w: StyleProps['fontWeight'], fallback: number): number {
  if (w === undefined) return fallback;
  if (w === 'bold') return 700;
  if (w === 'normal') return 400;
  return w;
}

/** The style of the document root, from the template's `font`. */
export function rootStyle(font: { family?: string | string[]; size?: number; color?: string; lineHeight?: number } | undefined, defaultFamily: string): ComputedStyle {
  return {
    fontFamily: font?.family === undefined ? [defaultFamily] : typeof font.family === 'string' ? [font.family] : font.family,
    fontSize: font?.size ?? 10,
    fontWeight: 400,
    fontStyle: 'normal',
    color: color(font?.color, BLACK),
    lineHeight: font?.lineHeight ?? 1.25,
    textAlign: 'start',
    textDecoration: 'none',
    direction: 'ltr',
    letterSpacing: 0,
    fontFeatures: undefined,
    hyphenate: true,
    lang: undefined,
    widows: 2,
    orphans: 2,
    margin: ZERO_SIDES,
    padding: ZERO_SIDES,
    border: null,
    backgroundColor: null,
    keepTogether: false,
    breakBefore: false,
    breakAfter: false,
    verticalAlign: 'baseline',
    keepWithNext: false,
    box: null,
  };
}

/** Merge named styles (in order) and then the node's own properties into one property set. */
export function mergeProps(node: StyleProps, styles: Record<string, StyleProps> | undefined): StyleProps {
  if (!node.style || !styles) return node;
  const names = Array.isArray(node.style) ? node.style : [node.style];
  const merged: StyleProps = {};
  for (const name of names) Object.assign(merged, styles[name]);
  for (const key of Object.keys(node) as (keyof StyleProps)[]) {
    if (node[key] !== undefined) (merged as Record<string, unknown>)[key] = node[key];
  }
  return merged;
}

/** Keys of StyleProps that change a computed style (colSpan, rowSpan live on cells, not styles). */
const STYLE_KEYS = new Set([
  'fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'color', 'lineHeight', 'textAlign', 'textDecoration', 'direction',
  'letterSpacing', 'fontFeatures', 'hyphenate', 'lang', 'widows', 'orphans',
  'margin', 'padding', 'border', 'backgroundColor', 'keepTogether', 'keepWithNext', 'breakBefore', 'pageBreak', 'verticalAlign',
  'width', 'height', 'position', 'relativeTo', 'top', 'right', 'bottom', 'left', 'rotate', 'opacity', 'borderRadius',
]);

function hasStyle(p: StyleProps): boolean {
  for (const key in p) if (STYLE_KEYS.has(key) && (p as Record<string, unknown>)[key] !== undefined) return true;
  return false;
}

// Most nodes (table cells above all) set no style of their own: they share one computed style per
// parent, which also lets TextStyles reuse its answer by identity.
const plainChild = new WeakMap<ComputedStyle, ComputedStyle>();

// Styled nodes share too: the cells of a table column with the same named styles (a report's
// 3,000 right-aligned, muted cells) get one computed style per parent and set of style properties
// instead of one each (with its colour array, sides and text style lookup).
const styledChildren = new WeakMap<ComputedStyle, Map<string, ComputedStyle>>();
const STYLE_KEY_LIST = [...STYLE_KEYS] as (keyof StyleProps)[];

/** The style properties `p` sets, as a string (equal strings: equal computed styles). */
function styleKey(p: StyleProps): string {
  const parts: unknown[] = [];
  for (const key of STYLE_KEY_LIST) {
    const v = p[key];
    if (v !== undefined) parts.push(key, v);
  }
  return JSON.stringify(parts);
}

/** Compute a node's style from its parent's and its own (already merged) properties. */
export function computeStyle(parent: ComputedStyle, p: StyleProps): ComputedStyle {
  if (!hasStyle(p)) {
    let child = plainChild.get(parent);
    if (!child) plainChild.set(parent, (child = compute(parent, {})));
    return child;
  }
  let byKey = styledChildren.get(parent);
  if (!byKey) styledChildren.set(parent, (byKey = new Map()));
  const key = styleKey(p);
  let child = byKey.get(key);
  if (!child) byKey.set(key, (child = compute(parent, p)));
  return child;
}

/** The same style with no padding, margin, border or background (a table cell's content). */
const bareOf = new WeakMap<ComputedStyle, ComputedStyle>();
export function bareStyle(s: ComputedStyle): ComputedStyle {
  if (s.padding === ZERO_SIDES && s.margin === ZERO_SIDES && !s.backgroundColor && !s.border) return s;
  let bare = bareOf.get(s);
  if (!bare) bareOf.set(s, (bare = { ...s, padding: ZERO_SIDES, margin: ZERO_SIDES, backgroundColor: null, border: null }));
  return bare;
}

function compute(parent: ComputedStyle, p: StyleProps): ComputedStyle {
  return {
    fontFamily: p.fontFamily === undefined ? parent.fontFamily : typeof p.fontFamily === 'string' ? [p.fontFamily] : p.fontFamily,
    fontSize: p.fontSize ?? parent.fontSize,
    fontWeight: weightOf(p.fontWeight, parent.fontWeight),
    fontStyle: p.fontStyle ?? parent.fontStyle,
    color: p.color !== undefined ? color(p.color, parent.color) : parent.color,
    lineHeight: p.lineHeight ?? parent.lineHeight,
    textAlign: p.textAlign ?? parent.textAlign,
    textDecoration: p.textDecoration ?? parent.textDecoration,
    direction: p.direction ?? parent.direction,
    letterSpacing: p.letterSpacing ?? parent.letterSpacing,
    fontFeatures: p.fontFeatures ?? parent.fontFeatures,
    hyphenate: p.hyphenate ?? parent.hyphenate,
    lang: p.lang ?? parent.lang,
    widows: p.widows ?? parent.widows,
    orphans: p.orphans ?? parent.orphans,
    margin: p.margin === undefined ? ZERO_SIDES : toSides(p.margin),
    padding: p.padding === undefined ? ZERO_SIDES : toSides(p.padding),
    border: toBorders(p.border),
    backgroundColor: p.backgroundColor ? parseColor(p.backgroundColor) : null,
    keepTogether: p.keepTogether ?? p.pageBreak === 'avoid',
    breakBefore: p.breakBefore === 'page' || p.pageBreak === 'before',
    breakAfter: p.pageBreak === 'after',
    verticalAlign: p.verticalAlign ?? 'baseline',
    keepWithNext: p.keepWithNext ?? p.pageBreak === 'avoid',
    box: boxOf(p),
  };
}

/** The box properties of a node, or null when it sets none. */
function boxOf(p: StyleProps): Omit<BoxLayout, 'path'> | null {
  const absolute = p.position === 'absolute';
  if (p.width === undefined && p.height === undefined && !absolute && !p.rotate && (p.opacity ?? 1) >= 1 && !p.borderRadius) return null;
  return {
    width: p.width ?? null,
    height: p.height ?? null,
    absolute: absolute ? { relativeTo: p.relativeTo ?? 'page', top: p.top ?? null, right: p.right ?? null, bottom: p.bottom ?? null, left: p.left ?? null } : null,
    rotate: p.rotate ?? 0,
    opacity: p.opacity ?? 1,
    radius: p.borderRadius ?? 0,
  };
}

/**
 * Text styles are interned: equal styles are the same object, so runs merge by identity and the
 * painter switches font and colour only when they change.
 */
export class TextStyles {
  private readonly interned = new Map<string, TextStyle>();
  private readonly byStyle = new WeakMap<ComputedStyle, TextStyle>();
  constructor(private readonly fonts: FontLibrary) {}

  /** @throws RenderError FONT_NOT_FOUND for an unknown family. */
  of(s: ComputedStyle, link?: string): TextStyle {
    if (link === undefined) {
      let hit = this.byStyle.get(s);
      if (!hit) this.byStyle.set(s, (hit = this.lookup(s, undefined)));
      return hit;
    }
    return this.lookup(s, link);
  }

  private lookup(s: ComputedStyle, link: string | undefined): TextStyle {
    const key = `${s.fontFamily.join(',')}|${s.fontWeight}|${s.fontStyle}|${s.fontSize}|${s.color.join(',')}|${s.lineHeight}|${s.textDecoration}|${s.letterSpacing}|${s.fontFeatures?.join(',') ?? ''}|${link ?? ''}`;
    let style = this.interned.get(key);
    if (!style) {
      const stack = this.fonts.resolveStack(s.fontFamily, s.fontWeight, s.fontStyle);
      style = {
        face: stack[0],
        stack,
        size: s.fontSize,
        color: s.color,
        lineHeight: s.lineHeight,
        decoration: s.textDecoration,
        link,
        features: s.fontFeatures,
        letterSpacing: s.letterSpacing,
      };
      this.interned.set(key, style);
    }
    return style;
  }
}
