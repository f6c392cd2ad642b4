/**
 * Starting and stopping the service: database, demo seed, render pool, file sweeper, HTTP server.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { openConfiguredDatabase } from '../db/open.ts';
import { createApp, type Services } from './app.ts';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { RenderPool } from './render/pool.ts';
import { seedDemo, type Seeded } from './seed.ts';
import { JobRunner } from './jobs/runner.ts';
import { FileStore } from './services/files.ts';
import { openStore } from './storage/index.ts';
import { refundUnsettledSyncGenerations } from './services/credits.ts';
import { deleteOldJobs } from './services/jobs.ts';
import { S3Storage } from './services/s3.ts';
import { SecretBox } from './services/secrets.ts';
import { WebhookDeliverer } from './webhooks/deliverer.ts';

export interface RunningServer {
  /** http://host:port of the listening socket. */
  url: string;
  port: number;
  services: Services;
  /** What the demo seed created on this start, or null. */
  seeded: Seeded | null;
  close(): Promise<void>;
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
    { memoryMb: config.renderMemoryMb, timeoutMs: config.renderTimeoutMs, recycleMb: config.renderRecycleMb, teamThreads: config.renderTeamThreads, slowMs: config.renderSlowMs, cacheMb: config.engineCacheMb },
    log,
    config.engineLimits,
  );
  // Generated files: the data dir's folder, or the S3 bucket of PLATEN_STORAGE_URL that every node shares.
  const files = new FileStore(db, openStore(config), config, config.secret, { mode: config.storagePublicUrls, origin: config.cdnUrlFromPublic ? undefined : config.cdnUrl });
  const secrets = new SecretBox(config.secret);
  const deliverer = new WebhookDeliverer(db, secrets, log, { retryDelays: config.webhookRetryDelays, allowPrivate: config.webhookAllowPrivate });
  const s3 = new S3Storage(secrets, { allowPrivate: config.s3AllowPrivateEndpoints });
  const runner = new JobRunner({ db, pool, files, s3, log, onResolved: () => deliverer.kick() }, config.jobConcurrency, config.jobMaxAttempts);
  const services: Services = { config, db, pool, files, log, secrets, s3, runner, deliverer };
  const app = createApp(services);

  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
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
  // Jobs and webhook deliveries a previous run left unfinished (jobs it died on too often fail).
  await runner.start();
  deliverer.kick();
  log.info({ port, threads: config.renderThreads, database: db.dialect }, 'platen listening');

  return {
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    port,
    services,
    seeded,
    async close() {
      clearInterval(sweeper);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      deliverer.stop();
      await runner.stop();
      await pool.close();
      files.blobs.close();
      await db.close();
    },
  };
}
