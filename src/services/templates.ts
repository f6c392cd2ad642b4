/**
 * Templates of a team (spec §4.5, §9; DESIGN §4): a draft definition that PUT edits, and numbered
 * snapshots (versions 1, 2, ...) that may carry a tag unique within the template. A definition is
 * validated by the engine when written, so renders rarely fail.
 */
import { randomBytes } from 'node:crypto';
import { and, count, desc, eq, max, sql } from 'drizzle-orm';
import type { Db, Tables } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { perDatabase } from '../../db/prepared.ts';
import type { TemplateField } from '../../engine/index.ts';
import type { RenderPool } from '../render/pool.ts';
import { checkDefinition, noLongerValid } from './definition-check.ts';
import { DEFAULT_MAX_TEAM_STORAGE_BYTES, DEFAULT_MAX_TEMPLATE_NODES } from '../config.ts';
import { ApiError, validationError, type FieldError } from '../errors.ts';
import { checkTeamStorage } from './team-storage.ts';
import { holdsMoreThan } from './json-count.ts';

export type TemplateRow = Tables['templates']['$inferSelect'];
export type TemplateType = 'pdf' | 'image';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** What a template id can look like: newTemplateId's 12 symbols, with room for ids made by hand. */
const TEMPLATE_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** A 12-character short id from 62 symbols, without modulo bias. */
export function newTemplateId(): string {
  let id = '';
  while (id.length < 12) {
    for (const b of randomBytes(16)) {
      if (b < 248 && id.length < 12) id += ID_ALPHABET[b % 62];
    }
  }
  return id;
}

/**
 * Refuses a definition with more than `max` objects and arrays (counted iteratively, stopping
 * past `max`), before it is validated: validating costs some 20 to 50 microseconds of the HTTP
 * thread per object, so a 10 MB definition of small nodes held it for seconds (300,000 faulty
 * nodes: 23 s, then a stack overflow in the validator and a 500).
 * @throws ApiError 400 VALIDATION_ERROR with path `definition`.
 */
export function checkDefinitionSize(definition: unknown, max: number): void {
  if (holdsMoreThan(definition, max, false)) {
    throw validationError([{ path: 'definition', message: `the definition holds more than ${max} objects and arrays (PLATEN_MAX_TEMPLATE_NODES); loop over data with "each" instead of writing every row out` }]);
  }
}

/**
 * The definition's JSON text, once it is known to be valid: definitions of either type (an image
 * template is laid out by the same engine) are validated by the engine, on a render thread of
 * `limits.pool` when large (services/definition-check.ts).
 * @throws ApiError 400 VALIDATION_ERROR with `definition.<path>` for every fault of the
 *   definition, or `definition` past `maxNodes` objects and arrays.
 */
async function validDefinition(definition: unknown, limits: TemplateLimits, teamId: string): Promise<string> {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) {
    throw validationError([{ path: 'definition', message: 'must be a JSON object' }]);
  }
  checkDefinitionSize(definition, limits.maxNodes);
  const json = JSON.stringify(definition);
  const { definitionErrors } = await checkDefinition(limits.pool, teamId, json);
  if (definitionErrors) throw definitionFaults(definitionErrors);
  return json;
}

/** 400 VALIDATION_ERROR naming each fault of a definition as `definition.<path>`. */
export function definitionFaults(errors: readonly { path: string; message: string }[]): ApiError {
  return validationError(errors.map((e) => ({ path: e.path ? `definition.${e.path}` : 'definition', message: e.message })));
}

/** A template as the list answers it (no definition). */
export function templateSummary(t: Pick<TemplateRow, 'id' | 'name' | 'type' | 'createdAt' | 'updatedAt'>) {
  return { id: t.id, name: t.name, type: t.type, created_at: t.createdAt, updated_at: t.updatedAt };
}

/** Per-request limits of saving templates (PLATEN_MAX_TEMPLATE_NODES, PLATEN_MAX_TEAM_STORAGE_BYTES), and the pool large definitions are validated on (none: on this thread). */
export interface TemplateLimits {
  maxNodes: number;
  maxTeamStorageBytes: number;
  pool?: RenderPool;
}

const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { maxNodes: DEFAULT_MAX_TEMPLATE_NODES, maxTeamStorageBytes: DEFAULT_MAX_TEAM_STORAGE_BYTES };

export async function createTemplate(db: Db, teamId: string, input: { name: string; type: TemplateType; definition: unknown }, limits: TemplateLimits = DEFAULT_TEMPLATE_LIMITS): Promise<TemplateRow> {
  const definition = await validDefinition(input.definition, limits, teamId);
  const now = new Date().toISOString();
  const row = { id: newTemplateId(), teamId, name: input.name, type: input.type, definition, createdAt: now, updatedAt: now };
  await checkTeamStorage(db, teamId, Buffer.byteLength(row.definition), limits.maxTeamStorageBytes, 'definition');
  // Only the column the database makes comes back: returning the row copied a 10 MB definition back.
  const [{ seq }] = await db.orm.insert(db.t.templates).values(row).returning({ seq: db.t.templates.seq });
  return { ...row, seq };
}

const templateById = perDatabase(({ orm, t: { templates } }) => orm.select().from(templates).where(eq(templates.id, sql.placeholder('id'))).prepare('platen_template_by_id'));
const ownerById = perDatabase(({ orm, t: { templates } }) => orm.select({ teamId: templates.teamId }).from(templates).where(eq(templates.id, sql.placeholder('id'))).prepare('platen_template_owner_by_id'));

/**
 * That template `id` is the caller's team's, without reading its definition (deleting it, listing
 * its versions: reading a 10 MB definition to check its owner cost the HTTP thread 15-30 ms).
 * @throws ApiError 404 TEMPLATE_NOT_FOUND or 403 FORBIDDEN, as {@link getTemplate}.
 */
async function checkOwner(db: Db, teamId: string, id: string): Promise<void> {
  const [row] = TEMPLATE_ID_RE.test(id) ? await ownerById(db).execute({ id }) : [];
  ownedBy(row, teamId, id);
}

/**
 * The template `id` of the caller's team.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND (no such id) or 403 FORBIDDEN (another team's, spec §5).
 */
export async function getTemplate(db: Db, teamId: string, id: string): Promise<TemplateRow> {
  // Anything but a short id names no template and is not sent to the database (a NUL character
  // in it was a PostgreSQL error, answered 500).
  const [row] = TEMPLATE_ID_RE.test(id) ? await templateById(db).execute({ id }) : [];
  return ownedBy(row, teamId, id);
}

/** `row` (template `id` as read, or undefined), when it is `teamId`'s. @throws ApiError 404 TEMPLATE_NOT_FOUND or 403 FORBIDDEN. */
function ownedBy<R extends { teamId: string }>(row: R | undefined, teamId: string, id: string): R {
  if (!row) throw new ApiError(404, 'TEMPLATE_NOT_FOUND', `no template with id "${id}"`);
  if (row.teamId !== teamId) throw new ApiError(403, 'FORBIDDEN', `template "${id}" does not belong to your team`);
  return row;
}

/** A page of the team's templates, newest first (seq, the creation order, breaks ties within a millisecond: ids are random). */
export async function listTemplates(db: Db, teamId: string, limit: number, offset: number) {
  const { orm, t: { templates } } = db;
  // Without the definitions: a page of 100 templates of 10 MB read 1 GB (7-8 s of the HTTP thread).
  const summary = { id: templates.id, name: templates.name, type: templates.type, createdAt: templates.createdAt, updatedAt: templates.updatedAt };
  const rows = await orm.select(summary).from(templates).where(eq(templates.teamId, teamId)).orderBy(desc(templates.createdAt), desc(templates.seq)).limit(limit).offset(offset);
  const [{ n: total }] = await orm.select({ n: count() }).from(templates).where(eq(templates.teamId, teamId));
  return { templates: rows.map(templateSummary), total };
}

/**
 * Edit the draft: `name` and `definition` replace the stored ones when given. `type` and `id` may
 * be sent back as GET returns them, but cannot change.
 * @throws ApiError 404/403 (see {@link getTemplate}); 400 VALIDATION_ERROR with path `type` or `id`
 *   when they differ from the template's, or `definition.<path>` for a faulty definition.
 */
export async function updateTemplate(
  db: Db,
  teamId: string,
  id: string,
  input: { name?: string; type?: TemplateType; definition?: unknown; id?: string },
  limits: TemplateLimits = DEFAULT_TEMPLATE_LIMITS,
): Promise<TemplateRow> {
  const row = await getTemplate(db, teamId, id);
  const unchangeable: FieldError[] = [];
  if (input.id !== undefined && input.id !== row.id) {
    unchangeable.push({ path: 'id', message: `is "${input.id}" but this is template "${row.id}"; an id cannot change (leave it out, or send this template's id)` });
  }
  if (input.type !== undefined && input.type !== row.type) {
    unchangeable.push({ path: 'type', message: `cannot change: this template is of type "${row.type}"; create a new template for type "${input.type}"` });
  }
  if (unchangeable.length > 0) throw validationError(unchangeable);
  const definition = input.definition !== undefined ? await validDefinition(input.definition, limits, teamId) : row.definition;
  const next = {
    name: input.name ?? row.name,
    definition,
    updatedAt: new Date().toISOString(),
  };
  const { orm, t: { templates } } = db;
  if (input.definition === undefined) {
    // A rename leaves the stored definition as it is (writing it again cost a 10 MB write).
    await orm.update(templates).set({ name: next.name, updatedAt: next.updatedAt }).where(and(eq(templates.id, id), eq(templates.teamId, teamId)));
    return { ...row, ...next };
  }
  await checkTeamStorage(db, teamId, Buffer.byteLength(next.definition), limits.maxTeamStorageBytes, 'definition', Buffer.byteLength(row.definition));
  await orm.update(templates).set(next).where(and(eq(templates.id, id), eq(templates.teamId, teamId)));
  return { ...row, ...next };
}

export async function deleteTemplate(db: Db, teamId: string, id: string): Promise<void> {
  await checkOwner(db, teamId, id);
  const { orm, t: { templates } } = db;
  await orm.delete(templates).where(and(eq(templates.id, id), eq(templates.teamId, teamId)));
}

/** Runs of a snapshot whose number another node took at the same moment (unique template, number). */
const VERSION_RUNS = 5;

/**
 * Snapshot the draft as the next version number, with an optional tag.
 * @throws ApiError 409 TAG_EXISTS when the tag is taken in this template; 400 VALIDATION_ERROR
 *   (path `template`) when the snapshot would take the team past `maxTeamStorageBytes`.
 */
export async function createVersion(db: Db, teamId: string, id: string, tag: string | undefined, maxTeamStorageBytes = DEFAULT_MAX_TEAM_STORAGE_BYTES) {
  const row = await getTemplate(db, teamId, id);
  await checkTeamStorage(db, teamId, Buffer.byteLength(row.definition), maxTeamStorageBytes, 'template');
  const tagTaken = () => new ApiError(409, 'TAG_EXISTS', `template "${id}" already has a version tagged "${tag}"`);
  for (let run = 1; ; run++) {
    try {
      return await db.transaction(async ({ orm, t: { templateVersions } }) => {
        if (tag !== undefined) {
          const [taken] = await orm.select({ id: templateVersions.id }).from(templateVersions).where(and(eq(templateVersions.templateId, id), eq(templateVersions.tag, tag)));
          if (taken) throw tagTaken();
        }
        const [last] = await orm.select({ n: max(templateVersions.number) }).from(templateVersions).where(eq(templateVersions.templateId, id));
        const version = { templateId: id, number: (last?.n ?? 0) + 1, tag: tag ?? null, definition: row.definition, createdAt: new Date().toISOString() };
        await orm.insert(templateVersions).values(version);
        return { version: version.number, tag: version.tag, created_at: version.createdAt };
      });
    } catch (e) {
      // Concurrent snapshots (PostgreSQL, READ COMMITTED) can pick the same number or tag: the
      // unique indexes refuse the second; it runs again and sees the first.
      if (!isUniqueViolation(e) || run >= VERSION_RUNS) throw e;
    }
  }
}

export async function listVersions(db: Db, teamId: string, id: string) {
  await checkOwner(db, teamId, id);
  const { orm, t: { templateVersions } } = db;
  const rows = await orm.select({ number: templateVersions.number, tag: templateVersions.tag, createdAt: templateVersions.createdAt }).from(templateVersions).where(eq(templateVersions.templateId, id)).orderBy(desc(templateVersions.number));
  return rows.map((v) => ({ version: v.number, tag: v.tag, created_at: v.createdAt }));
}

/**
 * The definition to render (spec §2.1 `version`, §9), as its stored JSON text: a numeric string
 * selects a version number, any other string a tag; without a version, the draft. The text goes
 * to the render thread as it is (it parses and validates each distinct text once).
 * @throws ApiError 404 TEMPLATE_VERSION_NOT_FOUND.
 */
export async function definitionFor(db: Db, template: TemplateRow, version: string | undefined): Promise<string> {
  if (version === undefined) return template.definition;
  const { orm, t: { templateVersions } } = db;
  const notFound = () => new ApiError(404, 'TEMPLATE_VERSION_NOT_FOUND', `template "${template.id}" has no version "${version}"`);
  // A number past any version's (and past PostgreSQL's integer) names none.
  if (/^\d+$/.test(version) && Number(version) > 2_147_483_647) throw notFound();
  const where = /^\d+$/.test(version)
    ? and(eq(templateVersions.templateId, template.id), eq(templateVersions.number, Number(version)))
    : and(eq(templateVersions.templateId, template.id), eq(templateVersions.tag, version));
  const [row] = await orm.select({ definition: templateVersions.definition }).from(templateVersions).where(where);
  if (!row) throw notFound();
  return row.definition;
}

/**
 * The data fields a template reads (DESIGN §4: `{fields: [{name, type}]}`), found on a render
 * thread of `pool` when the definition is large (services/definition-check.ts).
 * @throws ApiError 404/403 (see {@link getTemplate}); 400 VALIDATION_ERROR (path `id`) for a stored
 *   definition that no longer validates.
 */
export async function fieldsOf(db: Db, teamId: string, id: string, pool?: RenderPool): Promise<TemplateField[]> {
  const row = await getTemplate(db, teamId, id);
  const found = await checkDefinition(pool, teamId, row.definition, { fields: true, definitionField: 'id' });
  if (found.definitionErrors) throw noLongerValid(id, found.definitionErrors, 'id');
  return found.fields ?? [];
}
