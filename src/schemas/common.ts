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

/**
 * A query parameter given at most once: its one value, or a fault naming it when it is repeated
 * (`?limit=1&limit=2` reaches the validator as an array).
 */
function once(name: string, value: string | string[], ctx: z.RefinementCtx): string | undefined {
  if (!Array.isArray(value)) return value;
  ctx.addIssue({ code: 'custom', message: `the query parameter ${name} is given ${value.length} times: give it once` });
  return undefined;
}

/**
 * A whole-number query parameter: decimal digits only (no sign, spaces, hex, exponent or
 * fraction, which Number() would take), from `min` to `max` (default: no upper bound but
 * Number.MAX_SAFE_INTEGER), `fallback` when absent.
 */
export function queryInteger(name: string, opts: { min: number; max?: number; fallback: number }) {
  const { min, fallback } = opts;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const range = opts.max === undefined ? `${min} or more` : `from ${min} to ${max}`;
  return z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((raw, ctx): number => {
      if (raw === undefined) return fallback;
      const value = once(name, raw, ctx);
      if (value === undefined) return z.NEVER;
      const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
      if (!(n >= min && n <= max)) {
        const why = Number.isNaN(n) ? 'written in decimal digits only' : opts.max === undefined ? `at most ${max}` : 'in that range';
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number ${range} (${why}), got ${JSON.stringify(value)}` });
        return z.NEVER;
      }
      return n;
    })
    .openapi({ type: 'integer', minimum: min, ...(opts.max === undefined ? {} : { maximum: max }), default: fallback, example: fallback });
}

/** A query parameter that is one of `values`, given at most once. */
export function queryEnum<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  const one = z.enum(values);
  return z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((raw, ctx): T[number] | undefined => {
      if (raw === undefined) return undefined;
      const value = once(name, raw, ctx);
      if (value === undefined) return z.NEVER;
      const parsed = one.safeParse(value);
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: `${name} must be one of ${values.join(', ')}, got ${JSON.stringify(value)}` });
      return z.NEVER;
    })
    .openapi({ type: 'string', enum: [...values] });
}

/** limit/offset paging (DESIGN §4): limit 1..100 (default 20), offset >= 0, each a plain decimal integer given once. */
export const pageQuery = z.object({
  limit: queryInteger('limit', { min: 1, max: 100, fallback: 20 }),
  offset: queryInteger('offset', { min: 0, fallback: 0 }),
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

/**
 * The name of a generated file without its extension (`filename` of the create requests): 1-100
 * letters, digits, `_`, `-` and `.`, starting with a letter or digit and not ending with `.` (a
 * name of dots alone made `..pdf`).
 */
export const fileStem = () =>
  z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.-]+$/, 'only letters, digits, "_", "-" and "." are allowed')
    .refine((f) => /^[A-Za-z0-9]/.test(f) && !f.endsWith('.'), 'must start with a letter or digit and not end with "."');
