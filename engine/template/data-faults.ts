/**
 * The ways data can fail a template (DESIGN §5), shared by binding (bind.ts), which throws them,
 * and `checkData()` (data-check.ts), which collects them before a render: an `each` over a value
 * that is not an array, a colour placeholder that binds to something that is not a colour, and an
 * image source placeholder whose value is not text (an object, an array; a number or boolean as
 * the whole source).
 * Each is a RenderError('DATA_INVALID') whose path is where the value is in the data
 * (`data.items`, `data.orders[2].lines`; `data` when the value is not in the data, e.g. a `$`
 * built-in), and whose message names the template node too.
 */
import { RenderError } from '../errors.ts';
import { parseColor } from './colors.ts';
import { dataPathOf, resolvePath, type Scope } from './path.ts';
import { parsePath, parseString, type PathSegment } from './placeholders.ts';
import { describeValue, formatPath } from './schema.ts';
import type { MissingReporter } from './missing.ts';
import { bindTextIn, type PlaceholderCheck } from './value.ts';

/** `data.items[2].tags` for segments `items, 2, tags`; `data` for null (not in the data). */
export function dataPathText(segments: readonly PathSegment[] | null): string {
  return segments === null ? 'data' : formatPath(['data', ...segments]);
}

/** The items of an `each` over `pathText`, and where they are in the data. */
export interface EachItems {
  readonly items: readonly unknown[];
  /** Where the array is in the data, for the paths of faults inside the loop; null when unknown. */
  readonly arrayPath: readonly PathSegment[] | null;
}

/**
 * The array an `each` iterates, or null when the value is missing or null (the loop yields
 * nothing; a missing one is told to `missing`, when given).
 * @throws RenderError DATA_INVALID (path `data.<path>`) when the value is anything else.
 */
export function eachItems(pathText: string, scope: Scope, templatePath: string, missing?: MissingReporter | null): EachItems | null {
  const path = parsePath(pathText);
  const value = resolvePath(path, scope);
  if (value === undefined && missing && path.builtin === null) missing(path, scope, templatePath, true);
  if (value === undefined || value === null) return null;
  const where = dataPathOf(path, scope);
  if (!Array.isArray(value)) {
    throw new RenderError('DATA_INVALID', `"each" at ${templatePath} needs an array at "${pathText}", got ${describeValue(value)}`, dataPathText(where));
  }
  return { items: value, arrayPath: where };
}

/**
 * A node colour holding placeholders, bound: "" when it binds to nothing (the colour is
 * inherited), else a colour.
 * @throws RenderError DATA_INVALID (path: where its first placeholder reads the data) when the
 *   bound text is not a colour.
 */
export function bindColorText(value: string, scope: Scope, locale: string, templatePath: string, missing?: MissingReporter | null): string {
  const bound = bindTextIn(value, scope, locale, missing, templatePath);
  // Trimming text joined from several placeholders copies it: count it as filters' output.
  scope.scan?.spend(bound.length, templatePath);
  const s = bound.trim();
  if (s === '' || parseColor(s) !== null) return s;
  let where: PathSegment[] | null = null;
  for (const part of parseString(value).parts) {
    if (typeof part === 'string') continue;
    where = dataPathOf(part.path, scope);
    if (where !== null) break;
  }
  throw new RenderError(
    'DATA_INVALID',
    `the colour ${JSON.stringify(s.length > 40 ? s.slice(0, 37) + '...' : s)} from the data (at ${templatePath}) is not #rgb, #rrggbb or a CSS colour name`,
    dataPathText(where),
  );
}

/**
 * An `image` source holding placeholders, bound. A placeholder whose value is an object or an
 * array would print nothing (and the image would silently vanish), and one that is the whole
 * source and holds a number or a boolean is no image source either: both are refused. A
 * missing or null value stays "" (the image is left out, a missing one told to `missing`).
 * @throws RenderError DATA_INVALID (path: where the placeholder reads the data, `data.logo`), the
 *   message naming the template path (`content[1].image`) and what the value is.
 */
export function bindImageSource(value: string, scope: Scope, locale: string, templatePath: string, missing?: MissingReporter | null): string {
  const check: PlaceholderCheck = (v, placeholder, single) => {
    if (v === undefined || v === null || typeof v === 'string') return;
    const notText = typeof v === 'object' && !(v instanceof Date);
    if (!notText && !single) return;
    if (!notText && typeof v !== 'number' && typeof v !== 'boolean') return;
    throw new RenderError(
      'DATA_INVALID',
      `the image source at ${templatePath} ("{{${placeholder.path.text}}}") needs text (a data: URI, an https:// URL or asset:<id>), got ${describeValue(v)}`,
      dataPathText(dataPathOf(placeholder.path, scope)),
    );
  };
  return bindTextIn(value, scope, locale, missing, templatePath, check);
}
