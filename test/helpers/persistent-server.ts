/**
 * A Platen server on a data dir the test owns, for restarts: `close()` stops the server and keeps
 * the directory, so a second server can start on the same database, files and generated secret.
 * Same shape as startTestServer() (test/helpers/server.ts), whose close() deletes its directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer } from '../../src/server.ts';
import { createTemplate } from '../../src/services/templates.ts';
import { createTeam } from '../../src/services/teams.ts';
import type { TestServer } from './server.ts';

/** A fresh, empty temporary data dir. */
export function newDataDir(prefix = 'platen-restart-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Start a server on `dataDir` (created by the caller). `close()` leaves the directory in place. */
export async function startServerOn(dataDir: string, env: Record<string, string> = {}): Promise<TestServer> {
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PLATEN_DATA_DIR: dataDir,
    PLATEN_SEED_DEMO: 'false',
    PLATEN_RENDER_THREADS: '2',
    ...env,
  });
  const server = await startServer(config, createLogger('silent'));
  const url = server.url;
  const db = server.services.db;
  let closed = false;
  return {
    server,
    url,
    dataDir,
    team(credits = 10, name = 'Test team') {
      return createTeam(db, name, credits);
    },
    template(teamId, definition, type = 'pdf', name = 'test') {
      return createTemplate(db, teamId, { name, type, definition }).id;
    },
    fetch(path, init) {
      return fetch(`${url}${path}`, init);
    },
    api(method, path, apiKey, body, headers = {}) {
      const h: Record<string, string> = { ...headers };
      if (apiKey !== null) h['x-api-key'] = apiKey;
      let payload: string | undefined;
      if (body !== undefined) {
        h['content-type'] ??= 'application/json';
        payload = typeof body === 'string' ? body : JSON.stringify(body);
      }
      return fetch(`${url}${path}`, { method, headers: h, body: payload });
    },
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
    },
  };
}
