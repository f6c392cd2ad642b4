/**
 * Error responses of the HTTP API (spec §7, DESIGN §4): JSON `{"code", "detail"}`, plus
 * `errors: [{path, message}]` for VALIDATION_ERROR.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';

/** An error the API answers with `status` and the JSON body `{code, detail, ...extra}`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
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

/** 400 VALIDATION_ERROR with every field fault. */
export function validationError(errors: FieldError[]): ApiError {
  const first = errors[0];
  const detail = first ? `${first.path || 'body'}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}` : 'invalid request';
  return new ApiError(400, 'VALIDATION_ERROR', detail, { errors });
}

/** Field faults of a zod error, with paths such as `expiration` or `data.items[0]`. */
export function fieldErrors(error: ZodError): FieldError[] {
  return error.issues.map((i) => ({
    path: i.path.map((p, n) => (typeof p === 'number' ? `[${p}]` : n === 0 ? String(p) : `.${String(p)}`)).join(''),
    message: i.message,
  }));
}

/** Hono's onError: ApiError as JSON; anything unexpected as 500 INTERNAL_ERROR (logged, not leaked). */
export function errorHandler(log: (err: unknown) => void) {
  return (err: Error, c: Context) => {
    if (err instanceof ApiError) return c.json({ code: err.code, detail: err.detail, ...err.extra }, err.status);
    if (err instanceof HTTPException) {
      if (err.status === 413) return c.json({ code: 'PAYLOAD_TOO_LARGE', detail: 'the request body is larger than the limit' }, 413);
      return c.json({ code: err.status === 400 ? 'BAD_REQUEST' : 'ERROR', detail: err.message || 'request failed' }, err.status);
    }
    log(err);
    return c.json({ code: 'INTERNAL_ERROR', detail: 'internal error' }, 500);
  };
}

/** 404 NOT_FOUND for unknown routes. */
export function notFound(c: Context) {
  return c.json({ code: 'NOT_FOUND', detail: `no route for ${c.req.method} ${c.req.path}` }, 404);
}
