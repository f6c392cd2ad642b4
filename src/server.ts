/**
 * Starting and stopping the service: database, demo seed, render pool, job queue, webhook
 * deliveries, file sweeper, HTTP server; by role (PLATEN_ROLE): `all` does everything, `api`
 * serves HTTP without running jobs, `worker` runs jobs and webhook deliveries and serves only
 * /healthz and /readyz. Stopping is graceful: /readyz fails first, the listener closes, running
 * jobs get PLATEN_SHUTDOWN_TIMEOUT_MS to finish and are handed back to the queue after that.
 */
import type { AddressInfo, Server } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { openConfiguredDatabase } from '../db/open.ts';
import { createApp, type Lifecycle, type Services } from './app.ts';
import { ClusterQueue } from './jobs/boss.ts';
import type { PostgresDb } from '../db/postgres.ts';
import { newRouter } from './routes/router.ts';
import { healthRoutes } from './routes/system.ts';
import { settlesWithin, type JobQueue } from './jobs/runner.ts';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { RenderPool } from './render/pool.ts';
import { seedDemo, type Seeded } from './seed.ts';
import { JobRunner } from './jobs/runner.ts';
import { FileStore } from './services/files.ts';
import { openFileStore } from './storage/index.ts';
import { refundUnsettledSyncGenerations } from './services/credits.ts';
import { deleteOldJobs } from './services/jobs.ts';
import { S3Storage } from './services/s3.ts';
import { SecretBox } from './services/secrets.ts';
import { openAssetStore } from './services/assets.ts';
import { ImageFetcher } from './services/image-fetch.ts';
import { hostLookup } from './services/host-lookup.ts';
import { ImageResolver } from './services/image-sources.ts';
import { WebhookDeliverer } from './webhooks/deliverer.ts';
import { answerClientErrors } from './client-errors.ts';
import { limitConnections } from './connection-limit.ts';
import { trustedPeer } from './middleware/client-address.ts';

export interface RunningServer {
  /** http://host:port of the listening socket. */
  url: string;
  port: number;
  services: Services;
  /** What the demo seed created on this start, or null. */
  seeded: Seeded | null;
  /**
   * Stop gracefully: /readyz answers 503 at once, the listener closes (requests under way finish),
   * no more jobs are taken, running ones get `timeoutMs` (default PLATEN_SHUTDOWN_TIMEOUT_MS) to
   * finish and are handed back to the queue after that; then the render pool and the database close.
   */
  close(timeoutMs?: number): Promise<void>;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * How long a pending synchronous debit may stand before any process of a shared (PostgreSQL)
 * database refunds it as abandoned, ms past the render deadline: room for the upload of the file.
 */
const SYNC_DEBIT_GRACE_MS = 5 * 60_000;

/**
 * Start the service on `config`: open (and migrate) the database, seed, start the render pool,
 * the job runner, the webhook deliverer and the sweeper, and listen.
 * @throws when the database cannot be opened (PostgreSQL unreachable, a migration failed) or the port is taken.
 */
export async function startServer(config: Config, log: Logger = createLogger()): Promise<RunningServer> {
  const db = await openConfiguredDatabase(config, (err) => log.warn({ err }, 'idle database connection failed'));
  const seeded = config.seedDemo ? await seedDemo(db) : null;
  // Debits of synchronous generations a process died in the middle of: on SQLite all of them (this
  // is the only process); on PostgreSQL only those older than any render can be, and again at each sweep.
  const staleSyncDebits = () => (db.dialect === 'sqlite' ? undefined : new Date(Date.now() - config.renderTimeoutMs - SYNC_DEBIT_GRACE_MS));
  const refunded = await refundUnsettledSyncGenerations(db, staleSyncDebits());
  if (refunded > 0) log.warn({ refunded }, 'refunded synchronous generations a previous run left unfinished');
  const pool = new RenderPool(
    config.renderThreads,
    config.fontDirs,
    { memoryMb: config.renderMemoryMb, youngMb: config.renderYoungMb, timeoutMs: config.renderTimeoutMs, recycleMb: config.renderRecycleMb, teamThreads: config.renderTeamThreads, slowMs: config.renderSlowMs, cacheMb: config.engineCacheMb, checkInThreadBytes: config.checkInThreadBytes },
    log,
    config.engineLimits,
  );
  // Generated files: the data dir's folder, or the S3 bucket of PLATEN_STORAGE_URL that every node shares.
  const files = new FileStore(db, openFileStore(config), config, config.secret, { mode: config.storagePublicUrls, origin: config.cdnUrlFromPublic ? undefined : config.cdnUrl });
  if (db.dialect === 'postgres' && files.blobs.kind === 'local') {
    log.warn({ dir: files.blobs.location }, 'generated files are kept on this machine only: with more than one process on this database, set PLATEN_STORAGE_URL so that every node serves every file URL');
  }
  const secrets = new SecretBox(config.secret);
  hostLookup.configure(config.hostLookup);
  const deliverer = new WebhookDeliverer(db, secrets, log, { retryDelays: config.webhookRetryDelays, allowPrivate: config.webhookAllowPrivate });
  const s3 = new S3Storage(secrets, { allowPrivate: config.s3AllowPrivateEndpoints });
  // Images by URL and uploaded assets, fetched before each render that uses them.
  const assets = openAssetStore(config);
  const fetcher = new ImageFetcher({ ...config.imageFetch, cacheBytes: config.imageFetch.cacheMb * 1024 * 1024 });
  const images = new ImageResolver(db, fetcher, assets, { maxSources: config.imageFetch.maxSources, maxTotalBytes: config.imageFetch.maxTotalBytes, teamConcurrency: config.imageFetch.teamConcurrency, teamWaitMs: config.imageFetch.timeoutMs, bindLimits: { maxNodes: config.engineLimits.maxNodes, maxDataScan: config.engineLimits.maxDataScan }, pool });
  // The job queue: in process over the SQLite file, or pg-boss shared by the cluster's processes.
  let runner: JobQueue;
  if (db.dialect === 'postgres') {
    const cluster = new ClusterQueue(
      { db: db as PostgresDb, pool, files, s3, log, deliverer, onResolved: () => {}, secrets, images },
      { consume: config.role !== 'api', concurrency: config.jobConcurrency, maxAttempts: config.jobMaxAttempts, leaseMs: config.jobLeaseMs, pollMs: config.queuePollMs },
    );
    await cluster.open();
    runner = cluster;
  } else {
    runner = new JobRunner({ db, pool, files, s3, log, onResolved: () => deliverer.kick(), secrets, images }, config.jobConcurrency, config.jobMaxAttempts);
  }
  const lifecycle: Lifecycle = { draining: false };
  const services: Services = { config, db, pool, files, log, secrets, s3, runner, deliverer, lifecycle, assets, images };
  // A worker serves its health checks only: no API, no files.
  const app = config.role === 'worker' ? workerApp(services) : createApp(services);

  const server: ServerType = await new Promise((resolve) => {
    // A request must arrive whole within PLATEN_REQUEST_TIMEOUT_MS (its headers within a third of
    // it, at most 20 s): Node's own 300 s let a client that trickles bytes hold a connection for minutes.
    const serverOptions = {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(20_000, Math.ceil(config.requestTimeoutMs / 3)),
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.ceil(config.requestTimeoutMs / 10))),
    };
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host, serverOptions }, () => resolve(s));
    answerClientErrors(s as Server, config.requestTimeoutMs);
    // Clients that open connections and never finish a request cannot use up the file descriptors.
    limitConnections(s as Server, { max: config.maxConnections, perAddress: config.maxConnectionsPerAddress, exempt: trustedPeer(config.trustedProxies), log });
  });
  const port = (server.address() as AddressInfo).port;
  if (config.port === 0 && config.publicUrlFromPort) {
    config.publicUrl = `http://localhost:${port}`;
    if (config.cdnUrlFromPublic) config.cdnUrl = `${config.publicUrl}/cdn`;
  }
  const sweep = async () => {
    try {
      const n = await files.sweep();
      const old = await deleteOldJobs(db, new Date(Date.now() - config.jobRetentionDays * 86_400_000));
      if (n + old > 0) log.info({ files: n, jobs: old }, 'expired files and old jobs deleted');
      if (db.dialect !== 'sqlite') {
        const abandoned = await refundUnsettledSyncGenerations(db, staleSyncDebits());
        if (abandoned > 0) log.warn({ refunded: abandoned }, 'refunded synchronous generations whose process stopped mid-render');
      }
    } catch (err) {
      log.error({ err }, 'sweep failed');
    }
  };
  const sweeper = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
  sweeper.unref();
  // Jobs and webhook deliveries a previous run left unfinished (jobs it died on too often fail);
  // in cluster mode the queue keeps them, and workers start taking jobs.
  await runner.start();
  if (db.dialect === 'sqlite') deliverer.kick();
  log.info({ port, threads: config.renderThreads, database: db.dialect, role: config.role }, 'platen listening');

  let closing: Promise<void> | null = null;
  const close = async (timeoutMs: number) => {
    lifecycle.draining = true;
    clearInterval(sweeper);
    // /readyz answers 503 draining while the listener stays open, for a load balancer to notice.
    if (config.shutdownDrainMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(config.shutdownDrainMs, timeoutMs)));
    // No new connections; requests under way finish (idle keep-alive connections are closed).
    const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    deliverer.stop();
    await runner.stop(timeoutMs);
    if (!(await settlesWithin(httpClosed, timeoutMs))) {
      const s = server as unknown as { closeAllConnections?: () => void };
      s.closeAllConnections?.();
      await httpClosed;
    }
    await pool.close();
    files.blobs.close();
    await db.close();
    log.info({ role: config.role }, 'platen stopped');
  };

  return {
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    port,
    services,
    seeded,
    close(timeoutMs = config.shutdownTimeoutMs) {
      closing ??= close(timeoutMs);
      return closing;
    },
  };
}

/** The HTTP app of a worker: GET /healthz and GET /readyz, nothing else. */
function workerApp(s: Services) {
  const app = newRouter();
  healthRoutes(app, s);
  app.notFound((c) => c.json({ code: 'NOT_FOUND', detail: 'a worker serves /healthz and /readyz only; send API requests to an API node' }, 404));
  return app;
}
