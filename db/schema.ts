/**
 * The database schema (drizzle, SQLite). Timestamps are ISO 8601 UTC strings; money-like counts
 * (credits) are integers. Every row that belongs to a team carries team_id, and every query of the
 * service filters by it.
 *
 * db/schema.pg.ts declares the same tables and columns for PostgreSQL (cluster mode); the service
 * code is typed against that one and runs on both (db/database.ts). test/db/schema-parity.test.ts
 * keeps the two in step.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const teams = sqliteTable(
  'teams',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    credits: integer('credits').notNull().default(0),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('credits_not_negative', sql`${t.credits} >= 0`)],
);

/** API keys are stored as SHA-256 hashes; `prefix` is what a person sees to tell keys apart. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash').on(t.keyHash), index('api_keys_team').on(t.teamId)],
);

export const templates = sqliteTable(
  'templates',
  {
    /** 12-character short id (§2.1). */
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['pdf', 'image'] }).notNull(),
    /** The draft definition, JSON. */
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /**
     * Creation order (lists break ties of created_at with it): the row's rowid, set by the
     * templates_seq trigger after the insert (migration 0004).
     */
    seq: integer('seq').notNull().default(0),
  },
  (t) => [index('templates_team').on(t.teamId, t.createdAt)],
);

/** Snapshots of a template's draft: numbered 1, 2, ... per template, optionally tagged. */
export const templateVersions = sqliteTable(
  'template_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    templateId: text('template_id').notNull().references(() => templates.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    tag: text('tag'),
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('template_versions_number').on(t.templateId, t.number), uniqueIndex('template_versions_tag').on(t.templateId, t.tag)],
);

/**
 * The credit ledger: one row per debit, refund or grant, with the balance after it. A job has at
 * most one debit and one refund (unique job_id, reason), and so has a synchronous request
 * (unique request_id, reason): a refund applied twice fails on the constraint.
 */
export const creditTransactions = sqliteTable(
  'credit_transactions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    delta: integer('delta').notNull(),
    reason: text('reason', { enum: ['generation', 'refund', 'grant'] }).notNull(),
    jobId: text('job_id'),
    /** The synchronous generation (a UUID per request) a debit or refund belongs to. */
    requestId: text('request_id'),
    balanceAfter: integer('balance_after').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('credit_transactions_team').on(t.teamId, t.id),
    uniqueIndex('credit_transactions_job_reason').on(t.jobId, t.reason),
    uniqueIndex('credit_transactions_request_reason').on(t.requestId, t.reason),
  ],
);

/**
 * Debits of synchronous generations whose request has not settled yet: written in the debit's
 * transaction, deleted when the request ends (with the refund, when it failed). A row left after
 * the process died is refunded at the next start, in the transaction that deletes it.
 */
export const pendingSyncDebits = sqliteTable('pending_sync_debits', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
  /** The ledger row of the debit (credit_transactions.id). */
  transactionId: integer('transaction_id').notNull(),
  createdAt: text('created_at').notNull(),
});

/** PDFs kept for signed URLs; the sweeper deletes each one after `expires_at`. */
export const generatedFiles = sqliteTable(
  'generated_files',
  {
    /** Opaque id: the first segment of the file's URL path. */
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    bytes: integer('bytes').notNull(),
    createdAt: text('created_at').notNull(),
    /** Unix seconds: the latest expiry of any URL handed out for the file. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('generated_files_expiry').on(t.expiresAt)],
);

/**
 * Queued generations (spec §2.5, §3). The job keeps everything needed to run it again after a
 * crash: the definition chosen at request time and the data. The webhook secret is stored
 * encrypted (AES-256-GCM, src/services/secrets.ts).
 */
export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'processing', 'completed', 'failed'] }).notNull(),
    templateId: text('template_id').notNull(),
    /** The definition resolved at request time (draft, version or tag), JSON. */
    definition: text('definition').notNull(),
    /** The request's data, JSON. */
    data: text('data').notNull(),
    exportType: text('export_type').notNull().default('url'),
    filename: text('filename').notNull(),
    expiration: integer('expiration').notNull(),
    storeS3: integer('store_s3', { mode: 'boolean' }).notNull().default(false),
    s3Filepath: text('s3_filepath'),
    s3Bucket: text('s3_bucket'),
    pdfVariant: text('pdf_variant'),
    webhookUrl: text('webhook_url'),
    webhookSecretEnc: text('webhook_secret_enc'),
    /** Output protection (password, owner_password, permissions) as sealed JSON (secrets.ts), never in clear; null without. */
    protectionEnc: text('protection_enc'),
    /** What the job makes: a PDF, or one page as a PNG or JPEG image (create-async `output`). */
    output: text('output', { enum: ['pdf', 'png', 'jpeg'] }).notNull().default('pdf'),
    /** Image jobs: {"scale", "page"} as JSON; null for PDF jobs. */
    imageOptions: text('image_options'),
    /** How many times a worker has started this job (a crash mid-render starts it again). */
    attempts: integer('attempts').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    completedAt: text('completed_at'),
    resultUrl: text('result_url'),
    resultFilename: text('result_filename'),
    resultExpiresAt: text('result_expires_at'),
    resultS3Bucket: text('result_s3_bucket'),
    resultS3Key: text('result_s3_key'),
    errorMessage: text('error_message'),
    errorCode: text('error_code'),
    /** The render's warnings, JSON: [{code, message, path}] (null before the job ends). */
    warnings: text('warnings'),
    /** The request's Idempotency-Key header, unique within the team; null without one. */
    idempotencyKey: text('idempotency_key'),
    /** HMAC-SHA256 (hex, under PLATEN_SECRET) of the request body that came with `idempotencyKey`: a retry must send the same. */
    requestHash: text('request_hash'),
  },
  (t) => [
    index('jobs_team_created').on(t.teamId, t.createdAt),
    index('jobs_status').on(t.status, t.createdAt),
    uniqueIndex('jobs_team_idempotency_key').on(t.teamId, t.idempotencyKey),
  ],
);

/**
 * Webhook notifications (spec §6): one row per resolved job with a webhook_url. The body is
 * stored as sent, so every attempt carries the same bytes; retries survive a restart.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    jobId: text('job_id').notNull().references(() => jobs.id, { onDelete: 'cascade' }),
    /** A UUID sent as X-Platen-Delivery on every attempt, so receivers can drop duplicates. */
    deliveryId: text('delivery_id'),
    event: text('event', { enum: ['pdf.completed', 'pdf.failed'] }).notNull(),
    url: text('url').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** Unix milliseconds of the next attempt while pending. */
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('webhook_deliveries_job').on(t.jobId), index('webhook_deliveries_due').on(t.status, t.nextAttemptAt)],
);

/**
 * A team's S3 integration (spec §4.5; DESIGN §4): at most one per team, so the team id is the key.
 * The secret access key is stored sealed (AES-256-GCM, src/services/secrets.ts), never in clear.
 */
export const s3Integrations = sqliteTable('s3_integrations', {
  teamId: text('team_id')
    .primaryKey()
    .references(() => teams.id, { onDelete: 'cascade' }),
  bucket: text('bucket').notNull(),
  region: text('region').notNull(),
  accessKeyId: text('access_key_id').notNull(),
  secretAccessKeyEnc: text('secret_access_key_enc').notNull(),
  /** Base URL of an S3-compatible store (MinIO, R2, Ceph), an origin such as https://host:port; null for AWS S3. */
  endpoint: text('endpoint'),
  defaultPrefix: text('default_prefix').notNull().default(''),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/**
 * Images a team uploaded (POST /v1/assets), used in templates as `asset:<id>`. The bytes are in
 * the asset store (src/services/assets.ts), named by the id; the row says whose they are.
 */
export const assets = sqliteTable(
  'assets',
  {
    /** Opaque id: `asset:<id>` in an image source. */
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    /** image/png, image/jpeg or image/svg+xml, sniffed from the bytes. */
    contentType: text('content_type').notNull(),
    bytes: integer('bytes').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('assets_team_created').on(t.teamId, t.createdAt)],
);

/**
 * Rate-limit counters shared by every process of a cluster (PostgreSQL): one row per limited
 * subject, its current one-minute window and the requests counted in it, moved by one atomic
 * upsert per request (src/middleware/limit-store.ts). A single SQLite process counts in memory
 * and leaves this table empty.
 */
export const rateLimitCounters = sqliteTable(
  'rate_limit_counters',
  {
    /** `<limit>:<subject>`: `api:<key id>`, `preview:<key id>`, `auth:<client address or /64>`. */
    key: text('key').primaryKey(),
    /** Unix ms at which the current window opened (at its first request). */
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [index('rate_limit_counters_window').on(t.windowStart)],
);
