/**
 * PostgreSQL timeouts (PLATEN_DATABASE_STATEMENT_TIMEOUT_MS, PLATEN_DATABASE_CONNECT_TIMEOUT_MS):
 * a statement that runs too long, a server that accepts the connection and never answers, and a
 * pool with no free connection each fail within their limit instead of holding a request forever.
 * Needs PostgreSQL (PLATEN_TEST_DATABASE_URL, as `npm run test:pg` sets it); skipped without.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { openPostgres, type PostgresDb } from '../../db/postgres.ts';
import { createScratchDatabase, TEST_DATABASE_URL, type ScratchDatabase } from '../helpers/test-database.ts';

describe('PostgreSQL timeouts', { skip: !TEST_DATABASE_URL && 'needs PLATEN_TEST_DATABASE_URL' }, () => {
  let scratch: ScratchDatabase;
  let db: PostgresDb;
  before(async () => {
    scratch = await createScratchDatabase('platen_timeouts');
    // (Migrations run at open, without the statement limit.)
    db = await openPostgres(scratch.url, { poolSize: 1, statementTimeoutMs: 300, connectTimeoutMs: 400 });
  });
  after(async () => {
    await db?.close();
    await scratch?.drop();
  });

  test('a statement over the limit is cancelled by the server', async () => {
    const start = Date.now();
    await assert.rejects(db.executeSql('SELECT pg_sleep(3)'), /statement timeout/);
    assert.ok(Date.now() - start < 2500, `cancelled after ${Date.now() - start} ms`);
    // The connection is usable again at once.
    assert.deepEqual((await db.executeSql('SELECT 1 AS one')).rows, [{ one: 1 }]);
  });

  test('waiting for a connection of a full pool fails after the connect timeout', async () => {
    const held = await db.pool.connect();
    try {
      const start = Date.now();
      await assert.rejects(db.executeSql('SELECT 1'), /timeout/i);
      const waited = Date.now() - start;
      assert.ok(waited >= 350 && waited < 2500, `failed after ${waited} ms`);
    } finally {
      held.release();
    }
    assert.deepEqual((await db.executeSql('SELECT 2 AS two')).rows, [{ two: 2 }]);
  });

  test('a server that accepts and never answers fails the open after the connect timeout', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const start = Date.now();
      await assert.rejects(openPostgres(`postgres://platen@127.0.0.1:${port}/platen`, { poolSize: 1, connectTimeoutMs: 400 }), /timeout/i);
      assert.ok(Date.now() - start < 3000, `gave up after ${Date.now() - start} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
