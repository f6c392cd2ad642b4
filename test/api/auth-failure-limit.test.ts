/**
 * Failed authentication is limited per client address (PLATEN_AUTH_FAIL_LIMIT): real servers on
 * loopback, clients on 127.0.0.1 and 127.0.0.2 (the address is the socket's), X-Forwarded-For
 * believed only from PLATEN_TRUSTED_PROXIES. The window's end is checked on the limiter itself
 * with a clock the test moves.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { loadConfig } from '../../src/config.ts';
import { AuthFailureLimiter, limitKey } from '../../src/middleware/auth-failure-limit.ts';
import { expectError } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code?: string; detail?: string };
}

/** GET `path` from the local address `from` (a loopback address), with optional headers. */
function getFrom(s: TestServer, from: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(path, s.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers, localAddress: from, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

const LIMIT = 3;

describe('failed authentications per client address', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startTestServer({ PLATEN_AUTH_FAIL_LIMIT: String(LIMIT) });
    key = (await s.team(1)).apiKey;
  });
  after(() => s.close());

  test(`after ${LIMIT} failures an address gets 429 with Retry-After, even with a valid key; another address does not`, async () => {
    assert.equal((await getFrom(s, '127.0.0.1', '/v1/account', { 'x-api-key': key })).status, 200, 'a success counts nothing');
    for (let i = 0; i < LIMIT; i++) {
      const bad = await getFrom(s, '127.0.0.1', '/v1/account', i === 0 ? {} : { 'x-api-key': `pk_guess_${i}` });
      assert.equal(bad.status, 401, `failure ${i + 1}`);
      assert.equal(bad.body.code, 'UNAUTHORIZED');
    }
    for (const headers of [{ 'x-api-key': 'pk_guess_next' }, { 'x-api-key': key }, {} as Record<string, string>]) {
      const blocked = await getFrom(s, '127.0.0.1', '/v1/account', headers);
      assert.equal(blocked.status, 429, JSON.stringify(headers));
      assert.equal(blocked.body.code, 'RATE_LIMIT_EXCEEDED');
      assert.match(blocked.body.detail ?? '', /failed authentications/);
      const retry = Number(blocked.headers['retry-after']);
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${blocked.headers['retry-after']}`);
    }
    // Another client address is not affected, and routes outside /v1 stay open.
    assert.equal((await getFrom(s, '127.0.0.2', '/v1/account', { 'x-api-key': key })).status, 200);
    assert.equal((await getFrom(s, '127.0.0.2', '/v1/account', { 'x-api-key': 'pk_wrong' })).status, 401);
    assert.equal((await getFrom(s, '127.0.0.1', '/healthz')).status, 200);
  });

  test('X-Forwarded-For is ignored without PLATEN_TRUSTED_PROXIES: varying it does not escape the limit', async () => {
    for (let i = 0; i < LIMIT; i++) {
      assert.equal((await getFrom(s, '127.0.0.3', '/v1/account', { 'x-api-key': 'pk_x', 'x-forwarded-for': `203.0.113.${i}` })).status, 401);
    }
    const res = await getFrom(s, '127.0.0.3', '/v1/account', { 'x-api-key': key, 'x-forwarded-for': '203.0.113.200' });
    assert.equal(res.status, 429);
  });
});

describe('behind a trusted proxy (PLATEN_TRUSTED_PROXIES)', () => {
  let s: TestServer;
  let key: string;
  before(async () => {
    s = await startTestServer({ PLATEN_AUTH_FAIL_LIMIT: String(LIMIT), PLATEN_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
    key = (await s.team(1)).apiKey;
  });
  after(() => s.close());

  test('the client is the last X-Forwarded-For hop that is not a trusted proxy', async () => {
    for (let i = 0; i < LIMIT; i++) {
      // A spoofed first hop is not believed: the client is the hop the trusted proxies saw.
      const r = await getFrom(s, '127.0.0.1', '/v1/account', { 'x-api-key': 'pk_x', 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7, 10.1.2.3` });
      assert.equal(r.status, 401);
    }
    assert.equal((await getFrom(s, '127.0.0.1', '/v1/account', { 'x-api-key': key, 'x-forwarded-for': '203.0.113.7' })).status, 429);
    assert.equal((await getFrom(s, '127.0.0.1', '/v1/account', { 'x-api-key': key, 'x-forwarded-for': '203.0.113.8' })).status, 200, 'another client behind the proxy');
    // A peer that is not a trusted proxy is the client itself, whatever it forwards.
    assert.equal((await getFrom(s, '127.0.0.2', '/v1/account', { 'x-api-key': key, 'x-forwarded-for': '203.0.113.7' })).status, 200);
  });

  test('a bad PLATEN_TRUSTED_PROXIES entry stops start-up naming the variable', () => {
    assert.throws(() => loadConfig({ PLATEN_DATA_DIR: s.dataDir, PLATEN_TRUSTED_PROXIES: '10.0.0.0/8,proxy.local' }), /PLATEN_TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR range/);
    assert.throws(() => loadConfig({ PLATEN_DATA_DIR: s.dataDir, PLATEN_AUTH_FAIL_LIMIT: '0' }), /PLATEN_AUTH_FAIL_LIMIT/);
  });
});

describe('AuthFailureLimiter windows', () => {
  test('the window frees one minute after its first failure; Retry-After counts down', () => {
    let now = 1_000_000;
    const limiter = new AuthFailureLimiter(2, 60_000, () => now);
    limiter.recordFailure('192.0.2.1');
    now += 10_000;
    limiter.recordFailure('192.0.2.1');
    assert.equal(limiter.blockedFor('192.0.2.1'), 50);
    assert.equal(limiter.blockedFor('192.0.2.2'), 0);
    now += 49_500;
    assert.equal(limiter.blockedFor('192.0.2.1'), 1);
    now += 500;
    assert.equal(limiter.blockedFor('192.0.2.1'), 0, 'the window has ended');
    limiter.recordFailure('192.0.2.1');
    assert.equal(limiter.blockedFor('192.0.2.1'), 0, 'a new window counts from zero');
  });

  test('IPv6 addresses count per /64', () => {
    assert.equal(limitKey('2001:db8:1:2::1'), limitKey('2001:db8:1:2:ffff::9'));
    assert.notEqual(limitKey('2001:db8:1:2::1'), limitKey('2001:db8:1:3::1'));
    assert.equal(limitKey('192.0.2.1'), '192.0.2.1');
    const limiter = new AuthFailureLimiter(1);
    limiter.recordFailure('2001:db8:1:2::1');
    assert.ok(limiter.blockedFor('2001:db8:1:2::abcd') > 0);
    assert.equal(limiter.blockedFor('2001:db8:1:3::1'), 0);
  });
});

test('PLATEN_AUTH_FAIL_LIMIT=1: one failure blocks the next request, a JSON error like any other', async () => {
  const s = await startTestServer({ PLATEN_AUTH_FAIL_LIMIT: '1' });
  try {
    await expectError(await s.api('GET', '/v1/account', 'pk_nope'), 401, 'UNAUTHORIZED');
    const res = await s.api('GET', '/v1/account', (await s.team(1)).apiKey);
    assert.ok(res.headers.get('retry-after'));
    await expectError(res, 429, 'RATE_LIMIT_EXCEEDED');
  } finally {
    await s.close();
  }
});
