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

/** Resource limits of one render (DESIGN §6; issue: clear errors instead of runaway renders). */
export interface Limits {
  /** Pages in the output. Default 2,000. */
  maxPages: number;
  /** Nodes after data binding (each/if expanded). Default 250,000. */
  maxNodes: number;
  /** Nesting depth of the definition and of bound nodes. Default 48. */
  maxDepth: number;
  /** Decoded bytes of one image. Default 20 MiB. */
  maxImageBytes: number;
  /** Pixels (width x height) of one image. Default 40 million. */
  maxImagePixels: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxPages: 2000,
  maxNodes: 250_000,
  maxDepth: 48,
  maxImageBytes: 20 * 1024 * 1024,
  maxImagePixels: 40_000_000,
});
