/**
 * The HTTP application (Hono): middleware and routes, over services handed in. No listening, no
 * process state: server.ts owns those, tests build apps on temporary data dirs.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { Db } from '../db/database.ts';
import type { Config } from './config.ts';
import { errorHandler, notFound } from './errors.ts';
import { requestLog, type Logger } from './logger.ts';
import { apiKeyAuth } from './middleware/api-key-auth.ts';
import { authFailureLimit, authFailureLimiterFor } from './middleware/auth-failure-limit.ts';
import { limitCounter, logLimitFailures } from './middleware/limit-store.ts';
import { clientAddressResolver } from './middleware/client-address.ts';
import { bodyDecoding } from './middleware/body-encoding.ts';
import { bodyText } from './middleware/body-text.ts';
import { bodyLimit, streamedBodyLimit } from './middleware/body-limit.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { TeamInFlight } from './middleware/team-in-flight.ts';
import type { RenderPool } from './render/pool.ts';
import { accountRoutes } from './routes/account.ts';
import { ASSET_UPLOAD_FRAMING_BYTES, assetRoutes } from './routes/assets.ts';
import type { ImageResolver } from './services/image-sources.ts';
import type { BlobStore } from './storage/index.ts';
import { cdnRoutes } from './routes/cdn.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { jobRoutes } from './routes/jobs.ts';
import { imageRoutes } from './routes/image.ts';
import { pdfRoutes } from './routes/pdf.ts';
import { previewRoutes } from './routes/preview.ts';
import { newRouter } from './routes/router.ts';
import { schemaRoutes } from './routes/schemas.ts';
import { studioRoutes } from './routes/studio.ts';
import { systemRoutes } from './routes/system.ts';
import { templateRoutes } from './routes/templates.ts';
import type { JobQueue } from './jobs/runner.ts';
import type { FileStore } from './services/files.ts';
import type { S3Storage } from './services/s3.ts';
import type { SecretBox } from './services/secrets.ts';
import type { WebhookDeliverer } from './webhooks/deliverer.ts';

/** Variables the middleware sets for handlers. */
export interface AppEnv {
  Variables: {
    teamId: string;
    keyId: string;
    /** Milliseconds a synchronous generation spent in the render pool, for the request log. */
    renderMs?: number;
  };
}

/** The process's state as the health checks see it. */
export interface Lifecycle {
  /** True from the start of a graceful shutdown: /readyz answers 503 so load balancers drain the node. */
  draining: boolean;
}

/** Everything routes need; built by server.ts. */
export interface Services {
  config: Config;
  db: Db;
  pool: RenderPool;
  files: FileStore;
  log: Logger;
  secrets: SecretBox;
  s3: S3Storage;
  /** The async job queue: in process (SQLite) or pg-boss (cluster mode). */
  runner: JobQueue;
  deliverer: WebhookDeliverer;
  /** Where uploaded assets' bytes are (services/assets.ts). */
  assets: BlobStore;
  /** Fetches URL and asset images before renders (services/image-sources.ts). */
  images: ImageResolver;
  /** Shutdown state (absent: never draining). */
  lifecycle?: Lifecycle;
}

export function createApp(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.onError(
    errorHandler(
      (err) => s.log.error({ err }, 'unhandled error'),
      (renderError) => s.log.warn({ render_error: renderError }, 'render failed'),
    ),
  );
  app.notFound(notFound);
  app.use('*', requestLog(s.log));
  // An asset upload has a limit of its own (PLATEN_ASSET_MAX_BYTES and the multipart framing), refused before it is read.
  const uploadLimit = { maxBytes: s.config.assetMaxBytes + ASSET_UPLOAD_FRAMING_BYTES, what: '(PLATEN_ASSET_MAX_BYTES and the multipart framing)' };
  const bodyLimits = { maxBytes: s.config.maxBodyBytes, routeLimit: (method: string, path: string) => (method === 'POST' && /^\/v1\/assets\/?$/.test(path) ? uploadLimit : undefined) };
  // A chunked body of an API route is read only once the caller is known (streamedBodyLimit below).
  app.use('*', bodyLimit({ ...bodyLimits, readLater: (path) => path.startsWith('/v1/') }));
  app.route('/', studioRoutes());
  systemRoutes(app, s);
  app.route('/cdn', cdnRoutes(s));
  app.route('/', schemaRoutes());

  const v1 = newRouter();
  // Limits counted in PostgreSQL in cluster mode (one count per key for every process), in memory on SQLite.
  const limitFailed = logLimitFailures(s.log);
  const authFailures = authFailureLimit(authFailureLimiterFor(s.db, s.config.authFailLimit, limitFailed), clientAddressResolver(s.config.trustedProxies));
  // Before the other /v1 routes: previews have their own rate limit instead of the API's.
  // Bodies of one team's requests in flight (parsed, waiting for a render thread): bounded per team.
  const teamInFlight = new TeamInFlight(s.config.maxTeamInFlightBytes, s.config.maxBodyBytes);
  const inFlight = teamInFlight.middleware();
  const weigh = teamInFlight.weigh();
  // Then a chunked body is read within the limit, and a gzip or deflate body inflated (within the
  // same limits), for a caller let through; then checked to be UTF-8 (a JSON body); then weighed
  // (what it holds parsed, in the team's budget).
  const streamed = streamedBodyLimit(bodyLimits);
  const decoding = bodyDecoding(bodyLimits);
  const utf8 = bodyText();
  const bodyIn: MiddlewareHandler<AppEnv> = (c, next) => inFlight(c, async () => void (await streamed(c, async () => void (await decoding(c, async () => void (await utf8(c, async () => void (await weigh(c, next)))))))));
  app.route('/v1/templates', previewRoutes(s, authFailures, bodyIn));
  v1.use('*', authFailures, apiKeyAuth({ db: s.db }), rateLimit({ limit: s.config.rateLimit, counter: limitCounter(s.db, 60_000, limitFailed), name: 'api' }), bodyIn);
  v1.route('/pdf', pdfRoutes(s));
  v1.route('/pdf', jobRoutes(s));
  v1.route('/image', imageRoutes(s));
  v1.route('/templates', templateRoutes(s));
  v1.route('/account', accountRoutes(s));
  v1.route('/integrations', integrationRoutes(s));
  v1.route('/assets', assetRoutes(s));
  app.route('/v1', v1);
  return app;
}
