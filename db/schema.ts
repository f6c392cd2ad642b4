/**
 * The database schema (drizzle, SQLite). Timestamps are ISO 8601 UTC strings; money-like counts
 * (credits) are integers. Every row that belongs to a team carries team_id, and every query of the
 * service filters by it.
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

/** The credit ledger: one row per debit, refund or grant, with the balance after it. */
export const creditTransactions = sqliteTable(
  'credit_transactions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    delta: integer('delta').notNull(),
    reason: text('reason', { enum: ['generation', 'refund', 'grant'] }).notNull(),
    jobId: text('job_id'),
    balanceAfter: integer('balance_after').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('credit_transactions_team').on(t.teamId, t.id)],
);

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
