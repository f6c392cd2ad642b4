/** A router whose request validation failures answer 400 VALIDATION_ERROR with field paths (DESIGN §4). */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../app.ts';
import { fieldErrors, unstorableTextErrors, validationError, type FieldError } from '../errors.ts';
import { errorBody } from '../schemas/common.ts';

/** JSON's escape of a UTF-16 surrogate (`\ud800`..`\udfff`) or of NUL: the only way either gets into a parsed body. */
const UNSTORABLE_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;

/**
 * Whether the JSON body may hold a lone surrogate or a NUL character. UTF-8 bytes decode to
 * well-formed text (a bad sequence becomes U+FFFD) and JSON refuses raw control characters, so
 * without one of those escapes in the text or bytes the body was parsed from (the body as read,
 * or as inflated) there is nothing to look for, and the walk of every value is skipped (it cost
 * 40-60 ms of the HTTP thread for a body of a million objects). The escapes are ASCII: the bytes
 * are read as Latin-1. A body read from no cache is walked.
 */
async function mayHoldUnstorableText(c: Context<AppEnv>): Promise<boolean> {
  const { text, arrayBuffer } = c.req.bodyCache;
  if (text !== undefined) return UNSTORABLE_ESCAPE.test(await text);
  if (arrayBuffer !== undefined) return UNSTORABLE_ESCAPE.test(Buffer.from(await arrayBuffer).toString('latin1'));
  return true;
}

export function newRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: async (result, c) => {
      const { errors, total } = result.success ? { errors: [] as FieldError[], total: 0 } : fieldErrors(result.error);
      // Every string of every JSON body (its data as parsed when valid, as sent when not): a lone
      // surrogate would be stored as U+FFFD, a NUL cannot be stored by PostgreSQL.
      const unstorable = result.target === 'json' && (await mayHoldUnstorableText(c)) ? unstorableTextErrors((result as { data?: unknown }).data) : [];
      errors.push(...unstorable);
      if (errors.length > 0) throw validationError(errors, total + unstorable.length);
    },
  });
}

/** OpenAPI content of a JSON body with `schema`. */
export const json = <T>(schema: T) => ({ 'application/json': { schema } });

/** An error response in OpenAPI: the `{code, detail}` body of DESIGN §4. */
export const errorResponse = (description: string) => ({ description, content: json(errorBody) });

/** What every /v1 route may answer before it runs: 401 and 429. */
export const authErrors = { 401: errorResponse('missing or invalid API key'), 429: errorResponse('rate limit hit') };

/**
 * The error answers of a generation endpoint (PDF or image, synchronous): each status with its
 * description; `overrides` replaces or adds descriptions by status.
 */
export function generationErrors(overrides: Record<number, string> = {}) {
  const descriptions: Record<number, string> = {
    400: 'invalid request, image template, or store_s3 without an S3 integration (S3_INTEGRATION_MISSING)',
    401: 'missing or invalid API key',
    402: 'no credits left',
    403: 'template of another team',
    404: 'unknown template or version',
    422: 'an image URL could not be fetched, or an asset:<id> does not exist (IMAGE_FETCH_FAILED, with url and path); no credit was taken',
    429: 'rate limit hit',
    500: 'rendering failed; the credit was refunded',
    502: 'store_s3: the upload to the bucket failed (S3_UPLOAD_FAILED); the credit was refunded',
    503: 'the file store did not take the file (STORAGE_UNAVAILABLE); the credit was refunded',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(descriptions).map(([status, description]) => [Number(status), errorResponse(description)]));
}
