/**
 * A watermark: one line of text drawn diagonally across the middle of every page, over the
 * content, in translucent grey (opaque light grey in PDF/A, which forbids transparency). The
 * service stamps previews with it ("PREVIEW"); its text extracts like any other text.
 *
 * The line is laid out once per text and font library by the engine itself (a one-node template),
 * then placed on each page by a transform: centred, along the diagonal from the bottom-left to the
 * top-right corner, about 70 % of the diagonal long.
 */
import { DEFAULT_LIMITS } from '../errors.ts';
import { parseTemplate } from '../template/schema.ts';
import type { FontLibrary } from '../text/fonts.ts';
import type { LaidOut, LayoutOptions } from '../pipeline.ts';
import type { Template } from '../template/types.ts';
import type { DrawItem, Page } from './nodes.ts';
import { ARTIFACT } from '../tags/struct.ts';

/** Longest watermark text, characters. */
export const MAX_WATERMARK_CHARS = 100;

/** Size the line is laid out at, points; the transform scales it per page. */
const LAYOUT_SIZE = 100;
/** Share of the page diagonal the line spans. */
const DIAGONAL_SHARE = 0.7;
/** Its letters' height at most this share of the page's shorter side. */
const HEIGHT_SHARE = 0.25;
/** Cap height of the bundled sans, in em: the line is centred on the middle of its capitals. */
const CAP_HEIGHT = 0.714;
const COLOR = '#808080';
const OPACITY = 0.2;
const PDFA_COLOR = '#e3e3e3';

interface Laid {
  items: DrawItem[];
  /** Horizontal extent and baseline of the line at LAYOUT_SIZE. */
  left: number;
  right: number;
  baseline: number;
}

const laidOut = new WeakMap<FontLibrary, Map<string, Laid>>();

/** `{{` and `<<` print as they are: a watermark is not bound to data. */
function literal(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\{\{|<</g, (m) => `\\${m}`);
}

/** The layout passes (engine/pipeline.ts), passed in: the pipeline runs this module after them. */
export type LayoutFn = (template: Template, data: unknown, opts: LayoutOptions) => LaidOut;

function layOut(text: string, fonts: FontLibrary, pdfa: boolean, layoutDocument: LayoutFn): Laid {
  let byText = laidOut.get(fonts);
  if (!byText) laidOut.set(fonts, (byText = new Map()));
  const key = `${pdfa ? 'a' : 'n'}${text}`;
  const hit = byText.get(key);
  if (hit) return hit;
  const parsed = parseTemplate({
    page: { size: [14_400, LAYOUT_SIZE * 3], margin: 0 },
    content: [{ text: literal(text), fontSize: LAYOUT_SIZE, fontWeight: 'bold', lineHeight: 1, color: pdfa ? PDFA_COLOR : COLOR, hyphenate: false }],
  });
  if (!parsed.ok) throw new Error(`watermark: ${parsed.errors[0].message}`);
  const [page] = layoutDocument(parsed.template, {}, { fonts, limits: DEFAULT_LIMITS, now: new Date(0) }).pages;
  let left = Infinity;
  let right = -Infinity;
  let baseline = 0;
  for (const item of page.items) {
    if (item.kind !== 'text') continue;
    left = Math.min(left, item.x);
    right = Math.max(right, item.x + item.run.width);
    baseline = item.y;
  }
  const laid = { items: page.items, left, right, baseline };
  if (byText.size >= 16) byText.clear();
  byText.set(key, laid);
  return laid;
}

/**
 * A template's watermark (template `watermark`), laid out once: its items at their layout size
 * and the box to centre on each page (for text: its advance and the height of its capitals).
 */
export interface WatermarkArt {
  readonly items: readonly DrawItem[];
  /** Centre of the art and its width and height, points. */
  readonly cx: number;
  readonly cy: number;
  readonly w: number;
  readonly h: number;
  /** Text laid out at the layout size, to be scaled to the page (no fontSize given). */
  readonly fitToPage: boolean;
  /** Text: turned along the diagonal when no rotation is given. */
  readonly text: boolean;
}

/** The layout size of watermark text without a fontSize, points (the transform scales it). */
export const WATERMARK_LAYOUT_SIZE = LAYOUT_SIZE;
/** Cap height of the bundled sans, in em (watermark text is centred on the middle of its capitals). */
export const WATERMARK_CAP_HEIGHT = CAP_HEIGHT;

/**
 * The transform [a, b, c, d, e, f] that draws `art` centred on a page of `width` x `height`:
 * turned `rotate` degrees clockwise (undefined: text along the diagonal from the bottom-left to
 * the top-right corner, images upright), scaled to the page when `art.fitToPage` (70 % of the
 * diagonal, or 80 % of the page once turned; letters at most a quarter of the shorter side), and
 * in any case scaled down until it lies on the page.
 */
export function watermarkMatrix(art: WatermarkArt, width: number, height: number, rotate: number | undefined): [number, number, number, number, number, number] {
  const theta = rotate !== undefined ? (rotate * Math.PI) / 180 : art.text ? -Math.atan2(height, width) : 0;
  const cos = Math.cos(theta);
  const sin = Math.sin(theta);
  // The turned box's extent at scale 1.
  const tw = Math.abs(cos) * art.w + Math.abs(sin) * art.h;
  const th = Math.abs(sin) * art.w + Math.abs(cos) * art.h;
  let s = 1;
  if (art.fitToPage) {
    s = rotate === undefined && art.text
      ? Math.min((DIAGONAL_SHARE * Math.hypot(width, height)) / art.w, (HEIGHT_SHARE * Math.min(width, height)) / art.h)
      : Math.min((0.8 * width) / tw, (0.8 * height) / th, (HEIGHT_SHARE * Math.min(width, height)) / art.h);
  }
  s = Math.min(s, width / Math.max(tw, 1e-9), height / Math.max(th, 1e-9));
  const a = s * cos;
  const b = s * sin;
  const c = -s * sin;
  const d = s * cos;
  return [a, b, c, d, width / 2 - (a * art.cx + c * art.cy), height / 2 - (b * art.cx + d * art.cy)];
}

/**
 * Adds the watermark `text` to every page (drawn last, over the content).
 * @param pdfa no transparency: opaque light grey instead.
 * @param layoutDocument the layout passes, which lay the line out once per text and font library.
 * @throws RangeError when `text` is empty (after trimming) or longer than {@link MAX_WATERMARK_CHARS}.
 */
export function stampWatermark(pages: readonly Page[], text: string, fonts: FontLibrary, pdfa: boolean, layoutDocument: LayoutFn): void {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_WATERMARK_CHARS) throw new RangeError(`a watermark is 1 to ${MAX_WATERMARK_CHARS} characters`);
  const laid = layOut(trimmed, fonts, pdfa, layoutDocument);
  if (laid.right <= laid.left) return;
  const cx = (laid.left + laid.right) / 2;
  const cy = laid.baseline - (CAP_HEIGHT * LAYOUT_SIZE) / 2;
  for (const page of pages) {
    const diagonal = Math.hypot(page.width, page.height);
    const scale = Math.min((DIAGONAL_SHARE * diagonal) / (laid.right - laid.left), (HEIGHT_SHARE * Math.min(page.width, page.height)) / (CAP_HEIGHT * LAYOUT_SIZE));
    // y grows downwards: the line rises from the bottom-left towards the top-right corner.
    const angle = Math.atan2(page.height, page.width);
    const a = scale * Math.cos(angle);
    const b = -scale * Math.sin(angle);
    const c = scale * Math.sin(angle);
    const d = scale * Math.cos(angle);
    const e = page.width / 2 - (a * cx + c * cy);
    const f = page.height / 2 - (b * cx + d * cy);
    // Tagged: one artifact around the whole group (tagging.ts), not marked item by item inside it.
    page.items.push({ kind: 'group', matrix: [a, b, c, d, e, f], opacity: pdfa ? null : OPACITY, items: laid.items, tag: ARTIFACT });
  }
}
