/**
 * Ranges of the DSL's numbers, checked when a template is validated (saved), so that no number
 * can make a render allocate or loop without bound. Lengths are points (1/72 inch).
 */
export const BOUNDS = Object.freeze({
  /** Width and height of a page: PDF's own limits (3 to 14,400 points, 200 inches). */
  pageSide: Object.freeze({ min: 3, max: 14_400 }),
  /**
   * Every other length: margin, padding, cellPadding, widths and heights (image, barcode, column),
   * qrcode size, spacer, gap, line thickness, length and dash, border widths.
   */
  length: 14_400,
  /** fontSize and font.size. */
  fontSize: Object.freeze({ min: 1, max: 1000 }),
  /** lineHeight and font.lineHeight, a multiple of the font size. */
  lineHeight: Object.freeze({ min: 0.1, max: 10 }),
  /** letterSpacing, points added after every glyph (may be negative). */
  letterSpacing: Object.freeze({ min: -100, max: 100 }),
  /**
   * colSpan and rowSpan, and the columns of one table. A colSpan also ends within the table's
   * `columns` when those are given; a rowSpan ends within its section when its rows are all literal.
   */
  span: 1000,
  /** A share of the free width ("N*" column widths). */
  share: 1000,
  /** Entries of a line's dash pattern. */
  dashEntries: 16,
  /** `start` of a numbered list. */
  listStart: 1_000_000,
});
