/**
 * The data-scan budget of one binding (or one data check): characters of data that placeholder
 * filters and condition comparisons read and write. Binding is otherwise linear in the nodes it
 * makes, but a filter or a comparison works through a whole string each time it runs: a 4 MB
 * string compared or upper-cased in each of 20,000 loop items is 80 billion characters of work
 * from a 4 MB request. The budget stops that after `limit` characters, before the work is done.
 */
import { RenderError } from '../errors.ts';

/** Counts characters scanned against a limit; one per binding pass. */
export class DataScanBudget {
  private scanned = 0;

  /** @param limit characters that may be scanned in total (Limits.maxDataScan). */
  constructor(readonly limit: number) {}

  /**
   * Count `chars` characters about to be read or written.
   * @throws RenderError LIMIT_EXCEEDED at `path` (a template path) past the limit.
   */
  spend(chars: number, path: string): void {
    this.scanned += chars;
    if (this.scanned > this.limit) {
      throw new RenderError(
        'LIMIT_EXCEEDED',
        `placeholder filters and conditions would go through more than ${this.limit} characters of data (a long text filtered or compared in every item of a loop)`,
        path === '' ? undefined : path,
      );
    }
  }
}

/** The characters a filter or a comparison goes through in `value`: a string's length, else 0. */
export function scanLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}
