/** Structured logs (pino). Requests are logged without keys, bodies or query strings. */
import { pino, type Logger } from 'pino';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './app.ts';

export type { Logger };

/** How often buffered log lines are written out at the latest, ms. */
const FLUSH_INTERVAL_MS = 200;

/**
 * A logger writing JSON lines to stdout. Lines are buffered and written in chunks of at least
 * 4 KB, or every 200 ms, instead of one write(2) per line (a synchronous write per request cost
 * about 0.17 ms of the main thread's 0.6 ms per render request); pino writes what is left when the
 * process exits. A SIGKILL can lose the last 200 ms of lines.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const options = { level, base: { service: 'platen' }, redact: ['apiKey', 'api_key', 'secret', 'secretKey', 'secret_access_key', 'secretAccessKey', 'headers["x-api-key"]'] };
  if (level === 'silent') return pino(options);
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // the stream was closed at exit
    }
  }, FLUSH_INTERVAL_MS).unref();
  return pino(options, destination);
}

const hundredths = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One log line per request: method, path (no query: signed URLs carry signatures), status, team,
 * `ms` (the whole request, to 0.01 ms) and, for a synchronous generation, `render_ms`: the time
 * spent in the render pool (waiting for a thread, the handoff both ways and the render itself).
 */
export function requestLog(log: Logger) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const start = performance.now();
    await next();
    const renderMs = c.get('renderMs');
    log.info(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: hundredths(performance.now() - start), ...(renderMs === undefined ? {} : { render_ms: hundredths(renderMs) }), team: c.get('teamId') },
      'request',
    );
  });
}
