/**
 * A real Platen server for API tests: a temporary data dir, a loopback port, real SQLite (or, with
 * PLATEN_TEST_DATABASE_URL, a fresh PostgreSQL database of its own: test-database.ts), real worker
 * threads. `api()` sends JSON with a key; `team()` makes a team with credits and a key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTemplate } from '../../src/services/templates.ts';
import { createTeam } from '../../src/services/teams.ts';
import { databaseUrlFor, dropDatabaseOf, TEST_DATABASE_URL } from './test-database.ts';

export interface TestServer {
  server: RunningServer;
  url: string;
  dataDir: string;
  /** Make a team with `credits` and return its id and API key. */
  team(credits?: number, name?: string): Promise<{ teamId: string; apiKey: string }>;
  /** Store a template for a team directly (no HTTP); @returns its id. */
  template(teamId: string, definition: unknown, type?: 'pdf' | 'image', name?: string): Promise<string>;
  /** fetch() relative to the server. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request with x-api-key. `body` is JSON-encoded unless it is a string. */
  api(method: string, path: string, apiKey: string | null, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Use this data dir (a restart test's); default: a fresh temporary one. */
  dataDir?: string;
  /** Leave the data dir in place on close(). Default: kept when given, removed when made here. */
  keepDataDir?: boolean;
  /** Default: silent. */
  log?: Logger;
}

/** Start a server. `env` overrides configuration variables (PLATEN_RATE_LIMIT, ...). */
export async function startTestServer(env: Record<string, string> = {}, opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'platen-api-'));
  const keepDataDir = opts.keepDataDir ?? opts.dataDir !== undefined;
  let closed = false;
  const database = TEST_DATABASE_URL && env.PLATEN_DATABASE_URL === undefined ? { PLATEN_DATABASE_URL: await databaseUrlFor(dataDir), PLATEN_DATABASE_POOL_SIZE: '4' } : {};
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PLATEN_DATA_DIR: dataDir,
    PLATEN_SEED_DEMO: 'false',
    PLATEN_RENDER_THREADS: '2',
    ...database,
    ...env,
  });
  const server = await startServer(config, opts.log ?? createLogger('silent'));
  const url = server.url;
  const db = server.services.db;
  return {
    server,
    url,
    dataDir,
    team(credits = 10, name = 'Test team') {
      return createTeam(db, name, credits);
    },
    async template(teamId, definition, type = 'pdf', name = 'test') {
      return (await createTemplate(db, teamId, { name, type, definition })).id;
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
      if (!keepDataDir) {
        await dropDatabaseOf(dataDir);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
