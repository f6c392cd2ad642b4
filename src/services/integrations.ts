/**
 * The team's S3 integration as stored (spec §4.5; DESIGN §4): one per team, every query keyed by
 * the caller's team id. The secret access key is sealed with the SecretBox before it is written
 * and is never part of what these functions hand to a response.
 */
import { eq } from 'drizzle-orm';
import type { Db, Tables } from '../../db/database.ts';
import { ApiError } from '../errors.ts';
import type { S3IntegrationBody } from '../schemas/integrations.ts';
import type { SecretBox } from './secrets.ts';

export type S3IntegrationRow = Tables['s3Integrations']['$inferSelect'];

/** The team's integration, or undefined. */
export async function findS3Integration(db: Db, teamId: string): Promise<S3IntegrationRow | undefined> {
  const { orm, t: { s3Integrations } } = db;
  const [row] = await orm.select().from(s3Integrations).where(eq(s3Integrations.teamId, teamId));
  return row;
}

/** The team's integration. @throws ApiError 404 INTEGRATION_NOT_FOUND. */
export async function getS3Integration(db: Db, teamId: string): Promise<S3IntegrationRow> {
  const row = await findS3Integration(db, teamId);
  if (!row) throw new ApiError(404, 'INTEGRATION_NOT_FOUND', 'this team has no S3 integration; create one with POST /v1/integrations/s3');
  return row;
}

/** The message of 400 S3_INTEGRATION_MISSING, naming the fix. */
export const S3_MISSING_DETAIL =
  'store_s3 needs an S3 integration and this team has none: configure one with POST /v1/integrations/s3 (see docs/s3.md), or leave store_s3 out to get a signed URL';

/** The integration a store_s3 request uploads with. @throws ApiError 400 S3_INTEGRATION_MISSING. */
export async function requireS3Integration(db: Db, teamId: string): Promise<S3IntegrationRow> {
  const row = await findS3Integration(db, teamId);
  if (!row) throw new ApiError(400, 'S3_INTEGRATION_MISSING', S3_MISSING_DETAIL);
  return row;
}

/**
 * Create or replace the team's integration (every field is replaced; the secret is sealed).
 * `endpoint` is stored as its origin (scheme, host, port). @returns the row and whether it is new.
 */
export async function saveS3Integration(db: Db, secrets: SecretBox, teamId: string, body: S3IntegrationBody): Promise<{ row: S3IntegrationRow; created: boolean }> {
  const now = new Date().toISOString();
  const values = {
    bucket: body.bucket,
    region: body.region,
    accessKeyId: body.access_key_id,
    secretAccessKeyEnc: secrets.seal(body.secret_access_key),
    endpoint: body.endpoint !== undefined ? new URL(body.endpoint).origin : null,
    defaultPrefix: body.default_prefix,
    updatedAt: now,
  };
  return db.transaction(async ({ orm, t: { s3Integrations } }) => {
    // Insert, or update when the team has one (also when another node inserted it meanwhile).
    const inserted = await orm.insert(s3Integrations).values({ teamId, ...values, createdAt: now }).onConflictDoNothing().returning({ teamId: s3Integrations.teamId });
    if (inserted.length === 0) await orm.update(s3Integrations).set(values).where(eq(s3Integrations.teamId, teamId));
    const [row] = await orm.select().from(s3Integrations).where(eq(s3Integrations.teamId, teamId));
    return { row, created: inserted.length > 0 };
  });
}

/** Remove the team's integration. @throws ApiError 404 INTEGRATION_NOT_FOUND when it has none. */
export async function deleteS3Integration(db: Db, teamId: string): Promise<void> {
  const { orm, t: { s3Integrations } } = db;
  const deleted = await orm.delete(s3Integrations).where(eq(s3Integrations.teamId, teamId)).returning({ teamId: s3Integrations.teamId });
  if (deleted.length === 0) throw new ApiError(404, 'INTEGRATION_NOT_FOUND', 'this team has no S3 integration');
}

/** The response shape: everything but the secret, which is only said to be set. */
export function toS3IntegrationJson(row: S3IntegrationRow) {
  return {
    bucket: row.bucket,
    region: row.region,
    access_key_id: row.accessKeyId,
    secret_access_key_set: true as const,
    endpoint: row.endpoint,
    path_style: row.endpoint !== null,
    default_prefix: row.defaultPrefix,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
