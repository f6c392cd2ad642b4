/** `x-api-key` authentication (spec §5): sets `teamId` and `keyId`, or answers 401 UNAUTHORIZED. */
import { createMiddleware } from 'hono/factory';
import type { Db } from '../../db/database.ts';
import { ApiError } from '../errors.ts';
import { teamOfKey } from '../services/keys.ts';
import type { AppEnv } from '../app.ts';

export function apiKeyAuth(opts: { db: Db }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header('x-api-key');
    if (!key) throw new ApiError(401, 'UNAUTHORIZED', 'missing x-api-key header');
    const found = key.length <= 200 ? await teamOfKey(opts.db, key) : undefined;
    if (!found) throw new ApiError(401, 'UNAUTHORIZED', 'invalid API key');
    c.set('teamId', found.teamId);
    c.set('keyId', found.keyId);
    await next();
  });
}
