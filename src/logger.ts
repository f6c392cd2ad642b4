/** Structured logs (pino). Requests are logged without keys, bodies or query strings. */
import { pino, type Logger } from 'pino';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './app.ts';

export type { Logger };

export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'platen' }, redact: ['apiKey', 'api_key', 'secret', 'secretKey', 'secret_access_key', 'secretAccessKey', 'headers["x-api-key"]'] });
}

/** One log line per request: method, path (no query: signed URLs carry signatures), status, ms, team. */
export function requestLog(log: Logger) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const start = performance.now();
    await next();
    log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - start), team: c.get('teamId') }, 'request');
  });
}
