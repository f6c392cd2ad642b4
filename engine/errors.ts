/**
 * Errors the engine throws. Every error carries a machine-readable `code` and, where one exists,
 * the JSON path of the template node or data value at fault, so callers can show it to the author.
 */

/** Codes of {@link RenderError}. */
export type RenderErrorCode =
  /** The definition does not match the DSL (details in `issues`). */
  | 'TEMPLATE_INVALID'
  /** Data does not fit what the template needs (e.g. `each` over a non-array). */
  | 'DATA_INVALID'
  /** A limit of {@link Limits} was passed. */
  | 'LIMIT_EXCEEDED'
  /** An image could not be decoded or is of an unsupported type. */
  | 'IMAGE_INVALID'
  /** A barcode or QR code value the symbology refuses. */
  | 'BARCODE_INVALID'
  /** A font family that the font library does not hold. */
  | 'FONT_NOT_FOUND'
  /** Something the requested PDF/A variant forbids and that cannot be made conformant. */
  | 'PDFA_CONFLICT'
  /** Image output: the page asked for is past the document's last page (path `page`). */
  | 'PAGE_OUT_OF_RANGE'
  /** Anything else that stopped rendering. */
  | 'RENDER_ERROR';

/** One fault with its location. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** The error type thrown by `renderPdf()` and its passes. */
export class RenderError extends Error {
  readonly code: RenderErrorCode;
  /** JSON path of the node or value at fault (`content[2].table.rows[0][1]`), when known. */
  readonly path?: string;
  /** Every fault found, for TEMPLATE_INVALID. */
  readonly issues: ErrorDetail[];

  constructor(code: RenderErrorCode, message: string, path?: string, issues: ErrorDetail[] = []) {
    super(path ? `${path}: ${message}` : message);
    this.name = 'RenderError';
    this.code = code;
    this.path = path;
    this.issues = issues.length > 0 ? issues : path ? [{ path, message }] : [];
  }
}

/**
 * Resource limits of one render. Each is checked as early as it can be: the definition's depth
 * when it is validated; nodes while binding; glyphs, boxes and a lower bound of the page count
 * while the content is prepared (before any line is broken); the exact page count while
 * paginating; the data's depth by `checkData()` and before binding. Passing one fails the render
 * with RenderError('LIMIT_EXCEEDED') (the definition's depth: 'TEMPLATE_INVALID'; the data's:
 * 'DATA_INVALID' with path `data`).
 */
export interface Limits {
  /**
   * Pages in the output. Default 1,000. Together with maxGlyphs it bounds a render's memory: a
   * page of dense text in words that never repeat takes about 0.6 MB while it is laid out, and
   * 2,000,000 characters fill about 500 such pages (repeated words and sparse pages cost less).
   */
  maxPages: number;
  /** Nodes after data binding (each/if expanded; every table cell and list item counts). Default 250,000. */
  maxNodes: number;
  /** Nesting depth of the definition and of bound nodes. Default 48. */
  maxDepth: number;
  /**
   * Characters of text laid out in the whole document, header, footer and background on every page
   * included (counted before shaping; each becomes about one glyph). Default 2,000,000.
   */
  maxGlyphs: number;
  /**
   * Boxes laid out: every prepared node (table cells and list items included, header, footer and
   * background once per page) and every line of text. Default 1,000,000.
   */
  maxBoxes: number;
  /** Nesting depth of the data (objects and arrays; the root object is 1). Default 32. */
  maxDataDepth: number;
  /** Decoded bytes of one image. Default 20 MiB. */
  maxImageBytes: number;
  /** Pixels (width x height) of one image. Default 40 million. */
  maxImagePixels: number;
  /** Elements of one SVG image. Default 20,000. */
  maxSvgElements: number;
  /**
   * Characters of data that placeholder filters and condition comparisons go through while the
   * data is checked and while it is bound (each pass counted on its own; header and footer once
   * per page). Default 20,000,000 (well under a second of work).
   */
  maxDataScan: number;
}

/** The limits a render uses when `options.limits` does not say otherwise. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxPages: 1000,
  maxNodes: 250_000,
  maxDepth: 48,
  maxGlyphs: 2_000_000,
  maxBoxes: 1_000_000,
  maxDataDepth: 32,
  maxImageBytes: 20 * 1024 * 1024,
  maxImagePixels: 40_000_000,
  maxSvgElements: 20_000,
  maxDataScan: 20_000_000,
});
