/**
 * A local HTTPS server of images for URL image tests, with a self-signed certificate made by
 * openssl for 127.0.0.1 (trusted only by the Platen servers the tests start with
 * PLATEN_IMAGE_FETCH_CA_FILE pointing at `caFile`). Counts requests per path and answers
 * conditional requests with 304 where an ETag matches.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One route: status, headers and body, or a handler. */
export type Route = { status?: number; headers?: Record<string, string>; body?: Buffer | string } | ((req: IncomingMessage, res: ServerResponse) => void);

export interface ImageServer {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** PEM file of the self-signed certificate (its own CA). */
  caFile: string;
  /** Requests seen per path, and how many were answered 304. */
  hits: Map<string, number>;
  notModified: Map<string, number>;
  route(path: string, r: Route): void;
  close(): Promise<void>;
}

/** Start the server with `routes` (more with `route()`). A route with an `etag` header answers 304 to a matching If-None-Match. */
export async function startImageServer(routes: Record<string, Route> = {}): Promise<ImageServer> {
  const dir = mkdtempSync(join(tmpdir(), 'platen-https-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  const table = new Map<string, Route>(Object.entries(routes));
  const hits = new Map<string, number>();
  const notModified = new Map<string, number>();
  const server: Server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const r = table.get(path);
    if (!r) {
      res.writeHead(404).end('no such image');
      return;
    }
    if (typeof r === 'function') return r(req, res);
    const etag = r.headers?.etag;
    if (etag && req.headers['if-none-match'] === etag) {
      notModified.set(path, (notModified.get(path) ?? 0) + 1);
      res.writeHead(304, { etag }).end();
      return;
    }
    res.writeHead(r.status ?? 200, r.headers ?? {}).end(r.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    caFile: cert,
    hits,
    notModified,
    route: (path, r) => table.set(path, r),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
