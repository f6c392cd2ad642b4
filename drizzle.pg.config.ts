import { defineConfig } from 'drizzle-kit';

/** Migrations of the PostgreSQL schema (cluster mode); drizzle.config.ts has SQLite's. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema.pg.ts',
  out: './db/migrations-pg',
});
