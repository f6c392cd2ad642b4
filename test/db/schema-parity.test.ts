/**
 * The two schemas and their migrations stay in step: db/schema.ts (SQLite) and db/schema.pg.ts
 * (PostgreSQL) declare the same tables, columns (name, kind, null or not, default or not, primary
 * key), indexes, foreign keys and checks, with the same row types; and each dialect's committed
 * migrations (db/migrations, db/migrations-pg) already contain everything its schema declares
 * (drizzle-kit finds nothing to generate).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { is } from 'drizzle-orm';
import * as pg from '../../db/schema.pg.ts';
import * as sqlite from '../../db/schema.ts';
import { ROOT } from '../helpers/api.ts';

// Row types agree table by table (a compile-time check: `npm run typecheck` fails otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RowsAgree = { [K in keyof typeof pg & keyof typeof sqlite]: Same<(typeof pg)[K]['$inferSelect'], (typeof sqlite)[K]['$inferSelect']> };
const rowsAgree: { [K in keyof RowsAgree]: true } = {
  teams: true,
  apiKeys: true,
  templates: true,
  templateVersions: true,
  creditTransactions: true,
  pendingSyncDebits: true,
  generatedFiles: true,
  jobs: true,
  webhookDeliveries: true,
  s3Integrations: true,
  assets: true,
  rateLimitCounters: true,
} satisfies RowsAgree;

interface Shape {
  name: string;
  columns: string[];
  indexes: string[];
  foreignKeys: string[];
  checks: string[];
}

type AnyColumn = { name: string; dataType: string; notNull: boolean; hasDefault: boolean; primary: boolean };

function column(c: AnyColumn, generated: boolean): string {
  // An identity (PostgreSQL) or an autoincrement primary key (SQLite) is a value the database gives.
  const value = c.hasDefault ? 'default' : generated ? 'generated' : 'given';
  return `${c.name} ${c.dataType}${c.notNull ? ' not null' : ''}${c.primary ? ' primary key' : ''} ${value}`;
}

function pgShape(table: PgTable): Shape {
  const config = pgTableConfig(table);
  return {
    name: config.name,
    columns: config.columns.map((c) => column(c, (c as { generatedIdentity?: unknown }).generatedIdentity !== undefined)).sort(),
    indexes: config.indexes.map((i) => `${i.config.name}${i.config.unique ? ' unique' : ''} (${i.config.columns.map((c) => (c as { name: string }).name).join(', ')})`).sort(),
    foreignKeys: config.foreignKeys.map((f) => {
      const r = f.reference();
      return `${r.columns.map((c) => c.name).join(',')} -> ${pgTableConfig(r.foreignTable).name}(${r.foreignColumns.map((c) => c.name).join(',')}) on delete ${f.onDelete ?? 'no action'}`;
    }).sort(),
    checks: config.checks.map((c) => c.name).sort(),
  };
}

function sqliteShape(table: SQLiteTable): Shape {
  const config = sqliteTableConfig(table);
  return {
    name: config.name,
    columns: config.columns.map((c) => column(c, (c as { autoIncrement?: boolean }).autoIncrement === true)).sort(),
    indexes: config.indexes.map((i) => `${i.config.name}${i.config.unique ? ' unique' : ''} (${i.config.columns.map((c) => (c as { name: string }).name).join(', ')})`).sort(),
    foreignKeys: config.foreignKeys.map((f) => {
      const r = f.reference();
      return `${r.columns.map((c) => c.name).join(',')} -> ${sqliteTableConfig(r.foreignTable).name}(${r.foreignColumns.map((c) => c.name).join(',')}) on delete ${f.onDelete ?? 'no action'}`;
    }).sort(),
    checks: config.checks.map((c) => c.name).sort(),
  };
}

describe('schemas', () => {
  test('both dialects declare the same tables', () => {
    const pgTables = Object.entries(pg).filter(([, v]) => is(v, PgTable)).map(([k]) => k).sort();
    const sqliteTables = Object.entries(sqlite).filter(([, v]) => is(v, SQLiteTable)).map(([k]) => k).sort();
    assert.deepEqual(pgTables, sqliteTables);
    assert.deepEqual(Object.keys(rowsAgree).sort(), pgTables, 'every table has its row-type check');
  });

  for (const [key, table] of Object.entries(pg).filter(([, v]) => is(v, PgTable))) {
    test(`${key}: the same columns, indexes, foreign keys and checks`, () => {
      assert.deepEqual(pgShape(table as PgTable), sqliteShape((sqlite as Record<string, unknown>)[key] as SQLiteTable));
    });
  }
});

describe('migrations', () => {
  for (const [dialect, schema, folder] of [
    ['sqlite', 'db/schema.ts', 'db/migrations'],
    ['postgresql', 'db/schema.pg.ts', 'db/migrations-pg'],
  ] as const) {
    test(`${folder} holds everything ${schema} declares (drizzle-kit generates nothing new)`, () => {
      const out = mkdtempSync(join(tmpdir(), 'platen-migrations-'));
      try {
        cpSync(join(ROOT, folder), out, { recursive: true });
        const before = readdirSync(out).sort();
        const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/drizzle-kit/bin.cjs'), 'generate', '--dialect', dialect, '--schema', schema, '--out', relative(ROOT, out)], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 120_000,
        });
        // drizzle-kit exits 0 on some failures: it must also say it found nothing to do.
        assert.equal(run.status, 0, `drizzle-kit failed: ${run.stderr}${run.stdout}`);
        assert.match(run.stdout, /No schema changes/, `drizzle-kit: ${run.stderr}${run.stdout}`);
        assert.deepEqual(readdirSync(out).sort(), before, `the schema has changes no migration holds: run npx drizzle-kit generate --config ${dialect === 'sqlite' ? 'drizzle.config.ts' : 'drizzle.pg.config.ts'}\n${run.stdout}`);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  }
});
