/**
 * Host name lookups of outbound connections (src/services/host-lookup.ts): a deadline, and a
 * bound on how many hold one of libuv's pool threads at once. A name server that never answers
 * cannot be had on loopback, so the slow cases give HostLookup a resolver that answers when the
 * test says (standing in for the system's getaddrinfo); the last cases go through the real system
 * resolver (localhost, from /etc/hosts) and a real HTTP connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostLookup, hostLookup, type ResolveAll } from '../../src/services/host-lookup.ts';
import { publicOnlyLookup } from '../../src/services/network.ts';

/** A resolver whose answers the test releases by hand; `calls` lists the hosts asked, in order. */
function heldResolver() {
  const calls: string[] = [];
  const pending = new Map<string, () => void>();
  const resolve: ResolveAll = (host) =>
    new Promise<LookupAddress[]>((ok) => {
      calls.push(host);
      pending.set(host, () => ok([{ address: '203.0.113.7', family: 4 }]));
    });
  return { resolve, calls, answer: (host: string) => pending.get(host)!() };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a lookup the resolver does not answer fails with ETIMEOUT at its deadline, and holds its place until the resolver returns', async () => {
  const r = heldResolver();
  const gate = new HostLookup({ concurrency: 1, timeoutMs: 150 }, r.resolve);
  const started = performance.now();
  await assert.rejects(gate.all('silent.example'), (e: NodeJS.ErrnoException) => {
    assert.equal(e.code, 'ETIMEOUT');
    assert.match(e.message, /host "silent\.example" did not resolve within 150 ms/);
    return true;
  });
  assert.ok(performance.now() - started >= 140, 'not before the deadline');
  // The system resolver would still hold a pool thread: the place is not given back yet.
  assert.equal(gate.inFlight, 1);
  r.answer('silent.example');
  await settle();
  assert.equal(gate.inFlight, 0);
});

test('no more than `concurrency` lookups run at once; the others wait their turn, first come first served', async () => {
  const r = heldResolver();
  const gate = new HostLookup({ concurrency: 2, timeoutMs: 5000 }, r.resolve);
  const a = gate.all('a.example');
  const b = gate.all('b.example');
  const c = gate.all('c.example');
  const d = gate.all('d.example');
  await settle();
  assert.deepEqual(r.calls, ['a.example', 'b.example']);
  assert.equal(gate.inFlight, 2);
  r.answer('b.example');
  assert.deepEqual(await b, [{ address: '203.0.113.7', family: 4 }]);
  await settle();
  assert.deepEqual(r.calls, ['a.example', 'b.example', 'c.example']);
  for (const host of ['a.example', 'c.example']) r.answer(host);
  await Promise.all([a, c]);
  await settle();
  r.answer('d.example');
  await d;
  await settle();
  assert.deepEqual(r.calls, ['a.example', 'b.example', 'c.example', 'd.example']);
  assert.equal(gate.inFlight, 0);
});

test('a lookup that waited past its deadline for a place fails and is never started', async () => {
  const r = heldResolver();
  const gate = new HostLookup({ concurrency: 1, timeoutMs: 100 }, r.resolve);
  const first = gate.all('hung.example');
  const second = gate.all('queued.example');
  const firstFails = assert.rejects(first, { code: 'ETIMEOUT' });
  await assert.rejects(second, /host "queued\.example" did not resolve within 100 ms/);
  await firstFails;
  r.answer('hung.example');
  await settle();
  assert.deepEqual(r.calls, ['hung.example'], 'the queued lookup left the line when it gave up');
  // The place is free again for the next one.
  const third = gate.all('next.example');
  await settle();
  r.answer('next.example');
  assert.equal((await third).length, 1);
});

test('a resolver error passes through unchanged', async () => {
  const gate = new HostLookup({ concurrency: 1, timeoutMs: 1000 }, async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
  });
  await assert.rejects(gate.all('nowhere.invalid'), { code: 'ENOTFOUND' });
  assert.equal(gate.inFlight, 0);
});

test("the process's lookups use the system resolver: localhost resolves to loopback", async () => {
  const addresses = await hostLookup.all('localhost');
  assert.ok(addresses.length > 0);
  for (const a of addresses) assert.match(a.address, /^(127\.|::1$)/);
  await settle();
  assert.equal(hostLookup.inFlight, 0);
});

test('an HTTP request resolves its host through the bounded lookups, and a private answer is refused', async () => {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const get = (allowPrivate: boolean) =>
    new Promise<string>((resolve, reject) => {
      const req = request({ host: 'localhost', port, family: 4, agent: false, lookup: publicOnlyLookup(allowPrivate, 'test host') as never }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    assert.equal(await get(true), 'ok');
    await assert.rejects(get(false), (e: NodeJS.ErrnoException) => {
      assert.equal(e.code, 'EPRIVATE');
      assert.match(e.message, /test host localhost resolves to a non-public address \(127\.0\.0\.1\)/);
      return true;
    });
  } finally {
    server.close();
  }
});
