/** Schemas shared by several resources. */
import { z } from '@hono/zod-openapi';

/** Own properties only, and no object with a prototype other than Object's (JSON objects). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A JSON object passed through untouched. (Parsing it into a fresh object would assign a
 * `"__proto__"` key and change that object's prototype.)
 */
export const jsonObject = z
  .custom<Record<string, unknown>>((v) => isPlainObject(v), { message: 'must be a JSON object' })
  .openapi({ type: 'object', additionalProperties: true });

/** limit/offset paging (DESIGN §4): limit 1..100 (default 20), offset >= 0. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
  offset: z.coerce.number().int().min(0).default(0).openapi({ example: 0 }),
});

export const errorBody = z
  .object({
    code: z.string().openapi({ example: 'TEMPLATE_NOT_FOUND' }),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Error');

/** A page of a list (DESIGN §4): `{<key>: [...], total, limit, offset}`, newest first. */
export function pageOf<K extends string, T extends z.ZodTypeAny>(key: K, item: T, description: string, name: string) {
  return z
    .object({
      [key]: z.array(item).openapi({ description }),
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
    } as { [P in K]: z.ZodArray<T> } & { total: z.ZodNumber; limit: z.ZodNumber; offset: z.ZodNumber })
    .openapi(name);
}
