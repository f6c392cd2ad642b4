/**
 * Missing data (DESIGN §7 "Warnings"): a placeholder whose path the data does not have renders
 * empty, and an `each` over a missing array yields nothing. Binding reports each such read to a
 * {@link MissingReporter}: rendering turns them into DATA_MISSING warnings, and `checkData` of a
 * template with `"strict": true` into faults, so both name the same reads.
 *
 * Not missing: `$` built-ins (`$page` outside a header), a value that is present but null, and a
 * placeholder with a `default` filter.
 */
import type { WarningSink } from '../warnings.ts';
import { dataPathOf, type Scope } from './path.ts';
import type { DataPath, Placeholder } from './placeholders.ts';
import { describeValue, formatPath } from './schema.ts';

/**
 * Told of each missing read: the path read, the scope it was read in, the template path of the
 * string or `each` that reads it, and whether it is an `each`.
 */
export type MissingReporter = (path: DataPath, scope: Scope, templatePath: string, each: boolean) => void;

/**
 * Where a missing read is in the data: `data.items[3].sku`, or the path as written when it goes
 * through a loop alias whose array's place is unknown.
 */
export function missingPlace(path: DataPath, scope: Scope): string {
  const segments = dataPathOf(path, scope);
  return segments === null ? path.text : formatPath(['data', ...segments]);
}

/** A reporter that records DATA_MISSING warnings, one per template path and data path shape. */
export function warnMissing(sink: WarningSink): MissingReporter {
  return (path, scope, templatePath, each) => {
    const place = missingPlace(path, scope);
    // Every item of a loop missing the same key is one warning with a count.
    const key = `DATA_MISSING\u0000${templatePath}\u0000${place.replace(/\[\d+\]/g, '[]')}`;
    if (sink.has(key)) return sink.again(key);
    const message = each
      ? `no array at ${place}: the each over "${path.text}" produced nothing`
      : `no value at ${place}: "{{${path.text}}}" rendered empty`;
    sink.add('DATA_MISSING', message, templatePath, key, 'items');
  };
}

/**
 * Told of a placeholder value that could not be made into the text asked for: `filter` is the
 * formatting filter (`number`, `currency`, `date`) that had to pass the value through unchanged,
 * or null for an object or array printed where text goes (it prints nothing).
 */
export type UnformattedReporter = (placeholder: Placeholder, value: unknown, filter: string | null, scope: Scope, templatePath: string) => void;

/**
 * A reporter that records DATA_UNFORMATTED warnings, one per template path, data path shape and
 * filter, counting the loop items that repeat it (as DATA_MISSING).
 */
export function warnUnformatted(sink: WarningSink): UnformattedReporter {
  return (placeholder, value, filter, scope, templatePath) => {
    const place = missingPlace(placeholder.path, scope);
    const key = `DATA_UNFORMATTED\u0000${templatePath}\u0000${place.replace(/\[\d+\]/g, '[]')}\u0000${filter ?? ''}`;
    if (sink.has(key)) return sink.again(key);
    const written = `"{{${placeholder.path.text}${filter === null ? '' : ` | ${filter}`}}}"`;
    const message =
      filter === null
        ? `${place} is ${describeValue(value)}, which has no text: ${written} printed nothing`
        : filter === 'date'
          ? `${place} is ${describeValue(value)}, not a date (ISO 8601 text or epoch milliseconds): ${written} printed it as it is`
          : `${place} is ${describeValue(value)}, not a number: ${written} printed it as it is`;
    sink.add('DATA_UNFORMATTED', message, templatePath, key, 'items');
  };
}

/** Both reporters of a render, handed on together where data is bound (a page's bands). */
export interface DataReporters {
  readonly missing: MissingReporter;
  readonly unformatted: UnformattedReporter;
}
