/**
 * Open connections are capped, in all and per client address (src/connection-limit.ts): clients
 * that open connections and never finish a request (slowloris) took a server to 19,218 of its
 * 20,000 file descriptors, and then every request failed, health checks included.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { connectionKey, defaultMaxConnections } from '../../src/connection-limit.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** A connection that sends half a request's headers and waits; resolves once it is open. */
async function halfRequest(url: string): Promise<Socket> {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  return socket;
}

/** GET /healthz on a connection of its own: its status, or 'refused' when the connection is closed unanswered. */
function health(url: string): Promise<number | 'refused'> {
  return new Promise((resolve) => {
    const req = get(new URL('/healthz', url), { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('refused'));
  });
}

const settle = () => new Promise((r) => setTimeout(r, 200));

test('one address may hold PLATEN_MAX_CONNECTIONS_PER_ADDRESS connections; past it a connection is closed, and the slots come back when they close', async () => {
  const s = await startTestServer({ PLATEN_MAX_CONNECTIONS_PER_ADDRESS: '5' });
  servers.push(s);
  const held = await Promise.all(Array.from({ length: 5 }, () => halfRequest(s.url)));
  await settle();
  assert.equal(await health(s.url), 'refused');
  for (const socket of held) socket.destroy();
  await settle();
  assert.equal(await health(s.url), 200);
});

test('a trusted proxy is not limited per address (its clients share it)', async () => {
  const s = await startTestServer({ PLATEN_MAX_CONNECTIONS_PER_ADDRESS: '2', PLATEN_TRUSTED_PROXIES: '127.0.0.1' });
  servers.push(s);
  const held = await Promise.all(Array.from({ length: 4 }, () => halfRequest(s.url)));
  await settle();
  assert.equal(await health(s.url), 200);
  for (const socket of held) socket.destroy();
});

test('PLATEN_MAX_CONNECTIONS caps all connections; the default is 80 % of the open-file limit', async () => {
  const s = await startTestServer({ PLATEN_MAX_CONNECTIONS: '4', PLATEN_MAX_CONNECTIONS_PER_ADDRESS: '100' });
  servers.push(s);
  const held = await Promise.all(Array.from({ length: 4 }, () => halfRequest(s.url)));
  await settle();
  assert.equal(await health(s.url), 'refused');
  held[0].destroy();
  await settle();
  assert.equal(await health(s.url), 200);
  for (const socket of held) socket.destroy();
  const limits = (n: string) => () => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${n}                 524288               files\n`;
  assert.equal(defaultMaxConnections(limits('1024')), 819);
  assert.equal(defaultMaxConnections(limits('unlimited')), 50_000);
  assert.equal(defaultMaxConnections(limits('1048576')), 50_000);
  assert.equal(defaultMaxConnections(() => { throw new Error('no /proc'); }), 800);
});

test('connections are counted per IPv4 address and per IPv6 /64 (one client holds a whole /64)', () => {
  assert.equal(connectionKey('2001:db8:1:2:3:4:5:6'), connectionKey('2001:db8:1:2:ffff::1'));
  assert.notEqual(connectionKey('2001:db8:1:2::1'), connectionKey('2001:db8:1:3::1'));
  assert.equal(connectionKey('::ffff:127.0.0.1'), '127.0.0.1');
  assert.equal(connectionKey('192.0.2.7'), '192.0.2.7');
  assert.notEqual(connectionKey('192.0.2.7'), connectionKey('192.0.2.8'));
});
