/**
 * Queries prepared once per database. Drizzle builds a query anew on every call of the query
 * builder; the hot path of a render request (key lookup, template lookup) instead keeps drizzle
 * prepared queries, built with `sql.placeholder`, here. Only for queries outside transactions: a
 * prepared query runs on the handle it was built on (PostgreSQL: the pool, not a transaction's
 * connection). On SQLite the statement is compiled once too (db/sqlite.ts keeps it by its text);
 * on PostgreSQL it is a named prepared statement of each pooled connection.
 */
import type { Db } from './database.ts';

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
