/**
 * SVG image sources: checked, made safe and sized before layout. The picture is drawn as vectors
 * by paint/svg.ts (svg-to-pdfkit); the raster output can hand the same bytes to its own SVG
 * renderer.
 *
 * Made safe: entity declarations are refused (no entity expansion bombs); every `href` and
 * `xlink:href` that does not point inside the document (`#id`) is removed, so nothing outside it
 * is ever read (no URLs, no files, no embedded raster images, no links); `@import` rules are
 * removed from style sheets. Scripts are never run by either renderer.
 * Sized: the root's `width` and `height` (unitless or px as points, like the pixels of a PNG at
 * 72 dpi; pt, in, cm, mm converted), else its `viewBox`; the root then gets both, in points.
 * A size past MAX_SVG_SIDE points or below MIN_SVG_SIDE, a viewBox number past MAX_SVG_VIEWBOX or
 * a viewBox side below MIN_SVG_VIEWBOX_SIDE, is refused: a PDF cannot draw it.
 */
import { RenderError, type Limits } from '../errors.ts';
import type { DecodedImage } from './nodes.ts';

/**
 * How deep an SVG's elements may be nested: svg-to-pdfkit draws a nested element by recursion,
 * and 5,000 levels of `<g>` overflowed the stack (19,000 filled a render thread's heap).
 */
export const MAX_SVG_DEPTH = 256;

/** The elements of SVG text (opening tags) and how deep they are nested (opening tags not yet closed, at most), in one pass of {@link eachElement}. */
function elementCounts(text: string): { elements: number; depth: number } {
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  eachElement(text, (_name, closing, selfClosing) => {
    if (closing) depth = Math.max(0, depth - 1);
    else {
      elements++;
      if (!selfClosing && ++depth > deepest) deepest = depth;
    }
  });
  return { elements, depth: deepest };
}

/** Elements an SVG may hold when `Limits.maxSvgElements` is not set. */
export const DEFAULT_MAX_SVG_ELEMENTS = 20_000;

/**
 * The largest width and height an SVG may declare, in points (353 m): a drawing of any real size
 * fits, and a larger one cannot be drawn into a PDF (pdfkit writes no number from 1e21 on, and
 * scaling it onto a page leaves less than the 6 decimals pdfkit writes).
 */
export const MAX_SVG_SIDE = 1_000_000;

/**
 * The smallest width and height an SVG may declare or take from its viewBox, in points (a third
 * of a micrometre): the size is written back into the document, and scaling the drawing onto its
 * box divides by it.
 */
export const MIN_SVG_SIDE = 0.001;

/**
 * The smallest width and height of an SVG's viewBox, in its user units: svg-to-pdfkit writes the
 * drawing's coordinates in those units, and the PDF keeps 6 decimals of them.
 */
export const MIN_SVG_VIEWBOX_SIDE = 0.01;

/** The largest number (by magnitude) of an SVG's viewBox: room for coordinates in metres of a world map, far below what pdfkit refuses. */
export const MAX_SVG_VIEWBOX = 1_000_000_000;

/**
 * Content-stream operators an SVG of `elements` elements may write when drawn as vectors: 200 an
 * element, at least 200,000. Checked here against its path segments (a fault with the image's
 * path), and by paint/svg.ts while drawing (what `<use>` references multiply).
 */
export function svgOperatorBudget(elements: number): number {
  return Math.max(200_000, elements * 200);
}

/** Path segments of an SVG document: command letters of `d` attributes, point pairs of `points`. */
function pathSegments(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/\s(d|points)\s*=\s*("[^"]*"|'[^']*')/g)) {
    const value = m[2];
    if (m[1] === 'd') n += value.match(/[MLHVCSQTAZmlhvcsqtaz]/g)?.length ?? 0;
    else n += Math.ceil((value.match(/[-+]?(?:\d*\.\d+|\d+\.?)(?:e[-+]?\d+)?/gi)?.length ?? 0) / 2);
  }
  return n;
}

/** Whether `data` looks like an SVG document (text whose first element is `<svg`). */
export function isSvg(data: Uint8Array): boolean {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 4096)).toString('utf8').replace(/^\uFEFF/, '');
  // Skip an XML declaration, comments, a DOCTYPE and processing instructions before the root.
  const rest = head.replace(/^(\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>)*/i, '');
  return /^<svg[\s>/]/i.test(rest) || (/^<([A-Za-z_][\w.-]*):svg[\s>/]/.test(rest));
}

const UNIT_POINTS: Record<string, number> = { '': 1, px: 1, pt: 1, in: 72, cm: 72 / 2.54, mm: 72 / 25.4, pc: 12 };

/** A length attribute in points (Infinity past the largest number), or null when absent, relative (%), unreadable or 0. */
function lengthOf(value: string | undefined): number | null {
  if (value === undefined) return null;
  const m = lengthParts(value);
  if (!m) return null;
  const n = Number(m[0]) * UNIT_POINTS[(m[1] ?? '').toLowerCase()];
  return n > 0 ? n : null;
}

/**
 * A length's number and unit (`12.5mm`: "12.5", "mm"), or null. A value longer than 64 characters
 * is no length, and the pattern reads each character one way only (no backtracking): untrusted
 * text is matched in linear time.
 */
function lengthParts(value: string): [string, string | undefined] | null {
  if (value.length > 64) return null;
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)(e[-+]?\d+)?\s*(px|pt|in|cm|mm|pc)?\s*$/i.exec(value);
  return m ? [m[1] + (m[2] ?? ''), m[3]] : null;
}

const UNIT_PIXELS: Record<string, number> = { '': 1, px: 1, pt: 4 / 3, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, pc: 16 };

/** A length attribute in CSS pixels (the user units of an SVG without a viewBox), or null. */
function userUnits(value: string | undefined): number | null {
  const m = value === undefined ? null : lengthParts(value);
  return m ? Number(m[0]) * UNIT_PIXELS[(m[1] ?? '').toLowerCase()] : null;
}

/**
 * The element tags of SVG text, read as svg-to-pdfkit reads them: a comment ends at `-->`, a
 * CDATA section at `]]>`, a processing instruction at `?>`, a declaration (`<!DOCTYPE ...`) at its
 * first `>`; an element's tag at the first `>` outside a quoted attribute value (a quote opens one
 * only after `=`), and a `<` inside a tag means it was none. Calls `onElement` with each tag's
 * name, whether it closes (`</g>`) or closes itself (`<g/>`) and where it starts and ends; stops
 * when it returns false. One pass over the text.
 */
function eachElement(text: string, onElement: (name: string, closing: boolean, selfClosing: boolean, start: number, end: number) => boolean | void): void {
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return;
    const skip = text.startsWith('<!--', lt) ? '-->' : text.startsWith('<![CDATA[', lt) ? ']]>' : text.startsWith('<?', lt) ? '?>' : text.startsWith('<!', lt) ? '>' : null;
    if (skip !== null) {
      const end = text.indexOf(skip, lt + 2);
      if (end < 0) return;
      i = end + skip.length;
      continue;
    }
    const closing = text.charCodeAt(lt + 1) === 0x2f;
    const nameAt = closing ? lt + 2 : lt + 1;
    let j = nameAt;
    while (j < text.length && NAME_CHAR.test(text[j])) j++;
    const name = text.slice(nameAt, j);
    let quote = 0;
    let afterEquals = false;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 0x3e || c === 0x3c) break;
      else if (c === 0x3d) afterEquals = true;
      else if ((c === 0x22 || c === 0x27) && afterEquals) {
        quote = c;
        afterEquals = false;
      } else if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) afterEquals = false;
    }
    if (j >= text.length) return;
    if (text.charCodeAt(j) === 0x3c) {
      i = j; // no tag after all: read on from this '<'
      continue;
    }
    if (name !== '' && onElement(name, closing, !closing && text.charCodeAt(j - 1) === 0x2f, lt, j + 1) === false) return;
    i = j + 1;
  }
}

/** Characters of an element name as svg-to-pdfkit takes them. */
const NAME_CHAR = /[\w:.-]/;

type RootTag = { index: number; length: number; name: string; attrs: string; close: string };

/** The root `<svg ...>` tag (any prefix): the first element, when it is an svg; its place, name, attribute text and `/` when it closes itself. */
function rootTag(text: string): RootTag | null {
  let root: RootTag | null = null;
  eachElement(text, (name, closing, selfClosing, start, end) => {
    if (!closing && /^(?:[A-Za-z_][\w.-]*:)?svg$/.test(name)) {
      const inner = text.slice(start + 1 + name.length, end - 1);
      root = { index: start, length: end - start, name, attrs: selfClosing ? inner.slice(0, -1) : inner, close: selfClosing ? '/' : '' };
    }
    return false;
  });
  return root;
}

/** Attributes of an opening tag's text (` a="1" b='2'`), by name: one pass, each attribute read from where the one before ended. */
function attributesOf(tag: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const at = /\s*([A-Za-z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')|\s*[^\s]+/y;
  for (let m = at.exec(tag); m !== null && m[0] !== ''; m = at.exec(tag)) if (m[1] !== undefined) attrs.set(m[1], m[2] ?? m[3] ?? '');
  return attrs;
}

/**
 * Check, clean and size an SVG document.
 * @param data its bytes (UTF-8).
 * @param path the image's template path, for errors.
 * @returns the decoded image: type "svg", `data` the cleaned document whose root has `width` and
 *   `height` in points and a `viewBox`, `width` and `height` its size in points.
 * @throws RenderError IMAGE_INVALID (no root `<svg>`, entity declarations, no size) or
 *   LIMIT_EXCEEDED (more elements than `limits.maxSvgElements`, more path segments than
 *   {@link svgOperatorBudget}, a width or height past {@link MAX_SVG_SIDE} points, a viewBox
 *   number past {@link MAX_SVG_VIEWBOX}).
 */
export function decodeSvg(data: Uint8Array, limits: Pick<Limits, 'maxSvgElements'>, path: string | undefined): DecodedImage {
  let text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8').replace(/^\uFEFF/, '');
  if (/<!ENTITY/i.test(text)) throw new RenderError('IMAGE_INVALID', 'SVG declares entities (<!ENTITY>), which are not allowed', path);
  const { elements, depth } = elementCounts(text);
  if (depth > MAX_SVG_DEPTH) throw new RenderError('LIMIT_EXCEEDED', `SVG elements are nested ${depth} levels deep, more than ${MAX_SVG_DEPTH}`, path);
  const maxElements = limits.maxSvgElements ?? DEFAULT_MAX_SVG_ELEMENTS;
  if (elements > maxElements) throw new RenderError('LIMIT_EXCEEDED', `SVG image has more than ${maxElements} elements`, path);
  const segments = pathSegments(text);
  const budget = svgOperatorBudget(elements);
  if (segments > budget) throw new RenderError('LIMIT_EXCEEDED', `SVG image has ${segments} path segments, more than ${budget} (200 for each of its ${elements} elements, at least 200,000)`, path);
  const root = rootTag(text);
  if (!root) throw new RenderError('IMAGE_INVALID', 'SVG image has no <svg> root element', path);
  // Nothing outside the document: drop every reference that is not to an element inside it.
  // Any prefix (`xmlns:xl` may bind another one to XLink: `xl:href`), and after a quote too (a
  // lenient parser takes `x="1"href="..."` without the space XML wants).
  text = text.replace(/(?<=[\s"'])(?:[A-Za-z_][\w.-]*:)?href\s*=\s*("[^"]*"|'[^']*')/g, (whole, quoted: string) => (/^["']\s*#/.test(quoted) ? whole : ''));
  text = text.replace(/@import[^;]*;?/gi, '');
  const rootAt = rootTag(text)!;
  const attrs = attributesOf(rootAt.attrs);
  const viewBox = (attrs.get('viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  const hasViewBox = viewBox.length === 4 && viewBox.every(Number.isFinite) && viewBox[2] > 0 && viewBox[3] > 0;
  if (hasViewBox && viewBox.some((n) => Math.abs(n) > MAX_SVG_VIEWBOX)) {
    throw new RenderError('LIMIT_EXCEEDED', `SVG viewBox "${attrs.get('viewBox')!.trim()}" has a number past ${MAX_SVG_VIEWBOX.toLocaleString('en')}, the most an SVG's viewBox may hold`, path);
  }
  if (hasViewBox && Math.min(viewBox[2], viewBox[3]) < MIN_SVG_VIEWBOX_SIDE) {
    throw new RenderError('IMAGE_INVALID', `SVG viewBox "${attrs.get('viewBox')!.trim()}" is smaller than ${MIN_SVG_VIEWBOX_SIDE} units a side: its coordinates would be lost to the PDF's 6 decimals`, path);
  }
  let width = lengthOf(attrs.get('width'));
  let height = lengthOf(attrs.get('height'));
  const given = { width: width !== null, height: height !== null };
  if (hasViewBox) {
    if (width === null && height === null) [width, height] = [viewBox[2], viewBox[3]];
    else if (width === null) width = (height! * viewBox[2]) / viewBox[3];
    else if (height === null) height = (width * viewBox[3]) / viewBox[2];
  }
  if (width === null || height === null) {
    throw new RenderError('IMAGE_INVALID', 'SVG image has no size: its <svg> element needs a viewBox, or width and height', path);
  }
  for (const [side, value] of [['width', width], ['height', height]] as const) {
    if (value <= MAX_SVG_SIDE && value >= MIN_SVG_SIDE) continue;
    // As written, or as taken from the viewBox (and the other side).
    const shown = given[side] ? `"${attrs.get(side)!.trim()}"` : `${value > MAX_SVG_SIDE ? round(value) : value} pt (from its ${given.width || given.height ? `${side === 'width' ? 'height' : 'width'} and ` : ''}viewBox)`;
    if (value > MAX_SVG_SIDE) throw new RenderError('LIMIT_EXCEEDED', `SVG ${side} ${shown} exceeds ${MAX_SVG_SIDE.toLocaleString('en')} pt, the largest size an SVG image may declare`, path);
    throw new RenderError('IMAGE_INVALID', `SVG ${side} ${shown} is below ${MIN_SVG_SIDE} pt, too small to draw`, path);
  }
  // Without a viewBox, the drawing's user units are CSS pixels: 50mm wide is 189 of them.
  const units = hasViewBox ? null : [userUnits(attrs.get('width')) ?? width, userUnits(attrs.get('height')) ?? height];
  if (units !== null && Math.min(units[0], units[1]) < MIN_SVG_VIEWBOX_SIDE) {
    throw new RenderError('IMAGE_INVALID', `SVG without a viewBox is ${round(units[0])} x ${round(units[1])} user units, smaller than ${MIN_SVG_VIEWBOX_SIDE} a side: its coordinates would be lost to the PDF's 6 decimals; give it a viewBox`, path);
  }
  const box = units === null ? viewBox.join(' ') : `0 0 ${round(units[0])} ${round(units[1])}`;
  // The root again, with width, height (points) and viewBox written out; other attributes kept.
  const kept = rootAt.attrs.replace(/\s(width|height|viewBox)\s*=\s*("[^"]*"|'[^']*')/g, '');
  const tag = `<${rootAt.name}${kept} width="${round(width)}" height="${round(height)}" viewBox="${box}"${rootAt.close}>`;
  text = text.slice(0, rootAt.index) + tag + text.slice(rootAt.index + rootAt.length);
  return { type: 'svg', data: Buffer.from(text, 'utf8'), width, height, elements };
}

/** A size written back into the document: 9 significant digits, never rounded to 0 (sizes are at least MIN_SVG_SIDE). */
const round = (n: number) => Number(n.toPrecision(9));
