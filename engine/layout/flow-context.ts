/**
 * Types shared by the paginate pass and the table pagination it delegates to (a leaf module, so
 * that neither imports the other's module for them).
 */
import type { WarningSink } from '../warnings.ts';
import type { Box, DrawItem } from './nodes.ts';

/** Result of placing a box: the height it took and what is left for the next region. */
export interface Placement {
  readonly used: number;
  readonly rest: Box | null;
}

/**
 * Places one box with its top-left border corner at (x, y) in `avail` points of height;
 * `atTop`: nothing precedes it in this region, so something must be placed.
 */
export type PlaceFn = (box: Box, x: number, y: number, avail: number, atTop: boolean, out: DrawItem[], ctx: FlowContext) => Placement;

/** Settings of one pagination. */
export interface FlowContext {
  /** Height of a whole content area: what a box can have on a fresh page. */
  readonly regionHeight: number;
  /** The paginate pass's own `place`, for the content of table cells. */
  readonly place: PlaceFn;
  /** The page's size: absolute and rotated boxes are kept on it (none given: not checked). */
  readonly page?: { readonly width: number; readonly height: number };
  /** Height of the area the top-level boxes flow in (absolute boxes given from its bottom); default regionHeight. */
  readonly areaHeight?: number;
  /** Where BOX_CLAMPED warnings go. */
  readonly warnings?: WarningSink;
  /**
   * Where the items of absolutely placed boxes are recorded (when given): they stand out of the
   * flow, so they never count as content running past a region's bottom.
   */
  readonly outOfFlow?: WeakSet<DrawItem>;
}

/**
 * The settings for content nested in a box that takes `taken` points of every region it is cut
 * into (its padding and border, a table cell's padding and the header repeated above it): what a
 * fresh page holds of that content is `regionHeight - taken`. Absolute boxes keep measuring from
 * the whole area's bottom.
 */
export function nestedContext(ctx: FlowContext, taken: number): FlowContext {
  if (taken <= 0 || ctx.regionHeight === Infinity || taken >= ctx.regionHeight) return ctx;
  return { ...ctx, regionHeight: ctx.regionHeight - taken, areaHeight: ctx.areaHeight ?? ctx.regionHeight };
}
