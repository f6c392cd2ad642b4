/** A router whose request validation failures answer 400 VALIDATION_ERROR with field paths (DESIGN §4). */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app.ts';
import { fieldErrors, validationError } from '../errors.ts';

export function newRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(fieldErrors(result.error));
    },
  });
}
