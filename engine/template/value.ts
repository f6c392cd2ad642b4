/**
 * Binding of one string in a scope (DESIGN §5 "Placeholders"): placeholder substitution with
 * filters. The node-level rules live in bind.ts; this module is shared with conditions.ts.
 */
import { RenderError } from '../errors.ts';
import { scanLength } from './data-scan.ts';
import { applyFilter, applyFilters, cannotFormat, toText } from './filters.ts';
import type { MissingReporter } from './missing.ts';
import { resolvePath, type Scope } from './path.ts';
import { hasPlaceholder, parseString, type Placeholder } from './placeholders.ts';

/**
 * The value of one placeholder: its path resolved in `scope`, then its filters applied. DESIGN §5.
 * A value the data does not have is told to `missing` (with `templatePath`), when given.
 */
export function placeholderValue(p: Placeholder, scope: Scope, locale: string, missing?: MissingReporter | null, templatePath = ''): unknown {
  const value = resolvePath(p.path, scope);
  if (value === undefined && missing && countsAsMissing(p)) missing(p.path, scope, templatePath, false);
  if (p.filters.length === 0) return value;
  if (scope.scan === undefined && scope.unformatted === undefined) return applyFilters(p.filters, value, locale);
  return applyFiltersWatched(p, value, locale, scope, templatePath);
}

/**
 * The filters applied one by one, each one's input counted against the scope's scan budget
 * before it runs and its output after (`default` only hands a value on, so it counts nothing),
 * and a value a formatting filter cannot format told to the scope's `unformatted`.
 */
function applyFiltersWatched(p: Placeholder, value: unknown, locale: string, scope: Scope, templatePath: string): unknown {
  const scan = scope.scan;
  let v = value;
  for (const call of p.filters) {
    if (call.name === 'default') {
      v = applyFilter(call, v, locale);
      continue;
    }
    if (scope.unformatted !== undefined && cannotFormat(call, v)) scope.unformatted(p, v, call.name, scope, templatePath);
    scan?.spend(scanLength(v), templatePath);
    v = applyFilter(call, v, locale);
    scan?.spend(scanLength(v), templatePath);
  }
  return v;
}

/** Tells the scope's `unformatted` of an object or array about to print as nothing. */
function watchText(value: unknown, p: Placeholder, scope: Scope, templatePath: string): void {
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) scope.unformatted!(p, value, null, scope, templatePath);
}

/** Whether a missing value of this placeholder counts (not a `$` built-in, no `default` filter). */
export function countsAsMissing(p: Placeholder): boolean {
  if (p.path.builtin !== null) return false;
  for (const f of p.filters) if (f.name === 'default') return false;
  return true;
}

/**
 * Told of each placeholder's value (filters applied) while a string is bound, before the value
 * becomes text; `single` when the placeholder is the whole string. May throw to refuse the value
 * (data-faults.ts: an image source that is an object).
 */
export type PlaceholderCheck = (value: unknown, placeholder: Placeholder, single: boolean) => void;

/**
 * Binds a string to text: every placeholder replaced by its value's text (missing -> "", numbers
 * with String(n), booleans "true"/"false", `$now` as ISO string, arrays/objects -> ""). A string
 * without `{{`/`<<` is returned as is. Values the data does not have are told to `missing`, with
 * `templatePath`, when given; each placeholder's value is handed to `check`, when given. Throws
 * RenderError('TEMPLATE_INVALID') on a syntax error (validation refuses those first). DESIGN §5.
 */
export function bindTextIn(s: string, scope: Scope, locale: string, missing?: MissingReporter | null, templatePath = '', check?: PlaceholderCheck): string {
  if (!hasPlaceholder(s)) return s;
  const parsed = parseString(s);
  if (parsed.literal !== null) return parsed.literal;
  const parts = parsed.parts;
  if (parsed.single !== null) {
    const value = placeholderValue(parsed.single, scope, locale, missing, templatePath);
    if (check !== undefined) check(value, parsed.single, true);
    if (scope.unformatted !== undefined) watchText(value, parsed.single, scope, templatePath);
    return toText(value);
  }
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    let piece: string;
    if (typeof part === 'string') piece = part;
    else {
      const value = placeholderValue(part, scope, locale, missing, templatePath);
      if (check !== undefined) check(value, part, false);
      if (scope.unformatted !== undefined) watchText(value, part, scope, templatePath);
      piece = toText(value);
    }
    if (out.length + piece.length > MAX_BOUND_STRING) {
      throw new RenderError('LIMIT_EXCEEDED', `the placeholders here make a text longer than ${MAX_BOUND_STRING} characters`, templatePath === '' ? undefined : templatePath);
    }
    out += piece;
  }
  return out;
}

/**
 * Longest string one bound text may be: JavaScript's own limit is 2^29 - 24 characters, past
 * which joining placeholders failed with a bare "Invalid string length" and no path.
 */
const MAX_BOUND_STRING = 2 ** 29 - 24;

/**
 * Binds a string keeping the value's type when the string is exactly one placeholder (`"{{qty}}"`
 * with qty 3 gives the number 3, a missing value gives undefined); any other string binds to
 * text as {@link bindTextIn}; `templatePath` names the string in a LIMIT_EXCEEDED of the scope's
 * data-scan budget. DESIGN §5.
 */
export function bindValueIn(s: string, scope: Scope, locale: string, templatePath = ''): unknown {
  if (!hasPlaceholder(s)) return s;
  const parsed = parseString(s);
  if (parsed.single !== null) return placeholderValue(parsed.single, scope, locale, null, templatePath);
  return bindTextIn(s, scope, locale, null, templatePath);
}
