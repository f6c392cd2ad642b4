/**
 * The page's size and the room its margins leave, shared by validation (schema.ts: a template
 * whose margins leave no room is refused when it is saved) and layout (layout/document.ts: the
 * page frame and the same check when rendering). Imports nothing but types and the number
 * ranges (bounds.ts), so both sides can import it without a cycle (schema.ts importing the table
 * from layout/document.ts was one: document.ts -> bind.ts -> data-faults.ts -> schema.ts).
 */
import { BOUNDS } from './bounds.ts';
import type { PageSize, PageSpec, SidesInput } from './types.ts';

/** Page sizes in points, portrait, by lower-case name. */
export const PAGE_SIZES: Record<string, [number, number]> = {
  a3: [841.89, 1190.55],
  a4: [595.28, 841.89],
  a5: [419.53, 595.28],
  a6: [297.64, 419.53],
  b5: [498.9, 708.66],
  letter: [612, 792],
  legal: [612, 1008],
  tabloid: [792, 1224],
};

/** The least width and height, points, the content (and the content area between header and footer) may have. */
export const MIN_REGION = 12;

/** The default page margin, points, on every side. */
export const DEFAULT_PAGE_MARGIN = 40;

/**
 * Width and height of the page in points. `size` is a validated size: a name of
 * {@link PAGE_SIZES} (any case) or [width, height]; undefined is A4.
 */
export function pageDimensions(size: PageSize | undefined, orientation: 'portrait' | 'landscape' | undefined): [number, number] {
  const [w, h] = Array.isArray(size) ? size : PAGE_SIZES[(size ?? 'A4').toLowerCase()];
  const landscape = orientation === 'landscape';
  return landscape ? [Math.max(w, h), Math.min(w, h)] : Array.isArray(size) ? [w, h] : [Math.min(w, h), Math.max(w, h)];
}

/** Four sides, points. */
export interface PageMargin {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

/** Four sides of a margin or padding as written: a number, [vertical, horizontal] or [top, right, bottom, left] (CSS order). */
export function sidesOf(input: SidesInput): PageMargin {
  if (typeof input === 'number') return { top: input, right: input, bottom: input, left: input };
  if (input.length === 2) return { top: input[0], right: input[1], bottom: input[0], left: input[1] };
  return { top: input[0], right: input[1], bottom: input[2], left: input[3] };
}

/** `page.margin` as four sides ({@link sidesOf}); default 40. */
export function pageMargin(input: SidesInput | undefined): PageMargin {
  return sidesOf(input ?? DEFAULT_PAGE_MARGIN);
}

/**
 * Why a page of `width` x `height` with `margin` has no room for content (less than
 * {@link MIN_REGION} points between the left and right margins, or the top and bottom ones), as
 * the message of a TEMPLATE_INVALID at `page.margin`; null when it has room.
 */
export function marginRoomFault(width: number, height: number, margin: PageMargin): string | null {
  const across = width - margin.left - margin.right;
  const down = height - margin.top - margin.bottom;
  if (across >= MIN_REGION && down >= MIN_REGION) return null;
  const [side, room, sides] =
    across < MIN_REGION
      ? ['width', across, `left and right margins (${Math.round(margin.left)} + ${Math.round(margin.right)} pt)`]
      : ['height', down, `top and bottom margins (${Math.round(margin.top)} + ${Math.round(margin.bottom)} pt)`];
  return `the ${sides} leave ${Math.round(Math.max(0, room))} pt of the page's ${side} of ${Math.round(side === 'width' ? width : height)} pt for the content; at least ${MIN_REGION} pt are needed: make the margins smaller or the page larger`;
}

/**
 * {@link marginRoomFault} of a template's `page` (size, orientation and margin, defaults filled
 * in); null too when the size or margin is not well formed or out of range (validation reports
 * that on its own).
 */
export function pageMarginFault(page: PageSpec | undefined): string | null {
  const size: unknown = page?.size;
  const margin: unknown = page?.margin;
  const sides = BOUNDS.pageSide;
  if (size !== undefined && !(typeof size === 'string' && PAGE_SIZES[size.toLowerCase()] !== undefined) && !numbers(size, [2], sides.min, sides.max)) return null;
  if (margin !== undefined && !numbers(margin, [2, 4], 0, BOUNDS.length) && !numbers([margin], [1], 0, BOUNDS.length)) return null;
  const [width, height] = pageDimensions(page?.size, page?.orientation);
  return marginRoomFault(width, height, pageMargin(page?.margin));
}

/** Whether `v` is an array of `lengths` numbers, each `min` to `max`. */
function numbers(v: unknown, lengths: readonly number[], min: number, max: number): boolean {
  return Array.isArray(v) && lengths.includes(v.length) && v.every((n) => typeof n === 'number' && n >= min && n <= max);
}
