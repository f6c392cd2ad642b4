/**
 * The image fetcher on its own, against a local HTTPS server with a self-signed certificate
 * trusted only here: Last-Modified revalidation, the cache's byte budget, answers that are not
 * cached (no validator, no-store), one request for concurrent fetches of a URL, and the address
 * rules (IP literals refused before connecting, names refused on the resolved address).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ImageFetchError, ImageFetcher, sniffImageType } from '../../src/services/image-fetch.ts';
import { startImageServer, type ImageServer } from '../helpers/https-images.ts';
import { encodePng } from '../helpers/images.ts';

const png = (n: number) => encodePng(n, n, (x, y) => [x * 9, y * 9, 99, 255]);
let server: ImageServer;
let ca: string;

before(async () => {
  server = await startImageServer();
  ca = readFileSync(server.caFile, 'utf8');
});
after(() => server.close());

const fetcher = (cacheBytes: number, allowPrivate = true) => new ImageFetcher({ allowPrivate, maxBytes: 1 << 20, timeoutMs: 5000, cacheBytes, ca });

test('Last-Modified revalidation: a 304 keeps the cached bytes', async () => {
  const body = png(4);
  let conditional = 0;
  server.route('/lm.png', (req, res) => {
    if (req.headers['if-modified-since'] === 'Wed, 21 Oct 2026 07:28:00 GMT') {
      conditional++;
      res.writeHead(304).end();
    } else res.writeHead(200, { 'last-modified': 'Wed, 21 Oct 2026 07:28:00 GMT' }).end(body);
  });
  const f = fetcher(1 << 20);
  const url = `${server.origin}/lm.png`;
  assert.deepEqual(await f.fetch(url), body);
  assert.deepEqual(await f.fetch(url), body);
  assert.equal(conditional, 1);
  assert.equal(server.hits.get('/lm.png'), 2);
});

test('the cache keeps within its byte budget, least recently used out first; no-store and validator-less answers are not kept', async () => {
  const big = png(40); // a few KB
  for (const name of ['a', 'b', 'c']) server.route(`/${name}.png`, { headers: { etag: `"${name}"` }, body: big });
  server.route('/nostore.png', { headers: { etag: '"n"', 'cache-control': 'no-store' }, body: big });
  server.route('/plain.png', { body: big });
  const f = fetcher(big.length * 2 + 200);
  for (const name of ['a', 'b', 'c']) await f.fetch(`${server.origin}/${name}.png`);
  assert.equal(f.cacheStats.entries, 2, 'the budget holds two');
  assert.ok(f.cacheStats.bytes <= big.length * 2 + 200);
  await f.fetch(`${server.origin}/nostore.png`);
  await f.fetch(`${server.origin}/plain.png`);
  assert.equal(f.cacheStats.entries, 2, 'neither was kept');
  const before304 = server.notModified.get('/c.png') ?? 0;
  await f.fetch(`${server.origin}/c.png`);
  assert.equal(server.notModified.get('/c.png'), before304 + 1, 'c is still cached: revalidated');
  const aHits = server.hits.get('/a.png')!;
  await f.fetch(`${server.origin}/a.png`);
  assert.equal(server.hits.get('/a.png'), aHits + 1);
  assert.equal(server.notModified.get('/a.png') ?? 0, 0, 'a was evicted: fetched whole again');
});

test('concurrent fetches of one URL share one request', async () => {
  server.route('/once.png', (_req, res) => setTimeout(() => res.writeHead(200).end(png(3)), 200));
  const f = fetcher(0);
  const all = await Promise.all(Array.from({ length: 5 }, () => f.fetch(`${server.origin}/once.png`)));
  assert.equal(all.length, 5);
  assert.equal(server.hits.get('/once.png'), 1);
});

test('without allowPrivate: loopback names and literals are refused before any request', async () => {
  const f = fetcher(0, false);
  const hits = [...server.hits.values()].reduce((a, b) => a + b, 0);
  for (const url of [`${server.origin}/a.png`, `https://localhost:${new URL(server.origin).port}/a.png`, 'https://[::ffff:127.0.0.1]/a.png', 'https://169.254.169.254/latest']) {
    await assert.rejects(f.fetch(url), (e: unknown) => e instanceof ImageFetchError && /non-public|private, loopback or reserved/.test(e.message), url);
  }
  assert.equal([...server.hits.values()].reduce((a, b) => a + b, 0), hits, 'nothing reached the server');
  await assert.rejects(f.fetch('https://user:pw@example.com/a.png'), /credentials/);
  await assert.rejects(f.fetch('ftp://example.com/a.png'), /only https/);
});

test('an untrusted certificate is refused', async () => {
  const f = new ImageFetcher({ allowPrivate: true, maxBytes: 1 << 20, timeoutMs: 5000, cacheBytes: 0 });
  await assert.rejects(f.fetch(`${server.origin}/lm.png`), /connection failed \(.*(SELF_SIGNED|CERT|self-signed)/i);
});

test('sniffImageType: PNG, JPEG, SVG (after an XML declaration and comments); anything else null', () => {
  assert.equal(sniffImageType(png(1)), 'image/png');
  assert.equal(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
  assert.equal(sniffImageType(Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- logo --><svg xmlns="http://www.w3.org/2000/svg"/>')), 'image/svg+xml');
  assert.equal(sniffImageType(Buffer.from('<html><svg/></html>')), null);
  assert.equal(sniffImageType(Buffer.from('GIF89a')), null);
});

test('the body of a redirect is not read: its connection is closed at once, even while the server keeps sending', async () => {
  const body = png(3);
  let closed = false;
  server.route('/ok-after-redirect.png', { body });
  server.route('/endless-redirect', (req, res) => {
    res.writeHead(302, { location: '/ok-after-redirect.png' });
    const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024, 0x20)), 5);
    req.socket.on('close', () => {
      clearInterval(timer);
      closed = true;
    });
  });
  const f = fetcher(0);
  assert.deepEqual(await f.fetch(`${server.origin}/endless-redirect`), body);
  for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(closed, 'the redirect connection was closed within a second, not drained until the 5 s deadline');
});
