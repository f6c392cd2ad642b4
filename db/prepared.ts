/**
 * Statements prepared once per database. Drizzle builds and SQLite prepares a query anew on every
 * call of the query builder; the hot path of a render request (key lookup, template lookup, the
 * credit debit) instead keeps its statements, built with `sql.placeholder`, here.
 */
import type { Db } from './open.ts';

/**
 * `build` runs once for each database handed to the returned function, and its result is kept
 * for as long as that database object lives.
 */
export function perDatabase<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let value = built.get(db);
    if (value === undefined) {
      value = build(db);
      built.set(db, value);
    }
    return value;
  };
}
