/**
 * The database schema for PostgreSQL (cluster mode, PLATEN_DATABASE_URL): the same tables,
 * columns, keys and indexes as db/schema.ts (SQLite), column for column. Differences are of type
 * only: booleans are boolean, Unix-time columns and ledger ids are bigint (read as JS numbers),
 * and autoincrement ids are identity columns. test/db/schema-parity.test.ts compares the two.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';

/** An autoincrement id: a bigint identity column, read as a JS number. */
const serialId = (name: string) => bigint(name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();

export const teams = pgTable(
  'teams',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    credits: integer('credits').notNull().default(0),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('credits_not_negative', sql`${t.credits} >= 0`)],
);

export const apiKeys = pgTable(
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

export const templates = pgTable(
  'templates',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['pdf', 'image'] }).notNull(),
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** Creation order (lists break ties of created_at with it). */
    seq: bigint('seq', { mode: 'number' }).notNull().generatedByDefaultAsIdentity(),
  },
  (t) => [index('templates_team').on(t.teamId, t.createdAt)],
);

export const templateVersions = pgTable(
  'template_versions',
  {
    id: serialId('id'),
    templateId: text('template_id').notNull().references(() => templates.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    tag: text('tag'),
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('template_versions_number').on(t.templateId, t.number), uniqueIndex('template_versions_tag').on(t.templateId, t.tag)],
);

export const creditTransactions = pgTable(
  'credit_transactions',
  {
    id: serialId('id'),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    delta: integer('delta').notNull(),
    reason: text('reason', { enum: ['generation', 'refund', 'grant'] }).notNull(),
    jobId: text('job_id'),
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

export const pendingSyncDebits = pgTable('pending_sync_debits', {
  id: serialId('id'),
  teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
  transactionId: bigint('transaction_id', { mode: 'number' }).notNull(),
  createdAt: text('created_at').notNull(),
});

export const generatedFiles = pgTable(
  'generated_files',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    bytes: integer('bytes').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('generated_files_expiry').on(t.expiresAt)],
);

export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'processing', 'completed', 'failed'] }).notNull(),
    templateId: text('template_id').notNull(),
    definition: text('definition').notNull(),
    data: text('data').notNull(),
    exportType: text('export_type').notNull().default('url'),
    filename: text('filename').notNull(),
    expiration: integer('expiration').notNull(),
    storeS3: boolean('store_s3').notNull().default(false),
    s3Filepath: text('s3_filepath'),
    s3Bucket: text('s3_bucket'),
    pdfVariant: text('pdf_variant'),
    webhookUrl: text('webhook_url'),
    webhookSecretEnc: text('webhook_secret_enc'),
    protectionEnc: text('protection_enc'),
    /** What the job makes: a PDF, or one page as a PNG or JPEG image (create-async `output`). */
    output: text('output', { enum: ['pdf', 'png', 'jpeg'] }).notNull().default('pdf'),
    /** Image jobs: {"scale", "page"} as JSON; null for PDF jobs. */
    imageOptions: text('image_options'),
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

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: serialId('id'),
    jobId: text('job_id').notNull().references(() => jobs.id, { onDelete: 'cascade' }),
    deliveryId: text('delivery_id'),
    event: text('event', { enum: ['pdf.completed', 'pdf.failed'] }).notNull(),
    url: text('url').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('webhook_deliveries_job').on(t.jobId), index('webhook_deliveries_due').on(t.status, t.nextAttemptAt)],
);

export const s3Integrations = pgTable('s3_integrations', {
  teamId: text('team_id')
    .primaryKey()
    .references(() => teams.id, { onDelete: 'cascade' }),
  bucket: text('bucket').notNull(),
  region: text('region').notNull(),
  accessKeyId: text('access_key_id').notNull(),
  secretAccessKeyEnc: text('secret_access_key_enc').notNull(),
  endpoint: text('endpoint'),
  defaultPrefix: text('default_prefix').notNull().default(''),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export const assets = pgTable(
  'assets',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    bytes: integer('bytes').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('assets_team_created').on(t.teamId, t.createdAt)],
);

export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').primaryKey(),
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [index('rate_limit_counters_window').on(t.windowStart)],
);
