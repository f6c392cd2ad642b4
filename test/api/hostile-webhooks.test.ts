/**
 * Webhook receivers that misbehave on purpose, on real loopback sockets: a receiver must not be
 * able to hold a delivery attempt (and its socket, and in cluster mode a worker's delivery slot)
 * past the attempt's deadline by answering slowly, a byte at a time, or with an endless body.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createJob, deliveryOf, waitForJob } from '../helpers/jobs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';

const GOOD = { content: [{ text: 'Receipt for {{name}}' }] };
/** The attempt deadline of docs/webhooks.md ("an attempt is abandoned after 10 seconds"). */
const ATTEMPT_MS = 10_000;

let s: TestServer;
const closers: Array<() => void> = [];

before(async () => {
  // One retry only, long after the test, so only the first attempt is looked at.
  s = await startTestServer({ PLATEN_WEBHOOK_ALLOW_PRIVATE: 'true', PLATEN_WEBHOOK_RETRY_DELAYS: '600000', PLATEN_RATE_LIMIT: '100000' });
});
after(async () => {
  for (const close of closers) close();
  await s?.close();
});

interface Hostile {
  url: string;
  /** Requests that reached it. */
  arrived: number;
  /** Connections it has open now. */
  open: number;
}

/** An HTTP server answering 200 and then a body that never ends (64 KiB chunks, as fast as it is read). */
async function endlessBody(): Promise<Hostile> {
  const h: Hostile = { url: '', arrived: 0, open: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      h.arrived++;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    });
  });
  return listen(server, h);
}

/** An HTTP server answering 200 at once, then one byte of body every 500 ms, forever. */
async function tricklingBody(): Promise<Hostile> {
  const h: Hostile = { url: '', arrived: 0, open: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      h.arrived++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 500);
      res.on('close', () => clearInterval(timer));
    });
  });
  return listen(server, h);
}

/** A raw TCP server sending a status line and then one byte of a header every 500 ms, forever. */
async function tricklingHeaders(): Promise<Hostile> {
  const h: Hostile = { url: '', arrived: 0, open: 0 };
  const server = net.createServer((socket) => {
    h.open++;
    socket.on('error', () => {});
    socket.on('close', () => h.open--);
    let seen = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => {
      seen += d.toString('latin1');
      if (timer || !seen.includes('\r\n\r\n')) return;
      h.arrived++;
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
      timer = setInterval(() => socket.write('a'), 500);
    });
    socket.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  closers.push(() => server.close());
  return h;
}

async function listen(server: http.Server, h: Hostile): Promise<Hostile> {
  server.on('connection', (socket) => {
    h.open++;
    socket.on('close', () => h.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return h;
}

describe('a webhook receiver cannot hold an attempt past its deadline', () => {
  test('an endless body, a body a byte at a time, headers a byte at a time: each attempt ends and is recorded within the deadline, and its connection is closed', async () => {
    const { teamId, apiKey } = await s.team(10);
    const good = await s.template(teamId, GOOD);
    const receivers = { endless: await endlessBody(), tricklingBody: await tricklingBody(), tricklingHeaders: await tricklingHeaders() };
    const jobs: Record<string, string> = {};
    for (const [name, r] of Object.entries(receivers)) {
      const { job_id } = await createJob(s, apiKey, { template_id: good, data: { name }, webhook_url: r.url });
      jobs[name] = job_id;
    }
    for (const id of Object.values(jobs)) assert.equal((await waitForJob(s, apiKey, id)).status, 'completed');
    await waitFor('every receiver to be reached', () => Object.values(receivers).every((r) => r.arrived === 1), 10_000);
    const started = Date.now();
    // The deadline, and some room for a busy machine.
    const rows = await waitFor(
      'each first attempt to be recorded',
      async () => {
        const all = await Promise.all(Object.values(jobs).map((id) => deliveryOf(s, id)));
        return all.every((row) => row && row.attempts >= 1) && all;
      },
      ATTEMPT_MS + 4000,
    ).catch(async (e) => {
      const all = await Promise.all(Object.entries(jobs).map(async ([name, id]) => [name, await deliveryOf(s, id)] as const));
      throw new Error(`${(e as Error).message} after ${Date.now() - started} ms: ${JSON.stringify(all)}`);
    });
    for (const row of rows) assert.ok(row, 'a delivery row');
    const byName = Object.fromEntries(Object.keys(jobs).map((name, i) => [name, rows[i]!]));
    // A 200 status is the acknowledgement: what follows it is not waited for.
    assert.equal(byName.endless.status, 'delivered', JSON.stringify(byName.endless));
    assert.equal(byName.tricklingBody.status, 'delivered', JSON.stringify(byName.tricklingBody));
    // Headers never finished: a time-out, retried later like any network error.
    assert.equal(byName.tricklingHeaders.last_status_code, null);
    assert.match(byName.tricklingHeaders.last_error ?? '', /time/i);
    await waitFor('the receivers\' connections to be closed', () => Object.values(receivers).every((r) => r.open === 0), 3000).catch(() => {
      throw new Error(`connections still open: ${JSON.stringify(Object.fromEntries(Object.entries(receivers).map(([k, r]) => [k, r.open])))}`);
    });
  });
});
