/**
 * Host name lookups of outbound connections (src/services/host-lookup.ts).
 * - Public targets: real DNS queries to a DNS server on 127.0.0.1 (test/helpers/dns-server.ts):
 *   answers checked for private addresses, a server that never answers cut off at the deadline
 *   without holding up other lookups, through the API as well.
 * - Private-allowed targets (the system resolver, getaddrinfo): the deadline and the bound on
 *   lookups holding one of libuv's pool threads. getaddrinfo cannot be pointed at a test server, so
 *   the slow cases give HostLookup a resolver that answers when the test says; the real system
 *   resolver is used for localhost (from /etc/hosts) and a real HTTP connection.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HostLookup, hostLookup, type HostLookupLimits, type ResolveAll } from '../../src/services/host-lookup.ts';
import { publicOnlyLookup, webhookUrlProblem } from '../../src/services/network.ts';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { startTestServer } from '../helpers/server.ts';
import { expectValidationError } from '../helpers/api.ts';
import { after, before } from 'node:test';

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
const limits = (l: Partial<HostLookupLimits>): HostLookupLimits => ({ timeoutMs: 1000, concurrency: 2, servers: [], ...l });

test('a lookup the resolver does not answer fails with ETIMEOUT at its deadline, and holds its place until the resolver returns', async () => {
  const r = heldResolver();
  const gate = new HostLookup(limits({ concurrency: 1, timeoutMs: 150 }), r.resolve);
  const started = performance.now();
  await assert.rejects(gate.systemAddresses('silent.example'), (e: NodeJS.ErrnoException) => {
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
  const gate = new HostLookup(limits({ concurrency: 2, timeoutMs: 5000 }), r.resolve);
  const a = gate.systemAddresses('a.example');
  const b = gate.systemAddresses('b.example');
  const c = gate.systemAddresses('c.example');
  const d = gate.systemAddresses('d.example');
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
  const gate = new HostLookup(limits({ concurrency: 1, timeoutMs: 100 }), r.resolve);
  const first = gate.systemAddresses('hung.example');
  const second = gate.systemAddresses('queued.example');
  const firstFails = assert.rejects(first, { code: 'ETIMEOUT' });
  await assert.rejects(second, /host "queued\.example" did not resolve within 100 ms/);
  await firstFails;
  r.answer('hung.example');
  await settle();
  assert.deepEqual(r.calls, ['hung.example'], 'the queued lookup left the line when it gave up');
  // The place is free again for the next one.
  const third = gate.systemAddresses('next.example');
  await settle();
  r.answer('next.example');
  assert.equal((await third).length, 1);
});

test('a resolver error passes through unchanged', async () => {
  const gate = new HostLookup(limits({ concurrency: 1, timeoutMs: 1000 }), async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
  });
  await assert.rejects(gate.systemAddresses('nowhere.invalid'), { code: 'ENOTFOUND' });
  assert.equal(gate.inFlight, 0);
});

test("the process's lookups use the system resolver: localhost resolves to loopback", async () => {
  const addresses = await hostLookup.systemAddresses('localhost');
  assert.ok(addresses.length > 0);
  for (const a of addresses) assert.match(a.address, /^(127\.|::1$)/);
  await settle();
  assert.equal(hostLookup.inFlight, 0);
});

test('an HTTP request resolves its host through the lookups it is given, and a private answer is refused', async () => {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const get = (allowPrivate: boolean, lookups?: HostLookup) =>
    new Promise<string>((resolve, reject) => {
      const req = request({ host: 'localhost', port, family: 4, agent: false, lookup: publicOnlyLookup(allowPrivate, 'test host', lookups) as never }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    assert.equal(await get(true), 'ok');
    // The lookup goes through the HostLookup: one whose resolver never answers fails the request at its deadline.
    const held = heldResolver();
    await assert.rejects(get(true, new HostLookup(limits({ timeoutMs: 200 }), held.resolve)), { code: 'ETIMEOUT' });
    assert.deepEqual(held.calls, ['localhost']);
    await assert.rejects(get(false), (e: NodeJS.ErrnoException) => {
      assert.equal(e.code, 'EPRIVATE');
      assert.match(e.message, /test host localhost resolves to a non-public address \(127\.0\.0\.1\)/);
      return true;
    });
  } finally {
    server.close();
  }
});

describe('public targets: DNS', () => {
  let dns: DnsServer;
  let lookups: HostLookup;
  before(async () => {
    dns = await startDnsServer({
      'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
      'private.test': ['10.0.0.5'],
      'mixed.test': ['93.184.216.34', '::1'],
      'metadata.test': ['169.254.169.254'],
      'silent.test': 'silent',
      'v6only.test': ['2606:2800:220:1:248:1893:25c8:1946'],
    });
    lookups = new HostLookup(limits({ timeoutMs: 400, servers: [dns.address] }));
  });
  after(() => dns.close());

  test('A and AAAA records are both asked and both kept; a name without an address or unknown is ENOTFOUND', async () => {
    const all = await lookups.publicAddresses('public.test');
    assert.deepEqual(all.map((a) => `${a.family}:${a.address}`).sort(), ['4:93.184.216.34', '6:2606:2800:220:1:248:1893:25c8:1946']);
    assert.deepEqual((await lookups.publicAddresses('v6only.test')).map((a) => a.family), [6]);
    assert.deepEqual((await lookups.publicAddresses('public.test', 4)).map((a) => a.address), ['93.184.216.34']);
    await assert.rejects(lookups.publicAddresses('nowhere.test'), { code: 'ENOTFOUND', message: 'host "nowhere.test" has no address' });
    assert.ok(dns.queries.some((q) => q.name === 'public.test' && q.type === 'AAAA'));
  });

  test('localhost is loopback without a query', async () => {
    const before = dns.queries.length;
    assert.deepEqual((await lookups.publicAddresses('api.localhost')).map((a) => a.address), ['127.0.0.1', '::1']);
    assert.equal(dns.queries.length, before);
  });

  test('a name server that never answers: ETIMEOUT at the deadline, and the other lookups meanwhile are not held up', async () => {
    const started = performance.now();
    const silent = Array.from({ length: 20 }, () => lookups.publicAddresses('silent.test'));
    const good = await lookups.publicAddresses('public.test');
    assert.ok(performance.now() - started < 300, `a good name answered in ${Math.round(performance.now() - started)} ms beside 20 silent ones`);
    assert.equal(good.length, 2);
    for (const p of silent) await assert.rejects(p, { code: 'ETIMEOUT', message: 'host "silent.test" did not resolve within 400 ms' });
    assert.ok(performance.now() - started < 2000);
  });

  test('webhook targets are judged on the DNS answers: private, link-local or partly loopback names are refused, a silent name in time', async () => {
    hostLookup.configure(limits({ timeoutMs: 400, servers: [dns.address] }));
    try {
      assert.equal(await webhookUrlProblem('https://public.test/hook', false), null);
      for (const host of ['private.test', 'mixed.test', 'metadata.test']) {
        assert.equal(await webhookUrlProblem(`https://${host}/hook`, false), 'must not point to a private, loopback or reserved address', host);
      }
      assert.equal(await webhookUrlProblem('https://silent.test/hook', false), 'host "silent.test" did not resolve within 400 ms');
      assert.equal(await webhookUrlProblem('https://nowhere.test/hook', false), 'host "nowhere.test" does not resolve');
    } finally {
      hostLookup.configure(limits({}));
    }
  });

  test('through the API: PLATEN_DNS_SERVERS and PLATEN_DNS_TIMEOUT_MS reach the checks of webhook_url and S3 endpoints', async () => {
    const s = await startTestServer({ PLATEN_DNS_SERVERS: dns.address, PLATEN_DNS_TIMEOUT_MS: '300' });
    try {
      const { teamId, apiKey } = await s.team(2);
      const tpl = await s.template(teamId, { content: [{ text: 'x' }] });
      const privateHook = await expectValidationError(await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: tpl, data: {}, webhook_url: 'https://private.test/h' }), 'webhook_url');
      assert.match(privateHook.errors![0]!.message, /private, loopback or reserved/);
      const started = performance.now();
      const silentHook = await expectValidationError(await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: tpl, data: {}, webhook_url: 'https://silent.test/h' }), 'webhook_url');
      assert.match(silentHook.errors![0]!.message, /host "silent\.test" did not resolve within 300 ms/);
      assert.ok(performance.now() - started < 3000);
      const endpoint = await expectValidationError(
        await s.api('POST', '/v1/integrations/s3', apiKey, { bucket: 'acme-files', region: 'us-east-1', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secretsecret', endpoint: 'https://private.test' }),
        'endpoint',
      );
      assert.match(endpoint.errors![0]!.message, /PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS/);
      assert.ok(dns.queries.some((q) => q.name === 'private.test'));
    } finally {
      await s.close();
    }
  });
});
