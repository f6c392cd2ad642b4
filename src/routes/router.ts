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
