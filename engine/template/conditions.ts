/**
 * Conditions of `if` (DESIGN §5): a data path (truthy), `{not: c}`, `{and: [c...]}`,
 * `{or: [c...]}` and `{eq|ne|gt|gte|lt|lte: [path, value]}`.
 *
 * - Truthiness: missing, null, false, 0, NaN, "" and [] are false; everything else (including {})
 *   is true.
 * - Comparisons: numbers compare numerically (a numeric string in the data counts as its number
 *   when the literal is a number), strings lexically (UTF-16 code units), booleans and null by
 *   identity (`eq: [path, null]` also matches a missing value). Values of different kinds are
 *   unequal and never ordered (gt/gte/lt/lte are false).
 * - A literal string holding a placeholder is bound first (`{"gt": ["total", "{{limit}}"]}`); a
 *   string that is exactly one placeholder keeps the value's type.
 */
import { RenderError } from '../errors.ts';
import type { Condition } from './types.ts';
import { scanLength } from './data-scan.ts';
import { resolvePath, type Scope } from './path.ts';
import { hasPlaceholder } from './placeholders.ts';
import { bindValueIn } from './value.ts';

/** The comparison operators of conditions. */
export const COMPARISONS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
export type ComparisonOp = (typeof COMPARISONS)[number];

/** Every key a condition object can have. */
export const CONDITION_KEYS = ['not', 'and', 'or', ...COMPARISONS] as const;

/** DSL truthiness (see the module comment). DESIGN §5. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  return Boolean(value);
}

function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isNaN(value) ? null : value;
  if (typeof value === 'string') {
    const t = value.trim();
    if (t === '') return null;
    const n = Number(t);
    return Number.isNaN(n) ? null : n;
  }
  return null;
}

/**
 * Compares a data value with a literal: negative, 0 or positive like a sort comparator, or null
 * when the two cannot be ordered (different kinds, objects, missing values). DESIGN §5.
 */
export function compareValues(value: unknown, literal: unknown): number | null {
  if (typeof literal === 'number' || typeof value === 'number') {
    const a = numeric(value);
    const b = numeric(literal);
    if (a === null || b === null) return null;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof value === 'string' && typeof literal === 'string') return value < literal ? -1 : value > literal ? 1 : 0;
  return null;
}

/**
 * Characters a comparison of `value` and `literal` may go through: two strings, the shorter one's
 * length; a string beside a number (read as a number), its length; else none.
 */
function comparisonLength(value: unknown, literal: unknown): number {
  if (typeof value === 'string' && typeof literal === 'string') return Math.min(value.length, literal.length);
  if (typeof value === 'number' || typeof literal === 'number') return scanLength(value) + scanLength(literal);
  return 0;
}

/** Equality of a data value and a literal (see the module comment). DESIGN §5. */
export function valuesEqual(value: unknown, literal: unknown): boolean {
  if (literal === null || literal === undefined) return value === null || value === undefined;
  if (typeof literal === 'boolean' || typeof value === 'boolean') return value === literal;
  const c = compareValues(value, literal);
  return c === 0;
}

/**
 * Evaluates a condition in a scope with the filters' locale (used when a literal holds a
 * placeholder with a filter). Throws RenderError('TEMPLATE_INVALID', ..., path) for a malformed
 * condition (refused by validation, so only for unvalidated templates). DESIGN §5.
 */
export function evaluateCondition(condition: Condition, scope: Scope, locale = 'en', path = ''): boolean {
  if (typeof condition === 'string') return isTruthy(resolvePath(condition, scope));
  if (condition === null || typeof condition !== 'object') {
    throw new RenderError('TEMPLATE_INVALID', 'a condition is a data path or an object such as {"not": ...}', path);
  }
  const c = condition as Record<string, unknown>;
  if (Object.hasOwn(c, 'not')) return !evaluateCondition(c.not as Condition, scope, locale, path + '.not');
  if (Object.hasOwn(c, 'and')) {
    const list = c.and as Condition[];
    for (let i = 0; i < list.length; i++) if (!evaluateCondition(list[i], scope, locale, `${path}.and[${i}]`)) return false;
    return true;
  }
  if (Object.hasOwn(c, 'or')) {
    const list = c.or as Condition[];
    for (let i = 0; i < list.length; i++) if (evaluateCondition(list[i], scope, locale, `${path}.or[${i}]`)) return true;
    return false;
  }
  for (const op of COMPARISONS) {
    if (!Object.hasOwn(c, op)) continue;
    const pair = c[op];
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') {
      throw new RenderError('TEMPLATE_INVALID', `"${op}" takes [path, value]`, `${path}.${op}`);
    }
    const value = resolvePath(pair[0], scope);
    let literal: unknown = pair[1];
    if (typeof literal === 'string' && hasPlaceholder(literal)) literal = bindValueIn(literal, scope, locale, `${path}.${op}[1]`);
    scope.scan?.spend(comparisonLength(value, literal), `${path}.${op}`);
    switch (op) {
      case 'eq':
        return valuesEqual(value, literal);
      case 'ne':
        return !valuesEqual(value, literal);
      default: {
        const cmp = compareValues(value, literal);
        if (cmp === null) return false;
        if (op === 'gt') return cmp > 0;
        if (op === 'gte') return cmp >= 0;
        if (op === 'lt') return cmp < 0;
        return cmp <= 0;
      }
    }
  }
  throw new RenderError('TEMPLATE_INVALID', 'a condition needs one of not, and, or, eq, ne, gt, gte, lt, lte', path);
}
