/**
 * Templates of a team (spec §4.5, §9; DESIGN §4): a draft definition that PUT edits, and numbered
 * snapshots (versions 1, 2, ...) that may carry a tag unique within the template. A definition is
 * validated by the engine when written, so renders rarely fail.
 */
import { randomBytes } from 'node:crypto';
import { and, desc, eq, max, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { perDatabase } from '../../db/prepared.ts';
import { templates, templateVersions } from '../../db/schema.ts';
import { templateFields, validateTemplate } from '../../engine/index.ts';
import { ApiError, validationError, type FieldError } from '../errors.ts';

export type TemplateRow = typeof templates.$inferSelect;
export type TemplateType = 'pdf' | 'image';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A 12-character short id (§2.1) from 62 symbols, without modulo bias. */
export function newTemplateId(): string {
  let id = '';
  while (id.length < 12) {
    for (const b of randomBytes(16)) {
      if (b < 248 && id.length < 12) id += ID_ALPHABET[b % 62];
    }
  }
  return id;
}

/** @throws ApiError 400 VALIDATION_ERROR with `definition.<path>` for every fault of a PDF definition. */
function checkDefinition(type: TemplateType, definition: unknown): void {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) {
    throw validationError([{ path: 'definition', message: 'must be a JSON object' }]);
  }
  if (type !== 'pdf') return;
  const v = validateTemplate(definition);
  if (!v.ok) throw validationError(v.errors.map((e) => ({ path: e.path ? `definition.${e.path}` : 'definition', message: e.message })));
}

export function toTemplateJson(t: TemplateRow, withDefinition = true) {
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    ...(withDefinition ? { definition: JSON.parse(t.definition) as unknown } : {}),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}

export function createTemplate(db: Db, teamId: string, input: { name: string; type: TemplateType; definition: unknown }): TemplateRow {
  checkDefinition(input.type, input.definition);
  const now = new Date().toISOString();
  const row = { id: newTemplateId(), teamId, name: input.name, type: input.type, definition: JSON.stringify(input.definition), createdAt: now, updatedAt: now };
  db.insert(templates).values(row).run();
  return row;
}

const templateById = perDatabase((db) => db.select().from(templates).where(eq(templates.id, sql.placeholder('id'))).prepare());

/**
 * The template `id` of the caller's team.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND (no such id) or 403 FORBIDDEN (another team's, spec §5).
 */
export function getTemplate(db: Db, teamId: string, id: string): TemplateRow {
  const row = templateById(db).get({ id });
  if (!row) throw new ApiError(404, 'TEMPLATE_NOT_FOUND', `no template with id "${id}"`);
  if (row.teamId !== teamId) throw new ApiError(403, 'FORBIDDEN', `template "${id}" does not belong to your team`);
  return row;
}

/** A page of the team's templates, newest first (rowid breaks ties within a millisecond: ids are random). */
export function listTemplates(db: Db, teamId: string, limit: number, offset: number) {
  const rows = db.select().from(templates).where(eq(templates.teamId, teamId)).orderBy(desc(templates.createdAt), desc(sql`rowid`)).limit(limit).offset(offset).all();
  const total = db.select({ n: sql<number>`count(*)` }).from(templates).where(eq(templates.teamId, teamId)).get()!.n;
  return { templates: rows.map((r) => toTemplateJson(r, false)), total };
}

/**
 * Edit the draft: `name` and `definition` replace the stored ones when given. `type` and `id` may
 * be sent back as GET returns them, but cannot change.
 * @throws ApiError 404/403 (see {@link getTemplate}); 400 VALIDATION_ERROR with path `type` or `id`
 *   when they differ from the template's, or `definition.<path>` for a faulty definition.
 */
export function updateTemplate(db: Db, teamId: string, id: string, input: { name?: string; type?: TemplateType; definition?: unknown; id?: string }): TemplateRow {
  const row = getTemplate(db, teamId, id);
  const unchangeable: FieldError[] = [];
  if (input.id !== undefined && input.id !== row.id) {
    unchangeable.push({ path: 'id', message: `is "${input.id}" but this is template "${row.id}"; an id cannot change (leave it out, or send this template's id)` });
  }
  if (input.type !== undefined && input.type !== row.type) {
    unchangeable.push({ path: 'type', message: `cannot change: this template is of type "${row.type}"; create a new template for type "${input.type}"` });
  }
  if (unchangeable.length > 0) throw validationError(unchangeable);
  if (input.definition !== undefined) checkDefinition(row.type, input.definition);
  const next = {
    name: input.name ?? row.name,
    definition: input.definition !== undefined ? JSON.stringify(input.definition) : row.definition,
    updatedAt: new Date().toISOString(),
  };
  db.update(templates).set(next).where(and(eq(templates.id, id), eq(templates.teamId, teamId))).run();
  return { ...row, ...next };
}

export function deleteTemplate(db: Db, teamId: string, id: string): void {
  getTemplate(db, teamId, id);
  db.delete(templates).where(and(eq(templates.id, id), eq(templates.teamId, teamId))).run();
}

/**
 * Snapshot the draft as the next version number, with an optional tag.
 * @throws ApiError 409 TAG_EXISTS when the tag is taken in this template.
 */
export function createVersion(db: Db, teamId: string, id: string, tag: string | undefined) {
  const row = getTemplate(db, teamId, id);
  return db.transaction((tx) => {
    if (tag !== undefined && tx.select({ id: templateVersions.id }).from(templateVersions).where(and(eq(templateVersions.templateId, id), eq(templateVersions.tag, tag))).get()) {
      throw new ApiError(409, 'TAG_EXISTS', `template "${id}" already has a version tagged "${tag}"`);
    }
    const last = tx.select({ n: max(templateVersions.number) }).from(templateVersions).where(eq(templateVersions.templateId, id)).get()?.n ?? 0;
    const version = { templateId: id, number: last + 1, tag: tag ?? null, definition: row.definition, createdAt: new Date().toISOString() };
    tx.insert(templateVersions).values(version).run();
    return { version: version.number, tag: version.tag, created_at: version.createdAt };
  });
}

export function listVersions(db: Db, teamId: string, id: string) {
  getTemplate(db, teamId, id);
  const rows = db.select().from(templateVersions).where(eq(templateVersions.templateId, id)).orderBy(desc(templateVersions.number)).all();
  return rows.map((v) => ({ version: v.number, tag: v.tag, created_at: v.createdAt }));
}

/**
 * The definition to render (spec §2.1 `version`, §9), as its stored JSON text: a numeric string
 * selects a version number, any other string a tag; without a version, the draft. The text goes
 * to the render thread as it is (it parses and validates each distinct text once).
 * @throws ApiError 404 TEMPLATE_VERSION_NOT_FOUND.
 */
export function definitionFor(db: Db, template: TemplateRow, version: string | undefined): string {
  if (version === undefined) return template.definition;
  const where = /^\d+$/.test(version)
    ? and(eq(templateVersions.templateId, template.id), eq(templateVersions.number, Number(version)))
    : and(eq(templateVersions.templateId, template.id), eq(templateVersions.tag, version));
  const row = db.select({ definition: templateVersions.definition }).from(templateVersions).where(where).get();
  if (!row) throw new ApiError(404, 'TEMPLATE_VERSION_NOT_FOUND', `template "${template.id}" has no version "${version}"`);
  return row.definition;
}

/** The data fields a template reads (DESIGN §4: `{fields: [{name, type}]}`). */
export function fieldsOf(db: Db, teamId: string, id: string) {
  const row = getTemplate(db, teamId, id);
  if (row.type !== 'pdf') return [];
  return templateFields(JSON.parse(row.definition));
}
