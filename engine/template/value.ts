/**
 * Binding of one string in a scope (DESIGN §5 "Placeholders"): placeholder substitution with
 * filters. The node-level rules live in bind.ts; this module is shared with conditions.ts.
 */
import { applyFilters, toText } from './filters.ts';
import { resolvePath, type Scope } from './path.ts';
import { hasPlaceholder, parseString, type Placeholder } from './placeholders.ts';

/** The value of one placeholder: its path resolved in `scope`, then its filters applied. DESIGN §5. */
export function placeholderValue(p: Placeholder, scope: Scope, locale: string): unknown {
  const value = resolvePath(p.path, scope);
  return p.filters.length === 0 ? value : applyFilters(p.filters, value, locale);
}

/**
 * Binds a string to text: every placeholder replaced by its value's text (missing -> "", numbers
 * with String(n), booleans "true"/"false", `$now` as ISO string, arrays/objects -> ""). A string
 * without `{{`/`<<` is returned as is. Throws RenderError('TEMPLATE_INVALID') on a syntax error
 * (validation refuses those first). DESIGN §5.
 */
export function bindTextIn(s: string, scope: Scope, locale: string): string {
  if (!hasPlaceholder(s)) return s;
  const parsed = parseString(s);
  if (parsed.literal !== null) return parsed.literal;
  const parts = parsed.parts;
  if (parsed.single !== null) return toText(placeholderValue(parsed.single, scope, locale));
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    out += typeof part === 'string' ? part : toText(placeholderValue(part, scope, locale));
  }
  return out;
}

/**
 * Binds a string keeping the value's type when the string is exactly one placeholder (`"{{qty}}"`
 * with qty 3 gives the number 3, a missing value gives undefined); any other string binds to
 * text as {@link bindTextIn}. DESIGN §5.
 */
export function bindValueIn(s: string, scope: Scope, locale: string): unknown {
  if (!hasPlaceholder(s)) return s;
  const parsed = parseString(s);
  if (parsed.single !== null) return placeholderValue(parsed.single, scope, locale);
  return bindTextIn(s, scope, locale);
}
