/** A router whose request validation failures answer 400 VALIDATION_ERROR with field paths (DESIGN §4). */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app.ts';
import { fieldErrors, validationError } from '../errors.ts';
import { errorBody } from '../schemas/common.ts';

export function newRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(fieldErrors(result.error));
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
