/**
 * Configuration from environment variables (DESIGN §3), validated at start: a bad value stops
 * start-up with a message naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_CACHE_MB, DEFAULT_LIMITS, DEFAULT_MAX_IMAGE_PIXELS, type Limits } from '../engine/index.ts';
import { isAddressOrRange } from './middleware/client-address.ts';
import { defaultMaxConnections } from './connection-limit.ts';
import { DEFAULT_RENDER_YOUNG_MB } from './render/heap.ts';
import { DEFAULT_HOST_LOOKUP_LIMITS, type HostLookupLimits } from './services/host-lookup.ts';
import type { S3StoreOptions } from './storage/s3.ts';

/** Template definitions validated on the HTTP thread at most, bytes of JSON text (PLATEN_CHECK_IN_THREAD_BYTES; longer ones on a render thread). */
export const DEFAULT_CHECK_IN_THREAD_BYTES = 64 * 1024;

/** Objects and arrays one template definition may hold by default (PLATEN_MAX_TEMPLATE_NODES). */
export const DEFAULT_MAX_TEMPLATE_NODES = 20_000;

/** Bytes of templates (drafts and versions) and assets one team may store by default (PLATEN_MAX_TEAM_STORAGE_BYTES): 1 GiB. */
export const DEFAULT_MAX_TEAM_STORAGE_BYTES = 1024 * 1024 * 1024;

/** The validated configuration of one server. */
/** The engine limits the service sets from its environment (the template nesting depth is fixed). */
export type EngineLimits = Omit<Limits, 'maxDepth'>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres:// URL of the PostgreSQL database (cluster mode); undefined: SQLite in dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per process at most. */
  databasePoolSize: number;
  /** PostgreSQL cancels a statement running longer, ms; 0: no limit. */
  databaseStatementTimeoutMs: number;
  /** Waiting longer for a PostgreSQL connection fails, ms; 0: wait. */
  databaseConnectTimeoutMs: number;
  /** Deadline of each dependency check of /healthz and /readyz, ms. */
  healthTimeoutMs: number;
  /** {base_url}, without a trailing slash. */
  publicUrl: string;
  /** {cdn_url}: prefix of every signed file URL, without a trailing slash. */
  cdnUrl: string;
  /**
   * Where generated files are kept: the data dir's `files` folder, or an S3-compatible bucket
   * (PLATEN_STORAGE_URL=s3://bucket/prefix) shared by every node.
   */
  storage: StorageConfig;
  /** Deadline of one call to the S3 file store, ms. */
  storageTimeoutMs: number;
  /**
   * `service`: file URLs are {cdn_url}/<id>/<file>?expires=&signature= served by any node from the
   * store; `presigned` (S3 store only): presigned S3 GET URLs, signed for PLATEN_CDN_URL when it is set.
   */
  storagePublicUrls: 'service' | 'presigned';
  /** publicUrl / cdnUrl were not set and follow the listening port (which PORT=0 picks at start). */
  publicUrlFromPort: boolean;
  cdnUrlFromPublic: boolean;
  /** HMAC key of signed URLs and key material for encrypting stored secrets. */
  secret: string;
  seedDemo: boolean;
  /** The engine's per-render limits (PLATEN_MAX_PAGES, PLATEN_MAX_GLYPHS, ...): pages, characters, boxes, nodes, data depth, image size. */
  engineLimits: EngineLimits;
  /** Largest image output (POST /v1/image/create, PNG previews), width x height in pixels (PLATEN_MAX_IMAGE_OUTPUT_PIXELS). */
  maxImageOutputPixels: number;
  renderThreads: number;
  /** V8 heap limit of one render thread, MiB. */
  renderMemoryMb: number;
  /** V8 young generation of one render thread, MiB. */
  renderYoungMb: number;
  /** Deadline of one render, ms; the thread is stopped past it. */
  renderTimeoutMs: number;
  /** A render thread whose heap is above this many MiB after two renders in a row is replaced. */
  renderRecycleMb: number;
  /** Render threads one team may hold at once. */
  renderTeamThreads: number;
  /** A render running longer than this many ms runs at a lower CPU priority; 0: never. */
  renderSlowMs: number;
  /** Budget of the engine's caches in each render thread, MiB. */
  engineCacheMb: number;
  /** Template definitions longer than this many bytes of JSON are validated on a render thread, not the HTTP thread. */
  checkInThreadBytes: number;
  jobConcurrency: number;
  /** Starts of a job (renders that crashed, or were cut short by the process stopping) before it fails for good. */
  jobMaxAttempts: number;
  /** What this process does (PLATEN_ROLE, `serve --role`): HTTP API, job worker, or both. Only `all` without PLATEN_DATABASE_URL. */
  role: Role;
  /** Cluster mode: how long a worker holds a queued job before the queue hands it to another worker, ms. */
  jobLeaseMs: number;
  /** Cluster mode: how often an idle worker asks the queue for jobs and webhook deliveries, ms. */
  queuePollMs: number;
  /** At SIGTERM / SIGINT: how long running jobs may take to finish before they are handed back to the queue, ms. */
  shutdownTimeoutMs: number;
  /**
   * At SIGTERM / SIGINT: how long the listener stays open while /readyz answers 503 draining (so a
   * load balancer's health checks see it and stop sending), ms; requests that come meanwhile are served.
   */
  shutdownDrainMs: number;
  /** Requests per minute per API key. */
  rateLimit: number;
  /** Template previews (POST /v1/templates/preview) per minute per API key, counted apart from rateLimit. */
  previewRateLimit: number;
  /** Failed authentications per minute per client address before it is refused with 429. */
  authFailLimit: number;
  /** Addresses and CIDR ranges of reverse proxies whose X-Forwarded-For names the client. */
  trustedProxies: string[];
  /** Webhook retry delays in milliseconds (§6.4). */
  webhookRetryDelays: number[];
  webhookAllowPrivate: boolean;
  /** Connections open at once (PLATEN_MAX_CONNECTIONS; default from the open-file limit, connection-limit.ts). */
  maxConnections: number;
  /** Connections open at once from one address other than a trusted proxy (PLATEN_MAX_CONNECTIONS_PER_ADDRESS). */
  maxConnectionsPerAddress: number;
  /** Time for a request to arrive whole, headers and body (PLATEN_REQUEST_TIMEOUT_MS): past it the connection is answered 408 and closed. */
  requestTimeoutMs: number;
  /** Host name lookups of webhooks, images by URL and S3 integrations (PLATEN_DNS_TIMEOUT_MS, PLATEN_DNS_CONCURRENCY, PLATEN_DNS_SERVERS). */
  hostLookup: HostLookupLimits;
  /** Allow S3 integration endpoints on private, loopback or reserved addresses (self-hosted MinIO, tests). */
  s3AllowPrivateEndpoints: boolean;
  /** Images by URL (PLATEN_IMAGE_*): private addresses allowed, body size, deadline, cache budget, extra CAs (PEM), sources per render. */
  imageFetch: { allowPrivate: boolean; maxBytes: number; timeoutMs: number; cacheMb: number; ca: string | undefined; maxSources: number; maxTotalBytes: number; teamConcurrency: number };
  /** Largest uploaded asset, bytes (PLATEN_ASSET_MAX_BYTES). */
  assetMaxBytes: number;
  maxBodyBytes: number;
  /** Objects and arrays in one template definition (PLATEN_MAX_TEMPLATE_NODES): 400 above it, before it is validated. */
  maxTemplateNodes: number;
  /** Bytes of memory the request bodies of one team may hold at once in this process, as weighed by middleware/body-weight.ts (PLATEN_MAX_TEAM_IN_FLIGHT_BYTES). */
  maxTeamInFlightBytes: number;
  /** Bytes of templates (drafts and versions) and assets one team may store (PLATEN_MAX_TEAM_STORAGE_BYTES). */
  maxTeamStorageBytes: number;
  /** Days a finished job row is kept (at least 7, the longest URL lifetime, so files expire first). */
  jobRetentionDays: number;
  /** Extra font folders (PLATEN_FONT_DIRS, colon-separated): scanned, used as fallbacks (CJK). */
  fontDirs: string[];
}

/** The file store: local disk, or an S3 bucket with its connection settings (the deadline is PLATEN_STORAGE_TIMEOUT_MS, kept apart). */
export type StorageConfig = { kind: 'local' } | ({ kind: 's3' } & Omit<S3StoreOptions, 'timeoutMs'>);

/** What a `platen serve` process does: `api` (HTTP only), `worker` (jobs and webhooks only), `all` (both). */
export type Role = 'api' | 'worker' | 'all';
export const ROLES: readonly Role[] = ['api', 'worker', 'all'];

/** Thrown when a variable is invalid; the message names it. */
export class ConfigError extends Error {}

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
/** A whole number written in decimal digits (no hex, exponent or empty value: `PORT=` is not port 0), min..max. */
const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?\d{1,16}$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const url = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

const envSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PLATEN_DATA_DIR: z.string().min(1).default('./data'),
  PLATEN_DATABASE_URL: z
    .string()
    .optional()
    .transform((s) => (s === undefined || s.trim() === '' ? undefined : s.trim()))
    .refine((s) => s === undefined || /^postgres(ql)?:\/\/./.test(s), 'must be a postgres:// (or postgresql://) URL such as postgres://platen@db.internal:5432/platen'),
  PLATEN_DATABASE_POOL_SIZE: int(1, 1000).default(10),
  PLATEN_DATABASE_STATEMENT_TIMEOUT_MS: int(0, 3_600_000).default(30_000),
  PLATEN_DATABASE_CONNECT_TIMEOUT_MS: int(0, 600_000).default(10_000),
  PLATEN_HEALTH_TIMEOUT_MS: int(10, 60_000).default(2000),
  PLATEN_PUBLIC_URL: url.optional(),
  PLATEN_STORAGE_URL: z
    .string()
    .optional()
    .transform((s) => (s === undefined || s.trim() === '' ? undefined : s.trim()))
    .refine((s) => s === undefined || /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(s), 'must be s3://<bucket> or s3://<bucket>/<prefix> (bucket: 3-63 lowercase letters, digits, dots, hyphens)'),
  PLATEN_STORAGE_ENDPOINT: url.optional(),
  PLATEN_STORAGE_REGION: z.string().regex(/^[a-z0-9-]{1,40}$/, 'must be a region name such as us-east-1').default('us-east-1'),
  PLATEN_STORAGE_ACCESS_KEY_ID: z.string().min(1).optional(),
  PLATEN_STORAGE_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  PLATEN_STORAGE_FORCE_PATH_STYLE: bool.optional(),
  PLATEN_STORAGE_PUBLIC_URLS: z.enum(['service', 'presigned']).default('service'),
  PLATEN_STORAGE_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
  PLATEN_CDN_URL: url.optional(),
  PLATEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PLATEN_SEED_DEMO: bool.default(true),
  PLATEN_RENDER_THREADS: int(1, 256).optional(),
  PLATEN_RENDER_MEMORY_MB: int(32, 1024 * 1024).default(512),
  PLATEN_RENDER_YOUNG_MB: int(3, 1024).default(DEFAULT_RENDER_YOUNG_MB),
  PLATEN_RENDER_TIMEOUT_MS: int(100, 24 * 3_600_000).default(30_000),
  PLATEN_RENDER_RECYCLE_MB: int(16, 1024 * 1024).optional(),
  PLATEN_RENDER_TEAM_THREADS: int(1, 256).optional(),
  PLATEN_RENDER_SLOW_MS: int(0, 24 * 3_600_000).default(1000),
  PLATEN_ENGINE_CACHE_MB: int(1, 1024 * 1024).optional(),
  PLATEN_CHECK_IN_THREAD_BYTES: int(0, 1024 * 1024 * 1024).default(DEFAULT_CHECK_IN_THREAD_BYTES),
  PLATEN_JOB_CONCURRENCY: int(1, 10_000).optional(),
  PLATEN_JOB_MAX_ATTEMPTS: int(1, 1000).default(2),
  PLATEN_ROLE: z.enum(['api', 'worker', 'all'], { message: 'must be api, worker or all' }).default('all'),
  PLATEN_JOB_LEASE_MS: int(1000, 23 * 3_600_000).optional(),
  PLATEN_QUEUE_POLL_MS: int(50, 60_000).default(250),
  PLATEN_SHUTDOWN_TIMEOUT_MS: int(0, 24 * 3_600_000).default(30_000),
  PLATEN_SHUTDOWN_DRAIN_MS: int(0, 600_000).default(0),
  PLATEN_RATE_LIMIT: int(1, 1_000_000).default(600),
  PLATEN_PREVIEW_RATE_LIMIT: int(1, 1_000_000).default(300),
  PLATEN_AUTH_FAIL_LIMIT: int(1, 1_000_000).default(20),
  PLATEN_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .superRefine((entries, ctx) => {
      for (const p of entries) if (!isAddressOrRange(p)) ctx.addIssue({ code: 'custom', message: `"${p}" is not an IP address or CIDR range such as 10.0.0.0/8` });
    }),
  PLATEN_WEBHOOK_RETRY_DELAYS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated milliseconds such as 1000,5000,30000')
    .default('1000,5000,30000')
    .transform((s) => s.split(',').map(Number)),
  PLATEN_WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  PLATEN_REQUEST_TIMEOUT_MS: int(1000, 3_600_000).default(60_000),
  PLATEN_MAX_CONNECTIONS: int(1, 10_000_000).optional(),
  PLATEN_MAX_CONNECTIONS_PER_ADDRESS: int(1, 10_000_000).default(256),
  PLATEN_DNS_CONCURRENCY: int(1, 1024).default(DEFAULT_HOST_LOOKUP_LIMITS.concurrency),
  PLATEN_DNS_TIMEOUT_MS: int(100, 600_000).default(DEFAULT_HOST_LOOKUP_LIMITS.timeoutMs),
  PLATEN_DNS_SERVERS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .superRefine((servers, ctx) => {
      for (const server of servers) if (!isDnsServer(server)) ctx.addIssue({ code: 'custom', message: `"${server}" is not a DNS server address such as 1.1.1.1, 127.0.0.1:5353 or [2606:4700::1111]:53` });
    }),
  PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS: bool.default(false),
  PLATEN_IMAGE_ALLOW_PRIVATE: bool.default(false),
  PLATEN_IMAGE_FETCH_MAX_BYTES: int(1024, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
  PLATEN_IMAGE_FETCH_TIMEOUT_MS: int(100, 600_000).default(10_000),
  PLATEN_IMAGE_FETCH_MAX_SOURCES: int(1, 10_000).default(50),
  PLATEN_IMAGE_FETCH_MAX_TOTAL_BYTES: int(1024, 16 * 1024 * 1024 * 1024).default(50 * 1024 * 1024),
  PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY: int(1, 10_000).default(8),
  PLATEN_IMAGE_CACHE_MB: int(0, 1024 * 1024).default(64),
  PLATEN_IMAGE_FETCH_CA_FILE: z
    .string()
    .optional()
    .transform((f, ctx) => {
      if (f === undefined || f.trim() === '') return undefined;
      try {
        const pem = readFileSync(f, 'utf8');
        if (!pem.includes('-----BEGIN CERTIFICATE-----')) ctx.addIssue({ code: 'custom', message: `"${f}" holds no PEM certificate` });
        return pem;
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `"${f}" cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` });
        return undefined;
      }
    }),
  PLATEN_ASSET_MAX_BYTES: int(1024, 1024 * 1024 * 1024).default(5 * 1024 * 1024),
  PLATEN_MAX_BODY_BYTES: int(1024, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
  PLATEN_MAX_TEMPLATE_NODES: int(100, 100_000_000).default(DEFAULT_MAX_TEMPLATE_NODES),
  PLATEN_MAX_TEAM_IN_FLIGHT_BYTES: int(1024, 1024 * 1024 * 1024 * 1024).default(512 * 1024 * 1024),
  PLATEN_MAX_TEAM_STORAGE_BYTES: int(1024, 1024 ** 5).default(DEFAULT_MAX_TEAM_STORAGE_BYTES),
  PLATEN_MAX_IMAGE_OUTPUT_PIXELS: int(10_000, 1_000_000_000).default(DEFAULT_MAX_IMAGE_PIXELS),
  PLATEN_MAX_PAGES: int(1, 1_000_000).default(DEFAULT_LIMITS.maxPages),
  PLATEN_MAX_GLYPHS: int(1000, 1_000_000_000).default(DEFAULT_LIMITS.maxGlyphs),
  PLATEN_MAX_BOXES: int(1000, 1_000_000_000).default(DEFAULT_LIMITS.maxBoxes),
  PLATEN_MAX_NODES: int(100, 1_000_000_000).default(DEFAULT_LIMITS.maxNodes),
  PLATEN_MAX_DATA_SCAN: int(1000, 1_000_000_000_000).default(DEFAULT_LIMITS.maxDataScan),
  PLATEN_MAX_DATA_DEPTH: int(2, 10_000).default(DEFAULT_LIMITS.maxDataDepth),
  PLATEN_MAX_IMAGE_BYTES: int(1024, 1024 * 1024 * 1024).default(DEFAULT_LIMITS.maxImageBytes),
  PLATEN_MAX_IMAGE_PIXELS: int(1024, 1_000_000_000).default(DEFAULT_LIMITS.maxImagePixels),
  PLATEN_MAX_SVG_ELEMENTS: int(10, 10_000_000).default(DEFAULT_LIMITS.maxSvgElements),
  PLATEN_JOB_RETENTION_DAYS: int(7, 36500).default(30),
  PLATEN_FONT_DIRS: z
    .string()
    .default('')
    .transform((s) => s.split(':').filter(Boolean).map((d) => resolve(d)))
    .superRefine((dirs, ctx) => {
      for (const d of dirs) {
        let problem: string | null;
        try {
          const stat = statSync(d, { throwIfNoEntry: false });
          problem = !stat ? `folder "${d}" does not exist` : stat.isDirectory() ? null : `"${d}" is not a folder`;
        } catch (e) {
          problem = `folder "${d}" cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
        }
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
    }),
});

/**
 * Read and validate the configuration.
 * @throws ConfigError naming every bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.PLATEN_DATA_DIR);
  const publicUrl = e.PLATEN_PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  const renderThreads = e.PLATEN_RENDER_THREADS ?? availableParallelism();
  const renderRecycleMb = e.PLATEN_RENDER_RECYCLE_MB ?? Math.floor(e.PLATEN_RENDER_MEMORY_MB / 2);
  if (renderRecycleMb > e.PLATEN_RENDER_MEMORY_MB) {
    throw new ConfigError(`invalid configuration:\n  PLATEN_RENDER_RECYCLE_MB: must not be above PLATEN_RENDER_MEMORY_MB (${e.PLATEN_RENDER_MEMORY_MB})`);
  }
  // Full caches alone would keep the heap above the recycling mark: every thread replaced after every render.
  const engineCacheMb = e.PLATEN_ENGINE_CACHE_MB ?? Math.max(1, Math.min(DEFAULT_CACHE_MB, Math.floor(renderRecycleMb / 4)));
  if (engineCacheMb >= renderRecycleMb) {
    throw new ConfigError(`invalid configuration:\n  PLATEN_ENGINE_CACHE_MB: must be below PLATEN_RENDER_RECYCLE_MB (${renderRecycleMb})`);
  }
  const storage = storageConfig(e);
  const cdnUrl = e.PLATEN_CDN_URL ?? `${publicUrl}/cdn`;
  if (e.PLATEN_STORAGE_PUBLIC_URLS === 'presigned' && e.PLATEN_CDN_URL !== undefined && new URL(e.PLATEN_CDN_URL).pathname !== '/') {
    throw new ConfigError(`invalid configuration:\n  PLATEN_CDN_URL: with PLATEN_STORAGE_PUBLIC_URLS=presigned it must be the origin where clients reach the bucket (such as https://files.example.com), without a path`);
  }
  if (e.PLATEN_ROLE !== 'all' && e.PLATEN_DATABASE_URL === undefined) {
    throw new ConfigError(
      `invalid configuration:\n  PLATEN_ROLE: role "${e.PLATEN_ROLE}" needs cluster mode (PLATEN_DATABASE_URL=postgres://...); with the SQLite file one process serves the API and runs the jobs: use role "all" (the default)`,
    );
  }
  // pg-boss holds a job for less than 24 hours.
  const jobLeaseMs = e.PLATEN_JOB_LEASE_MS ?? Math.min(2 * e.PLATEN_RENDER_TIMEOUT_MS + 30_000, 23 * 3_600_000);
  if (e.PLATEN_DATABASE_URL !== undefined && jobLeaseMs <= e.PLATEN_RENDER_TIMEOUT_MS) {
    throw new ConfigError(`invalid configuration:\n  PLATEN_JOB_LEASE_MS: must be above PLATEN_RENDER_TIMEOUT_MS (${e.PLATEN_RENDER_TIMEOUT_MS}): a job's render must fit in its lease`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.PLATEN_DATABASE_URL,
    databasePoolSize: e.PLATEN_DATABASE_POOL_SIZE,
    databaseStatementTimeoutMs: e.PLATEN_DATABASE_STATEMENT_TIMEOUT_MS,
    databaseConnectTimeoutMs: e.PLATEN_DATABASE_CONNECT_TIMEOUT_MS,
    healthTimeoutMs: e.PLATEN_HEALTH_TIMEOUT_MS,
    publicUrl,
    cdnUrl,
    storage,
    storageTimeoutMs: e.PLATEN_STORAGE_TIMEOUT_MS,
    storagePublicUrls: e.PLATEN_STORAGE_PUBLIC_URLS,
    publicUrlFromPort: e.PLATEN_PUBLIC_URL === undefined,
    cdnUrlFromPublic: e.PLATEN_CDN_URL === undefined,
    secret: e.PLATEN_SECRET ?? generatedSecret(dataDir),
    seedDemo: e.PLATEN_SEED_DEMO,
    renderThreads,
    renderMemoryMb: e.PLATEN_RENDER_MEMORY_MB,
    renderYoungMb: e.PLATEN_RENDER_YOUNG_MB,
    renderTimeoutMs: e.PLATEN_RENDER_TIMEOUT_MS,
    renderRecycleMb,
    renderTeamThreads: e.PLATEN_RENDER_TEAM_THREADS ?? Math.max(1, renderThreads - 1),
    renderSlowMs: e.PLATEN_RENDER_SLOW_MS,
    engineCacheMb,
    checkInThreadBytes: e.PLATEN_CHECK_IN_THREAD_BYTES,
    jobConcurrency: e.PLATEN_JOB_CONCURRENCY ?? 2 * renderThreads,
    jobMaxAttempts: e.PLATEN_JOB_MAX_ATTEMPTS,
    role: e.PLATEN_ROLE,
    jobLeaseMs,
    queuePollMs: e.PLATEN_QUEUE_POLL_MS,
    shutdownTimeoutMs: e.PLATEN_SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.PLATEN_SHUTDOWN_DRAIN_MS,
    rateLimit: e.PLATEN_RATE_LIMIT,
    previewRateLimit: e.PLATEN_PREVIEW_RATE_LIMIT,
    authFailLimit: e.PLATEN_AUTH_FAIL_LIMIT,
    trustedProxies: e.PLATEN_TRUSTED_PROXIES,
    webhookRetryDelays: e.PLATEN_WEBHOOK_RETRY_DELAYS,
    webhookAllowPrivate: e.PLATEN_WEBHOOK_ALLOW_PRIVATE,
    requestTimeoutMs: e.PLATEN_REQUEST_TIMEOUT_MS,
    maxConnections: e.PLATEN_MAX_CONNECTIONS ?? defaultMaxConnections(),
    maxConnectionsPerAddress: e.PLATEN_MAX_CONNECTIONS_PER_ADDRESS,
    hostLookup: { concurrency: e.PLATEN_DNS_CONCURRENCY, timeoutMs: e.PLATEN_DNS_TIMEOUT_MS, servers: e.PLATEN_DNS_SERVERS },
    s3AllowPrivateEndpoints: e.PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS,
    imageFetch: {
      allowPrivate: e.PLATEN_IMAGE_ALLOW_PRIVATE,
      maxBytes: e.PLATEN_IMAGE_FETCH_MAX_BYTES,
      timeoutMs: e.PLATEN_IMAGE_FETCH_TIMEOUT_MS,
      cacheMb: e.PLATEN_IMAGE_CACHE_MB,
      ca: e.PLATEN_IMAGE_FETCH_CA_FILE,
      maxSources: e.PLATEN_IMAGE_FETCH_MAX_SOURCES,
      maxTotalBytes: e.PLATEN_IMAGE_FETCH_MAX_TOTAL_BYTES,
      teamConcurrency: e.PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY,
    },
    assetMaxBytes: e.PLATEN_ASSET_MAX_BYTES,
    maxBodyBytes: e.PLATEN_MAX_BODY_BYTES,
    maxTemplateNodes: e.PLATEN_MAX_TEMPLATE_NODES,
    maxTeamInFlightBytes: e.PLATEN_MAX_TEAM_IN_FLIGHT_BYTES,
    maxTeamStorageBytes: e.PLATEN_MAX_TEAM_STORAGE_BYTES,
    maxImageOutputPixels: e.PLATEN_MAX_IMAGE_OUTPUT_PIXELS,
    engineLimits: {
      maxPages: e.PLATEN_MAX_PAGES,
      maxGlyphs: e.PLATEN_MAX_GLYPHS,
      maxBoxes: e.PLATEN_MAX_BOXES,
      maxNodes: e.PLATEN_MAX_NODES,
      maxDataDepth: e.PLATEN_MAX_DATA_DEPTH,
      maxImageBytes: e.PLATEN_MAX_IMAGE_BYTES,
      maxImagePixels: e.PLATEN_MAX_IMAGE_PIXELS,
      maxSvgElements: e.PLATEN_MAX_SVG_ELEMENTS,
      maxDataScan: e.PLATEN_MAX_DATA_SCAN,
    },
    jobRetentionDays: e.PLATEN_JOB_RETENTION_DAYS,
    fontDirs: e.PLATEN_FONT_DIRS,
  };
}

/** The file store of PLATEN_STORAGE_*. @throws ConfigError when the S3 store lacks its keys, or presigned URLs lack an S3 store. */
function storageConfig(e: z.infer<typeof envSchema>): StorageConfig {
  const problems: string[] = [];
  if (e.PLATEN_STORAGE_URL === undefined) {
    if (e.PLATEN_STORAGE_PUBLIC_URLS === 'presigned') problems.push('PLATEN_STORAGE_PUBLIC_URLS: presigned needs an S3 file store (PLATEN_STORAGE_URL=s3://bucket/prefix)');
    if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
    return { kind: 'local' };
  }
  if (e.PLATEN_STORAGE_ACCESS_KEY_ID === undefined) problems.push('PLATEN_STORAGE_ACCESS_KEY_ID: required with PLATEN_STORAGE_URL');
  if (e.PLATEN_STORAGE_SECRET_ACCESS_KEY === undefined) problems.push('PLATEN_STORAGE_SECRET_ACCESS_KEY: required with PLATEN_STORAGE_URL');
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  const rest = e.PLATEN_STORAGE_URL.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = slash < 0 ? '' : rest.slice(slash + 1).split('/').filter(Boolean).join('/');
  return {
    kind: 's3',
    bucket,
    prefix,
    endpoint: e.PLATEN_STORAGE_ENDPOINT,
    region: e.PLATEN_STORAGE_REGION,
    accessKeyId: e.PLATEN_STORAGE_ACCESS_KEY_ID as string,
    secretAccessKey: e.PLATEN_STORAGE_SECRET_ACCESS_KEY as string,
    forcePathStyle: e.PLATEN_STORAGE_FORCE_PATH_STYLE ?? e.PLATEN_STORAGE_ENDPOINT !== undefined,
  };
}

/** An IP address, with a port as `1.2.3.4:53` or `[::1]:53`: what dns.Resolver#setServers takes. */
function isDnsServer(text: string): boolean {
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text) ?? /^([^:]+)(?::(\d{1,5}))?$/.exec(text) ?? [text, text, undefined];
  const port = m[2] === undefined ? 53 : Number(m[2]);
  return isIP(m[1] ?? '') !== 0 && port >= 1 && port <= 65535;
}

/** The secret generated once into the data dir (mode 0600) when PLATEN_SECRET is not set. */
function generatedSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}
