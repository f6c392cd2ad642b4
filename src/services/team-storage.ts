/**
 * A team's stored bytes: its templates' drafts and versions (their JSON, UTF-8) and its assets. Saving
 * a template, a version or an asset costs no credit, so without a bound one key could fill the
 * disk (600 requests a minute of up to 10 MB each). PLATEN_MAX_TEAM_STORAGE_BYTES caps the sum;
 * concurrent saves may pass it by what they add together.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { validationError } from '../errors.ts';

/**
 * What the team stores now: template drafts and versions (bytes of their JSON in UTF-8) and assets
 * (bytes). octet_length reads each value's size, not the value: SQLite's length() read every
 * definition to count its characters (530 ms of the HTTP thread for each save of a team storing
 * 1 GB).
 */
export async function teamStorageBytes(db: Db, teamId: string): Promise<number> {
  const { orm, t } = db;
  const [drafts] = await orm.select({ n: sql<number>`coalesce(sum(octet_length(${t.templates.definition})), 0)` }).from(t.templates).where(eq(t.templates.teamId, teamId));
  const [versions] = await orm
    .select({ n: sql<number>`coalesce(sum(octet_length(${t.templateVersions.definition})), 0)` })
    .from(t.templateVersions)
    .innerJoin(t.templates, and(eq(t.templates.id, t.templateVersions.templateId), eq(t.templates.teamId, teamId)));
  const [assets] = await orm.select({ n: sql<number>`coalesce(sum(${t.assets.bytes}), 0)` }).from(t.assets).where(eq(t.assets.teamId, teamId));
  return Number(drafts.n) + Number(versions.n) + Number(assets.n);
}

/**
 * Refuses to store `adding` more bytes (beyond `replacing`, what the save replaces) when the team
 * would pass `max`.
 * @throws ApiError 400 VALIDATION_ERROR at `path`.
 */
export async function checkTeamStorage(db: Db, teamId: string, adding: number, max: number, path: string, replacing = 0): Promise<void> {
  if (adding <= replacing) return;
  const stored = await teamStorageBytes(db, teamId);
  if (stored - replacing + adding > max) {
    throw validationError([
      {
        path,
        message: `your team stores ${stored} bytes of templates, versions and assets; this would take it past ${max} (PLATEN_MAX_TEAM_STORAGE_BYTES): delete templates or assets you no longer need`,
      },
    ]);
  }
}
