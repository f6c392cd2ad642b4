/** Request and response schemas of the templates API (spec §4.5, §9; DESIGN §4). */
import { z } from '@hono/zod-openapi';
import { isPlainObject, pageOf } from './common.ts';

/** Keys that could reach an object's prototype (DESIGN §5): refused anywhere in a definition. */
const DANGEROUS_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Nesting cap of any definition (pdf or image), checked before the definition is stored, so that
 * serialising it can never overflow the stack. PDF definitions meet the engine's tighter
 * `maxDepth` afterwards, with its own message.
 */
const MAX_DEFINITION_DEPTH = 256;

/** Faults of one definition reported at most (a body of 400,000 prototype keys made zod overflow its stack). */
const MAX_DEFINITION_ISSUES = 100;

/** An object or array being walked: its keys (null for an array), the next child, and its own key in its parent. */
interface Frame {
  readonly value: object;
  readonly keys: string[] | null;
  next: number;
  readonly key: string | number | null;
}

/**
 * Prototype keys anywhere in `def`, and nesting past {@link MAX_DEFINITION_DEPTH}, as issues with
 * paths relative to the definition (`content[0].__proto__`), at most {@link MAX_DEFINITION_ISSUES}.
 * Walked depth first with one frame per level (no stack to overflow, no list of pending values,
 * no path copied per value: a 4 MB body of 2 million values nested 240 deep once took the heap
 * past 4 GB); values that are not objects or arrays are only looked at.
 */
function definitionIssues(def: Record<string, unknown>): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const frames: Frame[] = [{ value: def, keys: Object.keys(def), next: 0, key: null }];
  const pathTo = (last: string | number) => [...frames.slice(1).map((f) => f.key!), last];
  while (frames.length > 0) {
    const top = frames[frames.length - 1];
    const count = top.keys === null ? (top.value as unknown[]).length : top.keys.length;
    if (top.next >= count) {
      frames.pop();
      continue;
    }
    const i = top.next++;
    const key = top.keys === null ? i : top.keys[i];
    if (typeof key === 'string' && DANGEROUS_KEYS.has(key)) {
      issues.push({ path: pathTo(key), message: `the key "${key}" is not allowed` });
      if (issues.length >= MAX_DEFINITION_ISSUES) return issues;
      continue;
    }
    const child: unknown = (top.value as Record<string | number, unknown>)[key];
    if (child === null || typeof child !== 'object') continue;
    if (frames.length >= MAX_DEFINITION_DEPTH) {
      issues.push({ path: [], message: `the definition is nested deeper than ${MAX_DEFINITION_DEPTH} levels` });
      return issues;
    }
    frames.push({ value: child, keys: Array.isArray(child) ? null : Object.keys(child), next: 0, key });
  }
  return issues;
}

/**
 * A template definition: a JSON object, passed through untouched (no copy, so a `"__proto__"`
 * key never turns into a prototype), without prototype keys at any depth and nested at most
 * {@link MAX_DEFINITION_DEPTH} levels ({@link definitionIssues}).
 */
export const definitionSchema = z
  .custom<Record<string, unknown>>((v) => isPlainObject(v), { message: 'must be a JSON object' })
  .superRefine((def, ctx) => {
    if (!isPlainObject(def)) return;
    // Paths are relative to the definition: errors read `definition.content[0].__proto__`.
    for (const issue of definitionIssues(def)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  })
  .openapi({
    type: 'object',
    additionalProperties: true,
    description: 'the template definition in the template language (docs/templates.md), for either type',
    example: { content: [{ text: 'Hello {{customer.name}}' }] },
  });

const timestamp = z.string().openapi({ example: '2025-01-31T12:00:00.000Z', description: 'ISO 8601 UTC' });

/**
 * Why a name or tag shown in lists and the studio is not one, or undefined: it needs a visible
 * character, and holds no control characters (a tab, a newline, NUL) or bidi controls (U+202A-
 * U+202E, U+2066-U+2069: a right-to-left override makes "fdp.exe" read as "exe.pdf").
 */
export function labelFault(text: string): string | undefined {
  const control = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.exec(text);
  if (control) return `holds the control character U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}, which a name cannot show`;
  if (!/[^\p{White_Space}\p{Cf}]/u.test(text)) return 'needs a visible character (it is only white space)';
  return undefined;
}

const label = <T extends z.ZodString>(schema: T) =>
  schema.superRefine((v, ctx) => {
    const fault = labelFault(v);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });

const templateName = label(z.string().min(1).max(200)).openapi({ example: 'Invoice' });
const templateType = z.enum(['pdf', 'image']).openapi({ example: 'pdf' });

export const createTemplateBody = z
  .object({
    name: templateName,
    type: templateType,
    definition: definitionSchema,
  })
  .strict()
  .openapi('CreateTemplateRequest');

/**
 * PUT's body: the representation POST takes and GET returns. `name` and `definition` replace what
 * is stored (a field left out stays); `type` is accepted when it is the template's own (a type
 * cannot change). The read-only fields of GET's answer may come back too: `id` must be the
 * template's, `created_at` and `updated_at` are ignored. Those checks need the stored template:
 * services/templates.ts makes them.
 */
export const updateTemplateBody = z
  .object({
    name: templateName.optional(),
    type: templateType.optional().openapi({ description: "the template's type; it cannot change (400 VALIDATION_ERROR, path `type`)" }),
    definition: definitionSchema.optional(),
    id: z.string().optional().openapi({ description: "read-only, as GET returns it: must be this template's id" }),
    created_at: timestamp.optional().openapi({ description: 'read-only, as GET returns it: ignored' }),
    updated_at: timestamp.optional().openapi({ description: 'read-only, as GET returns it: ignored (the server sets it)' }),
  })
  .strict()
  .refine((b) => b.name !== undefined || b.definition !== undefined || b.type !== undefined, { message: 'give a name, a definition or both' })
  .openapi('UpdateTemplateRequest');

/**
 * A version tag: 1..50 characters, not all digits (a numeric tag would be ambiguous with a
 * version number in the `version` field of a generation request, spec §2.1).
 */
export const versionTag = label(z.string().min(1).max(50))
  .refine((t) => !/^\d+$/.test(t), 'a tag cannot be all digits: it would be read as a version number')
  .openapi({ example: 'v1.0' });

export const createVersionBody = z
  .object({ tag: versionTag.optional() })
  .strict()
  .openapi('CreateTemplateVersionRequest');

export const templateIdParam = z.object({
  id: z.string().min(1).openapi({ param: { name: 'id', in: 'path' }, example: 'Xy12Ab34Cd56', description: '12-character template id' }),
});

const templateSummaryShape = {
  id: z.string().openapi({ example: 'Xy12Ab34Cd56' }),
  name: z.string(),
  type: templateType,
  created_at: timestamp,
  updated_at: timestamp,
};

export const templateSummary = z.object(templateSummaryShape).openapi('TemplateSummary');

export const templateJson = z
  .object({
    id: templateSummaryShape.id,
    name: templateSummaryShape.name,
    type: templateType,
    definition: z.record(z.string(), z.unknown()).openapi({ type: 'object', additionalProperties: true }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Template');

export const templateList = pageOf('templates', templateSummary, 'newest first; without definitions', 'TemplateList');

export const templateVersion = z
  .object({
    version: z.number().int().openapi({ example: 1 }),
    tag: z.string().nullable().openapi({ example: 'v1.0' }),
    created_at: timestamp,
  })
  .openapi('TemplateVersion');

export const templateVersionList = z
  .object({ versions: z.array(templateVersion).openapi({ description: 'newest first' }) })
  .openapi('TemplateVersionList');

export const templateFieldList = z
  .object({
    fields: z.array(
      z.object({
        name: z.string().openapi({ example: 'items[].qty', description: 'the data path the caller’s data must have' }),
        type: z.enum(['string', 'number', 'boolean', 'array', 'object', 'image', 'date', 'unknown']),
      }),
    ),
  })
  .openapi('TemplateFields');
