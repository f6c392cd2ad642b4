/**
 * Bounded counting of a parsed JSON value, for refusing or moving off the HTTP thread what would
 * cost too much there (definition-check.ts, templates.ts).
 */

/**
 * Whether `value` holds more than `max` values, counting objects and arrays (and, with
 * `scalars`, strings, numbers, booleans and nulls too). Iterative, and stops as soon as the count
 * passes `max`: a body of millions of values costs no more than `max` steps.
 */
export function holdsMoreThan(value: unknown, max: number, scalars: boolean): boolean {
  let left = max;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    const container = v !== null && typeof v === 'object';
    if ((container || scalars) && --left < 0) return true;
    if (!container) continue;
    const children = Array.isArray(v) ? v : Object.values(v as object);
    if (scalars && children.length > left) return true;
    for (const child of children) if (scalars || (child !== null && typeof child === 'object')) stack.push(child);
  }
  return false;
}
