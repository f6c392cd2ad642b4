/**
 * Error responses of the HTTP API (spec §7, DESIGN §4): JSON `{"code", "detail"}`, plus
 * `errors: [{path, message}]` for VALIDATION_ERROR.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';

/**
 * Every `code` an HTTP error response can carry, with its status. docs/api.md has the same table
 * (a test keeps the two in step): add a code here and there together.
 */
export const API_ERROR_CODES = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  S3_INTEGRATION_MISSING: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  TEMPLATE_VERSION_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  INTEGRATION_NOT_FOUND: 404,
  ASSET_NOT_FOUND: 404,
  TAG_EXISTS: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IMAGE_FETCH_FAILED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  HEADERS_TOO_LARGE: 431,
  CLIENT_CLOSED_REQUEST: 499,
  INTERNAL_ERROR: 500,
  S3_UPLOAD_FAILED: 502,
  STORAGE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

/** A code of {@link API_ERROR_CODES}. */
export type ApiErrorCode = keyof typeof API_ERROR_CODES;

/**
 * Codes of a failed render or job: `render_error.code` of a 500 answer, a job's `error_code` and a
 * pdf.failed webhook's `error.code`. The engine's own codes plus those of the service around it.
 * docs/api.md lists them in one table (kept in step by a test).
 */
export const JOB_ERROR_CODES = [
  'TEMPLATE_INVALID',
  'DATA_INVALID',
  'LIMIT_EXCEEDED',
  'IMAGE_INVALID',
  'IMAGE_FETCH_FAILED',
  'BARCODE_INVALID',
  'FONT_NOT_FOUND',
  'PDFA_CONFLICT',
  'PAGE_OUT_OF_RANGE',
  'RENDER_ERROR',
  'RENDER_TIMEOUT',
  'RENDER_MEMORY',
  'RENDER_CRASHED',
  'S3_INTEGRATION_MISSING',
  'S3_UPLOAD_FAILED',
  'STORAGE_UNAVAILABLE',
] as const;

/** An error the API answers with `status` and the JSON body `{code, detail, ...extra}`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ApiErrorCode,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export interface FieldError {
  path: string;
  message: string;
}

/**
 * Most request-field faults an error answer lists (fieldErrors): a body of a million unknown keys
 * would otherwise be answered with a list seven times its size, built on the HTTP thread. A
 * template definition's faults are all listed: an author fixes them at once.
 */
export const MAX_LISTED_FAULTS = 100;

/** 400 VALIDATION_ERROR with the field faults `errors`, of `total` (default: as many as given) counted in `detail`. */
export function validationError(errors: FieldError[], total = errors.length): ApiError {
  const first = errors[0];
  const detail = first ? `${first.path || 'body'}: ${first.message}${total > 1 ? ` (and ${total - 1} more)` : ''}` : 'invalid request';
  return new ApiError(400, 'VALIDATION_ERROR', detail, { errors });
}

/** A field path as errors name it: `expiration`, `data.items[0].name` (an empty key: `[""]`). */
export function fieldPath(segments: readonly PropertyKey[]): string {
  return segments.map((p, n) => (typeof p === 'number' || p === '' ? `[${JSON.stringify(p)}]` : n === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * Field faults of a zod error, with paths such as `expiration` or `data.items[0]`: the first
 * {@link MAX_LISTED_FAULTS} (`errors`) and how many there are (`total`). Unknown keys of a strict
 * object are one fault each at the key's own path (zod puts them all at the object's).
 */
export function fieldErrors(error: ZodError): { errors: FieldError[]; total: number } {
  const errors: FieldError[] = [];
  let total = 0;
  for (const i of error.issues) {
    if (i.code !== 'unrecognized_keys') {
      total++;
      if (errors.length < MAX_LISTED_FAULTS) errors.push({ path: fieldPath(i.path), message: i.message });
      continue;
    }
    total += i.keys.length;
    for (const key of i.keys) {
      if (errors.length >= MAX_LISTED_FAULTS) break;
      errors.push({ path: shortened(fieldPath([...i.path, key])), message: `${JSON.stringify(shortened(key))} is not a known field of this ${i.path.length === 0 ? 'request' : 'object'}` });
    }
  }
  return { errors, total };
}

/** Most characters of a path or key a fault shows. */
const MAX_SHOWN = 200;

/**
 * `text` as a fault shows it: its start and end around "..." when longer than {@link MAX_SHOWN}
 * (a 1 MB key above 100 faults would repeat it in each: 100 MB of answer for 1 MB sent).
 */
function shortened(text: string): string {
  return text.length <= MAX_SHOWN ? text : `${text.slice(0, MAX_SHOWN / 2 - 2)}...${text.slice(-(MAX_SHOWN / 2 - 1))}`;
}

/** An unpaired surrogate: with the `u` flag a pair is one code point, so only a lone half is in Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

function unstorableTextMessage(s: string, what: string, nulAllowed: boolean): string | undefined {
  if (!nulAllowed) {
    const nul = s.indexOf('\u0000');
    if (nul >= 0) return `${what} holds a NUL character (\\u0000 at character ${nul + 1}), which cannot be stored as text: leave it out`;
  }
  const lone = LONE_SURROGATE.exec(s);
  if (!lone) return undefined;
  const unit = s.charCodeAt(lone.index).toString(16);
  return `${what} holds an unpaired UTF-16 surrogate (\\u${unit} at character ${lone.index + 1}), which is not a Unicode character: send text as valid Unicode (a character above U+FFFF as a surrogate pair, or as UTF-8 bytes)`;
}

/**
 * Faults for every string (value or key) of a parsed JSON body that holds an unpaired UTF-16
 * surrogate (JSON's `"\ud800"` escape alone): such a string cannot be stored or rendered as
 * text (UTF-8 has no encoding for it; it would turn into U+FFFD). Outside the top-level `data`
 * (the render's input, which draws no control characters), a NUL character (`"\u0000"`) is a
 * fault too: PostgreSQL cannot store it in a text column (a template name with one was a 500).
 * At most `max` faults; the walk is iterative, so a deeply nested body cannot exhaust the stack.
 */
export function unstorableTextErrors(body: unknown, max = 100): FieldError[] {
  interface At {
    value: unknown;
    parent: At | undefined;
    key: string | number | undefined;
    /** Whether this is the body's `data` or inside it (set when pushed: looking it up from the root was quadratic in the nesting). */
    inData: boolean;
  }
  const pathOf = (at: At | undefined): string => {
    const segments: (string | number)[] = [];
    for (let a = at; a?.key !== undefined; a = a.parent) segments.push(a.key);
    return shortened(fieldPath(segments.reverse()));
  };
  const errors: FieldError[] = [];
  const stack: At[] = [{ value: body, parent: undefined, key: undefined, inData: false }];
  while (stack.length > 0 && errors.length < max) {
    const at = stack.pop()!;
    const { value } = at;
    if (typeof value === 'string') {
      const message = unstorableTextMessage(value, 'the text', at.inData);
      if (message) errors.push({ path: pathOf(at), message });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: at, key: i, inData: at.inData });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (const key of keys) {
        const message = unstorableTextMessage(key, `the key ${JSON.stringify(shortened(key))}`, at.inData);
        if (message) errors.push({ path: pathOf(at), message });
      }
      const root = at.parent === undefined;
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]], parent: at, key: keys[i], inData: at.inData || (root && keys[i] === 'data') });
    }
  }
  return errors.slice(0, max);
}

/** What Hono's JSON validator says of a body JSON.parse refuses. */
const HONO_MALFORMED_JSON = 'Malformed JSON in request body';

/**
 * Where and how a JSON body is malformed, as JSON.parse says it ("Unexpected token } in JSON at
 * position 42"), from the body as read (the body middlewares keep it); an empty body said so.
 */
async function malformedJsonDetail(c: Context): Promise<string> {
  const cached = c.req.bodyCache.arrayBuffer as Promise<ArrayBuffer> | ArrayBuffer | undefined;
  if (cached === undefined) return 'the request body is not valid JSON';
  const text = Buffer.from(await cached).toString('utf8');
  if (text.trim() === '') return 'the request body is empty: send a JSON object';
  try {
    JSON.parse(text);
  } catch (e) {
    return `the request body is not valid JSON: ${(e as Error).message}`;
  }
  return 'the request body is not valid JSON';
}

/**
 * Hono's onError: ApiError as JSON; anything unexpected as 500 INTERNAL_ERROR (logged, not leaked).
 * `renderFailed` hears of every answer that carries a failed render's `render_error` (for the log:
 * the request line alone says 500).
 */
export function errorHandler(log: (err: unknown) => void, renderFailed?: (renderError: unknown) => void) {
  return async (err: Error, c: Context) => {
    if (err instanceof ApiError) {
      if (err.extra.render_error !== undefined) renderFailed?.(err.extra.render_error);
      return c.json({ code: err.code, detail: err.detail, ...err.extra }, err.status);
    }
    if (err instanceof HTTPException) {
      if (err.status === 413) return c.json({ code: 'PAYLOAD_TOO_LARGE', detail: 'the request body is larger than the limit' }, 413);
      if (err.status === 415) return c.json({ code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'the request body must be JSON: send the header content-type: application/json' }, 415);
      if (err.message === HONO_MALFORMED_JSON) return c.json({ code: 'BAD_REQUEST', detail: await malformedJsonDetail(c) }, 400);
      return c.json({ code: 'BAD_REQUEST', detail: err.message || 'bad request' }, 400);
    }
    log(err);
    return c.json({ code: 'INTERNAL_ERROR', detail: 'internal error' }, 500);
  };
}

/** 404 NOT_FOUND for unknown routes. */
export function notFound(c: Context) {
  return c.json({ code: 'NOT_FOUND', detail: `no route for ${c.req.method} ${c.req.path}` }, 404);
}
