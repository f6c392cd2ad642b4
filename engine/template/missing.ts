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
import type { DataPath } from './placeholders.ts';
import { formatPath } from './schema.ts';

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
