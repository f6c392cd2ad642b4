/**
 * Data path resolution (DESIGN §5): a path is looked up in a scope chain — loop aliases innermost
 * first, then the `$` built-ins, then the root data.
 *
 * Only own properties are read (Object.hasOwn), never the prototype chain, and the segments
 * `__proto__`, `constructor` and `prototype` are refused, so a template can never reach
 * `Object.prototype` or a function, whatever the data holds.
 */
import { RenderError } from '../errors.ts';
import type { PageContext } from './types.ts';
import type { DataScanBudget } from './data-scan.ts';
import type { UnformattedReporter } from './missing.ts';
import { isDangerousKey, parsePath, type DataPath, type PathSegment } from './placeholders.ts';

/** One `each` level: the alias, the current item and its 0-based index. */
export interface LoopFrame {
  readonly alias: string;
  readonly value: unknown;
  readonly index: number;
  /** The enclosing loop, or null. */
  readonly parent: LoopFrame | null;
  /**
   * Where the array this loop runs over is in the data (`["orders", 2, "lines"]`), when known:
   * the item is at `[...arrayPath, index]`. Shared by all items of one loop.
   */
  readonly arrayPath?: readonly PathSegment[] | null;
}

/** Everything a path can read: root data, the loops around it and the built-ins. */
export interface Scope {
  /** The caller's data (root of every path that is not an alias or a built-in). */
  readonly data: unknown;
  /** The innermost loop, or null outside `each`. */
  readonly loop: LoopFrame | null;
  /** `$page` / `$pages`: only set in header, footer and background. */
  readonly page?: PageContext;
  /** `$now`. */
  readonly now?: Date;
  /** What filters and comparisons in this scope may still go through (data-scan.ts); unset: no limit. */
  readonly scan?: DataScanBudget;
  /** Told of values that could not be made into the text asked for (missing.ts); unset: not told. */
  readonly unformatted?: UnformattedReporter;
}

/** A scope over root data, with optional `$now`, page context and data-scan budget. DESIGN §5. */
export function createScope(data: unknown, opts: { now?: Date; page?: PageContext; scan?: DataScanBudget; unformatted?: UnformattedReporter } = {}): Scope {
  return { data, loop: null, page: opts.page, now: opts.now, scan: opts.scan, unformatted: opts.unformatted };
}

/**
 * The scope inside one `each` iteration: `alias` names `value`, `$index` is `index`; `arrayPath`
 * is where the loop's array is in the data (see {@link dataPathOf}), when known. DESIGN §5.
 */
export function enterLoop(scope: Scope, alias: string, value: unknown, index: number, arrayPath: readonly PathSegment[] | null = null): Scope {
  return { data: scope.data, loop: { alias, value, index, parent: scope.loop, arrayPath }, page: scope.page, now: scope.now, scan: scope.scan, unformatted: scope.unformatted };
}

/**
 * Where the value a path reads is in the caller's data, as segments from the data's root
 * (`items[2].tags` inside `each: "items", as: "item"` for `item.tags`), or null when the path
 * reads a `$` built-in or an alias whose array's place is not known.
 */
export function dataPathOf(path: DataPath, scope: Scope): PathSegment[] | null {
  const segments = path.segments;
  const first = segments[0];
  for (let frame = scope.loop; frame !== null; frame = frame.parent) {
    if (frame.alias === first) return frame.arrayPath ? [...frame.arrayPath, frame.index, ...segments.slice(1)] : null;
  }
  return path.builtin !== null ? null : [...segments];
}

/**
 * Reads one own property (or array element) of `container`. Returns undefined when the container
 * is not an object or array, or does not own the key. Throws RenderError('TEMPLATE_INVALID') for
 * `__proto__`, `constructor` and `prototype`. DESIGN §5.
 */
export function getOwn(container: unknown, key: PathSegment, pathText?: string): unknown {
  if (container === null || typeof container !== 'object') return undefined;
  if (typeof key === 'number') {
    if (Array.isArray(container)) return key >= 0 && key < container.length ? container[key] : undefined;
    const k = String(key);
    return Object.hasOwn(container, k) ? (container as Record<string, unknown>)[k] : undefined;
  }
  if (isDangerousKey(key)) {
    throw new RenderError('TEMPLATE_INVALID', `"${key}" is not allowed in a data path`, pathText);
  }
  if (container instanceof Date) return undefined;
  return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
}

function builtinValue(name: string, scope: Scope): unknown {
  switch (name) {
    case '$index':
      return scope.loop === null ? undefined : scope.loop.index;
    case '$page':
      return scope.page === undefined ? undefined : scope.page.page;
    case '$pages':
      return scope.page === undefined ? undefined : scope.page.pages;
    case '$now':
      return scope.now;
    default:
      return undefined;
  }
}

/**
 * Resolves a path (parsed, or text parsed with {@link parsePath}) in a scope: the first segment
 * names the innermost loop alias of that name, else a `$` built-in, else a key of the root data;
 * the rest walk own properties. A missing step yields undefined (rendered as ""). Throws
 * RenderError('TEMPLATE_INVALID', ..., path) for a refused segment or a malformed path text.
 * DESIGN §5.
 */
export function resolvePath(path: DataPath | string, scope: Scope): unknown {
  const p = typeof path === 'string' ? parsePath(path) : path;
  const segments = p.segments;
  const first = segments[0] as string;
  let value: unknown;
  let found = false;
  for (let frame = scope.loop; frame !== null; frame = frame.parent) {
    if (frame.alias === first) {
      value = frame.value;
      found = true;
      break;
    }
  }
  if (!found) {
    if (p.builtin !== null) return builtinValue(p.builtin, scope);
    value = getOwn(scope.data, first, p.text);
  }
  for (let i = 1; i < segments.length; i++) {
    if (value === undefined || value === null) return undefined;
    value = getOwn(value, segments[i], p.text);
  }
  return value;
}
