/**
 * Rate limits hold across a cluster: two server processes' worth of apps on one PostgreSQL
 * database count each key's requests (and each address's failed authentications, and each key's
 * previews) in one shared window, so the pair admits exactly the limit between them. On SQLite
 * (one process) the counters are in memory; the in-memory counter is tested here too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { FallbackCounter, MemoryCounter, PostgresCounter } from '../../src/middleware/limit-store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TEST_DIALECT } from '../helpers/test-database.ts';

const onPostgres = TEST_DIALECT === 'postgres';
const LIMITS = { PLATEN_RATE_LIMIT: '10', PLATEN_PREVIEW_RATE_LIMIT: '4', PLATEN_AUTH_FAIL_LIMIT: '3' };

let a: TestServer;
let b: TestServer;

before(async () => {
  if (!onPostgres) return;
  a = await startTestServer(LIMITS);
  const url = readFileSync(join(a.dataDir, 'test-database-url'), 'utf8').trim();
  b = await startTestServer({ ...LIMITS, PLATEN_DATABASE_URL: url });
});
after(async () => {
  await b?.close();
  await a?.close();
});

describe('two nodes on one PostgreSQL database', { skip: onPostgres ? false : 'needs PLATEN_TEST_DATABASE_URL (SQLite mode is one process: in-memory counters)' }, () => {
  test('30 concurrent requests of one key split over both nodes: exactly 10 admitted, each with its own RateLimit-Remaining', async () => {
    const { apiKey } = await a.team(1);
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).api('GET', '/v1/account', apiKey)));
    const admitted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    assert.equal(admitted.length, 10, 'the limit holds for the pair of nodes');
    assert.equal(refused.length, 20);
    assert.ok(admitted.some((r) => r.url.startsWith(a.url)) && admitted.some((r) => r.url.startsWith(b.url)), 'both nodes admitted some');
    const remaining = admitted.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((x, y) => x - y);
    assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const r of refused) {
      assert.equal(r.headers.get('ratelimit-remaining'), '0');
      const reset = Number(r.headers.get('retry-after'));
      assert.ok(reset >= 1 && reset <= 60, `Retry-After ${reset}`);
      assert.equal(((await r.json()) as { code: string }).code, 'RATE_LIMIT_EXCEEDED');
    }
    await Promise.all(admitted.map((r) => r.arrayBuffer()));

    // Another key has a window of its own.
    const other = await b.team(1);
    assert.equal((await a.api('GET', '/v1/account', other.apiKey)).status, 200);
  });

  test('when the window ends (moved back past a minute in the table) the key is admitted again', async () => {
    const { apiKey } = await a.team(1);
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).api('GET', '/v1/account', apiKey).then((r) => r.arrayBuffer());
    assert.equal((await a.api('GET', '/v1/account', apiKey)).status, 429);
    const { orm, t } = a.server.services.db;
    await orm.update(t.rateLimitCounters).set({ windowStart: sql`${t.rateLimitCounters.windowStart} - 61000` });
    const res = await b.api('GET', '/v1/account', apiKey);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-remaining'), '9', 'a new window counts from zero');
  });

  test('previews have their own shared limit (4), apart from the API limit', async () => {
    const { apiKey } = await a.team(1);
    const body = { definition: { content: [{ text: 'x' }] }, data: {} };
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const r = await (i % 2 ? a : b).api('POST', '/v1/templates/preview', apiKey, body);
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    assert.equal((await a.api('GET', '/v1/account', apiKey)).status, 200, 'the API limit is untouched');
  });

  test('failed authentications of one address count on both nodes: after 3 the address is refused everywhere', async () => {
    const { apiKey } = await a.team(1);
    // The limit is per client address; this test's address is 127.0.0.1 for both nodes. Start clean.
    const { orm, t } = a.server.services.db;
    await orm.delete(t.rateLimitCounters).where(sql`${t.rateLimitCounters.key} like 'auth:%'`);
    assert.equal((await a.api('GET', '/v1/account', 'pk_wrong_1')).status, 401);
    assert.equal((await b.api('GET', '/v1/account', 'pk_wrong_2')).status, 401);
    assert.equal((await a.api('GET', '/v1/account', 'pk_wrong_3')).status, 401);
    const blocked = await b.api('GET', '/v1/account', apiKey);
    assert.equal(blocked.status, 429, 'a correct key from the blocked address is refused on the other node');
    assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
    await orm.delete(t.rateLimitCounters).where(sql`${t.rateLimitCounters.key} like 'auth:%'`);
    assert.equal((await b.api('GET', '/v1/account', apiKey)).status, 200);
  });

  test('the counter itself: concurrent hits on a fresh key from two handles count 1..N once each', async () => {
    const one = new PostgresCounter(a.server.services.db);
    const two = new PostgresCounter(b.server.services.db);
    const counts = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).hit('test:concurrent')));
    assert.deepEqual(counts.map((c) => c.count).sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 1));
    for (const c of counts) assert.ok(c.resetMs > 0 && c.resetMs <= 60_000);
    assert.equal((await one.peek('test:concurrent')).count, 40);
    assert.equal((await two.peek('test:never')).count, 0);
  });

  test('while the counters table fails, each node counts in its own memory: no 500, the limit still holds per node', async () => {
    const { apiKey } = await a.team(1);
    // PostgreSQL only (this describe): a raw statement through drizzle's node-postgres handle.
    const orm = a.server.services.db.orm as unknown as { execute(q: unknown): Promise<unknown> };
    await orm.execute(sql`ALTER TABLE rate_limit_counters RENAME TO rate_limit_counters_away`);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await a.api('GET', '/v1/account', apiKey);
        statuses.push(r.status);
        await r.arrayBuffer();
      }
      assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429], 'the limit of 10 holds on the node, without the database');
      const other = await b.api('GET', '/v1/account', apiKey);
      assert.equal(other.status, 200, 'the other node counts its own requests');
      assert.equal(other.headers.get('ratelimit-remaining'), '9');
    } finally {
      await orm.execute(sql`ALTER TABLE rate_limit_counters_away RENAME TO rate_limit_counters`);
    }
    // Back on the shared table: a fresh key counts there again.
    const fresh = await a.team(1);
    await a.api('GET', '/v1/account', fresh.apiKey).then((r) => r.arrayBuffer());
    assert.equal((await b.api('GET', '/v1/account', fresh.apiKey)).headers.get('ratelimit-remaining'), '8');
  });
});

describe('fallback counter', () => {
  test('a failing shared counter falls back to memory and reports the failure', async () => {
    const failing = { hit: async () => Promise.reject(new Error('db down')), peek: async () => Promise.reject(new Error('db down')) };
    const errors: unknown[] = [];
    const c = new FallbackCounter(failing, 60_000, (e) => errors.push(e));
    assert.equal((await c.hit('k')).count, 1);
    assert.equal((await c.hit('k')).count, 2);
    assert.equal((await c.peek('k')).count, 2);
    assert.equal(errors.length, 3);
  });
});

describe('in-memory counter (one process)', () => {
  test('fixed windows opened by the first hit; a new window counts from zero', async () => {
    let now = 1_000_000;
    const c = new MemoryCounter(60_000, () => now);
    assert.deepEqual(await c.hit('k'), { count: 1, resetMs: 60_000 });
    now += 10_000;
    assert.deepEqual(await c.hit('k'), { count: 2, resetMs: 50_000 });
    assert.deepEqual(await c.peek('k'), { count: 2, resetMs: 50_000 });
    assert.equal((await c.peek('other')).count, 0);
    now += 50_000;
    assert.equal((await c.peek('k')).count, 0, 'the window has ended');
    assert.deepEqual(await c.hit('k'), { count: 1, resetMs: 60_000 });
  });
});
