/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request (raw body bytes,
 * headers, time of arrival) and answers each one as `respond` decides (by 0-based attempt number).
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.ts';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Header names exactly as sent, with their values (pairs). */
  rawHeaders: string[];
  body: Buffer;
  /** Date.now() when the body had fully arrived. */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  /** http://127.0.0.1:<port> (no trailing slash). */
  url: string;
  port: number;
  received: Received[];
  /** Resolve once at least `n` requests have arrived (bounded by `timeoutMs`). */
  waitForCount(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * Start a receiver. `respond` gets the request and its 0-based index; default: 200 to all.
 * `port` 0 picks a free one.
 */
export async function startReceiver(respond: (req: Received, index: number) => Answer | number = () => 200, port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks), at: Date.now() };
      const index = received.length;
      received.push(r);
      const a = respond(r, index);
      const answer: Answer = typeof a === 'number' ? { status: a } : a;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    waitForCount(n, timeoutMs = 30_000) {
      return waitFor(`${n} request(s) at the receiver on port ${bound} (got ${received.length})`, () => received.length >= n && received, timeoutMs);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it (bound, then released): connections are refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
