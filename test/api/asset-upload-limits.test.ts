/**
 * Asset uploads are limited by PLATEN_ASSET_MAX_BYTES before they are read (real server): a
 * declared Content-Length over it is answered 413 without waiting for the body, a chunked one
 * is cut off as it streams; an upload within it is stored. The limit is its own, so an asset may
 * be larger than PLATEN_MAX_BODY_BYTES (JSON bodies) when the operator says so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { encodePng } from '../helpers/images.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ASSET_MAX = 200_000;
let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_ASSET_MAX_BYTES: String(ASSET_MAX), PLATEN_MAX_BODY_BYTES: '100000' });
});
after(async () => {
  await s.close();
});

/** Send the headers and `first` bytes of a body, never the rest; resolve with the status when it comes. */
function partialUpload(apiKey: string, headers: Record<string, string | number>, first: Buffer, chunks = 0): Promise<{ status: number; body: string }> {
  const u = new URL(`${s.url}/v1/assets`);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'multipart/form-data; boundary=XyZ', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' || (e as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(e)));
    req.write(first);
    for (let i = 0; i < chunks; i++) req.write(Buffer.alloc(64 * 1024, 0x41));
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('no answer within 10 s: the server waited for the body'));
    }, 10_000);
    req.on('response', () => clearTimeout(timer));
    req.on('close', () => clearTimeout(timer));
  });
}

test('a Content-Length over PLATEN_ASSET_MAX_BYTES and the framing is 413 before the body is sent', async () => {
  const { apiKey } = await s.team(1);
  const res = await partialUpload(apiKey, { 'content-length': ASSET_MAX + 64 * 1024 + 1 }, Buffer.from('--XyZ\r\n'));
  assert.equal(res.status, 413, res.body);
  const body = JSON.parse(res.body) as { code: string; detail: string };
  assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
  assert.match(body.detail, /PLATEN_ASSET_MAX_BYTES/);
});

test('a chunked upload is cut off once it passes the limit', async () => {
  const { apiKey } = await s.team(1);
  const res = await partialUpload(apiKey, { 'transfer-encoding': 'chunked' }, Buffer.from('--XyZ\r\n'), 6);
  assert.equal(res.status, 413, res.body);
});

test('an asset larger than PLATEN_MAX_BODY_BYTES but within PLATEN_ASSET_MAX_BYTES is stored; JSON bodies keep their limit', async () => {
  const { apiKey } = await s.team(1);
  // Noise does not compress: about 150 KB of PNG.
  const bytes = randomBytes(200 * 190 * 3);
  let i = 0;
  const noise = () => bytes[i++];
  const png = encodePng(200, 190, () => [noise(), noise(), noise(), 255]);
  assert.ok(png.length > 100_000 && png.length < ASSET_MAX, `png ${png.length} bytes`);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'noise.png');
  const res = await s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  assert.equal(((await res.json()) as { bytes: number }).bytes, png.length);
  const json = await s.api('POST', '/v1/templates', apiKey, { name: 'big', type: 'pdf', definition: { content: [{ text: 'x'.repeat(120_000) }] } });
  assert.equal(json.status, 413);
});

test('an upload that is not multipart, a multipart body that cannot be read and one without "file" say so, naming file', async () => {
  const { apiKey } = await s.team(0);
  // A JSON body was told 'the request body must be JSON: send the header content-type: application/json'.
  for (const contentType of ['application/json', 'text/plain']) {
    const res = await s.api('POST', '/v1/assets', apiKey, '{}', { 'content-type': contentType });
    assert.equal(res.status, 415);
    const body = (await res.json()) as { code: string; detail: string };
    assert.equal(body.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(body.detail, /multipart\/form-data/);
    assert.doesNotMatch(body.detail, /application\/json/);
  }
  // 'Malformed FormData request. Failed to parse body as FormData.' as 400 BAD_REQUEST, no field.
  const garbage = await s.api('POST', '/v1/assets', apiKey, 'garbage', { 'content-type': 'multipart/form-data; boundary=zzz' });
  assert.equal(garbage.status, 400);
  const g = (await garbage.json()) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(g.code, 'VALIDATION_ERROR');
  assert.equal(g.errors[0].path, 'file');
  // 'Invalid input: expected nonoptional, received undefined'.
  const form = new FormData();
  form.append('other', new Blob([new Uint8Array(encodePng(2, 2, () => [0, 0, 0, 255]))]), 'a.png');
  const none = await s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  assert.equal(none.status, 400);
  const n = (await none.json()) as { errors: { path: string; message: string }[] };
  assert.equal(n.errors[0].path, 'file');
  assert.match(n.errors[0].message, /field named "file"/);
  // Two files: one of them was kept, silently.
  const two = new FormData();
  two.append('file', new Blob([new Uint8Array(encodePng(2, 2, () => [0, 0, 0, 255]))]), 'a.png');
  two.append('file', new Blob([new Uint8Array(encodePng(3, 3, () => [0, 0, 0, 255]))]), 'b.png');
  const both = await s.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': apiKey }, body: two });
  assert.equal(both.status, 400);
  const b = (await both.json()) as { errors: { path: string; message: string }[] };
  assert.equal(b.errors[0].path, 'file');
  assert.match(b.errors[0].message, /2 fields named "file": upload one file per request/);
});
