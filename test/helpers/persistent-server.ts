/**
 * A Platen server on a data dir the test owns, for restarts: `close()` stops the server and keeps
 * the directory, so a second server can start on the same database, files and generated secret.
 * Same shape as startTestServer() (test/helpers/server.ts), whose close() deletes its directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './server.ts';
import { dropDatabaseOf } from './test-database.ts';

/** A fresh, empty temporary data dir. */
export function newDataDir(prefix = 'platen-restart-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Remove the data dir (and the test PostgreSQL database of its servers, if any). */
export async function removeDataDir(dir: string): Promise<void> {
  await dropDatabaseOf(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Start a server on `dataDir` (created by the caller). `close()` leaves the directory in place. */
export function startServerOn(dataDir: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(env, { dataDir, keepDataDir: true });
}
