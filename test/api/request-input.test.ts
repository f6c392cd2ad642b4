/**
 * What the HTTP layer takes from a request before any route sees it, on a real server: strings
 * that are not Unicode text (a lone UTF-16 surrogate sent as a JSON escape) or not storable (NUL), list queries' numbers,
 * unknown body fields, and compressed request bodies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { firstInvalidUtf8 } from '../../src/middleware/body-text.ts';
import { expectError, expectValidationError, rawRows } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let team: { teamId: string; apiKey: string };
let tpl: string;

before(async () => {
  s = await startTestServer();
  team = await s.team(100);
  tpl = await s.template(team.teamId, { content: [{ text: 'Hello {{name}}' }] });
});
after(async () => {
  await s.close();
});

describe('lone UTF-16 surrogates', () => {
  test('a template name with a lone surrogate is refused naming `name`, and nothing is stored', async () => {
    // Raw JSON text: the escape \ud800 alone, as a client's JSON.stringify writes a broken string.
    const res = await s.api('POST', '/v1/templates', team.apiKey, '{"name": "a\\ud800b", "type": "image", "definition": {"content": []}}');
    const body = await expectValidationError(res, 'name');
    assert.match(body.errors![0].message, /unpaired UTF-16 surrogate \(\\ud800 at character 2\)/);
    const list = (await (await s.api('GET', '/v1/templates', team.apiKey)).json()) as { templates: { name: string }[] };
    assert.ok(!list.templates.some((t) => t.name.startsWith('a') && t.name.endsWith('b')), `nothing stored: ${JSON.stringify(list.templates)}`);
  });

  test('every string of a body is covered: deep in a definition, in data, a low half alone, a key', async () => {
    const definition = '{"content": [{"text": "ok"}, {"text": "x\\udc00"}]}';
    await expectValidationError(await s.api('POST', '/v1/templates', team.apiKey, `{"name": "n", "type": "pdf", "definition": ${definition}}`), 'definition.content[1].text');
    // An async job stores its data: refused before any credit moves.
    const asyncRes = await s.api('POST', '/v1/pdf/create-async', team.apiKey, `{"template_id": "${tpl}", "data": {"items": [{"name": "\\ud83d"}]}}`);
    await expectValidationError(asyncRes, 'data.items[0].name');
    assert.equal((await rawRows(s.server.services.db, 'jobs', 'team_id', team.teamId)).length, 0, 'no job stored');
    const keyRes = await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {"a\\udfffb": 1}}`);
    const keyBody = await expectValidationError(keyRes, 'data');
    assert.match(keyBody.errors![0].message, /the key "a\\udfffb" holds an unpaired UTF-16 surrogate/);
    // A body with other faults too: every fault is listed.
    const both = await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {}, "filename": "\\ud800", "expiration": 1}`);
    const bothBody = await expectValidationError(both, 'filename');
    assert.ok(bothBody.errors!.some((e) => e.path === 'expiration'), JSON.stringify(bothBody.errors));
    assert.ok(bothBody.errors!.some((e) => e.path === 'filename' && /surrogate/.test(e.message)), JSON.stringify(bothBody.errors));
  });

  test('a deeply nested body with a surrogate in it is walked in linear time', async () => {
    // 150,000 objects nested in an unknown field (900 KB): each object's place was looked up from
    // the root again (whether it is in `data`), 10^10 steps that held the event loop for minutes.
    const deep = '{"a":'.repeat(150_000) + '1' + '}'.repeat(150_000);
    const started = Date.now();
    const res = await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {}, "filename": "\\ud800", "x": ${deep}}`);
    const body = await expectValidationError(res, 'filename');
    assert.ok(body.errors!.some((e) => e.path === 'x'), JSON.stringify(body.errors));
    assert.ok(Date.now() - started < 3000, `answered in ${Date.now() - started} ms`);
  });

  test('a long key above many faults is not repeated in each: the answer stays small', async () => {
    // 1 MB of key above 100 lone surrogates: each fault's path (and a key's message) held the
    // whole key, 100 MB of answer for 1 MB sent (a 10 MB body: more than a string can hold).
    const key = 'k'.repeat(1_000_000);
    const strings = Array(100).fill('"\\ud800"').join(',');
    const res = await s.api('POST', '/v1/templates', team.apiKey, `{"name": "n", "type": "image", "definition": {"${key}": [${strings}], "${key}\\udc00": 1}}`);
    const text = await res.clone().text();
    assert.ok(text.length < 100_000, `the answer is ${text.length} characters`);
    const body = await expectValidationError(res, 'definition');
    assert.equal(body.errors!.length, 100);
    assert.match(body.errors![0].message, /^the key "k+\.\.\.k+\\udc00" holds an unpaired UTF-16 surrogate/);
    assert.match(body.errors![1].path, /^definition\.k+\.\.\.k+\[0\]$/);
    assert.ok(body.errors!.every((e) => e.path.length <= 200 && e.message.length < 500), JSON.stringify(body.errors![0]));
  });

  test('a surrogate pair, escaped or as UTF-8, is text and goes through', async () => {
    const res = await s.api('POST', '/v1/templates', team.apiKey, '{"name": "smile \\ud83d\\ude00 😀", "type": "image", "definition": {"content": []}}');
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(((await res.json()) as { name: string }).name, 'smile 😀 😀');
  });
});

describe('bytes that are not UTF-8', () => {
  test('a JSON body with bytes that are not UTF-8 (a lone 0xff, CESU-8 surrogates, an overlong form) is 400 naming the byte; nothing stored', async () => {
    for (const [bad, at] of [
      [Buffer.from([0xff]), 0],
      [Buffer.from([0xed, 0xa0, 0x80]), 0],
      [Buffer.from([0xc0, 0xaf]), 0],
      [Buffer.from([0xe2, 0x82]), 0],
    ] as const) {
      const head = Buffer.from('{"name": "bad ');
      const body = Buffer.concat([head, bad, Buffer.from(' byte", "type": "image", "definition": {"content": []}}')]);
      const res = await s.fetch('/v1/templates', { method: 'POST', headers: { 'x-api-key': team.apiKey, 'content-type': 'application/json' }, body });
      const e = await expectError(res, 400, 'BAD_REQUEST');
      assert.match(e.detail, new RegExp(`not valid UTF-8: byte ${head.length + at} \\(`), e.detail);
      // The same body gzipped: checked once inflated.
      const zipped = await s.fetch('/v1/templates', { method: 'POST', headers: { 'x-api-key': team.apiKey, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(body) });
      await expectError(zipped, 400, 'BAD_REQUEST');
    }
    const list = (await (await s.api('GET', '/v1/templates', team.apiKey)).json()) as { templates: { name: string }[] };
    assert.ok(!list.templates.some((t) => t.name.startsWith('bad ')), JSON.stringify(list.templates.map((t) => t.name)));
    // U+FFFD itself, and four-byte characters, are text.
    const ok = await s.fetch('/v1/templates', { method: 'POST', headers: { 'x-api-key': team.apiKey, 'content-type': 'application/json' }, body: Buffer.from('{"name": "fine \uFFFD \u{1F600}", "type": "image", "definition": {"content": []}}') });
    assert.equal(ok.status, 201);
  });

  test('firstInvalidUtf8 agrees with Node on every byte string, and points at a byte where decoding breaks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 3 }), (noise, texts) => {
        const bytes = Buffer.concat([Buffer.from(texts[0] ?? ''), noise, Buffer.from(texts.slice(1).join(''))]);
        const at = firstInvalidUtf8(bytes);
        assert.equal(at === -1, isUtf8(bytes));
        if (at >= 0) {
          assert.ok(isUtf8(bytes.subarray(0, at)), 'everything before it is UTF-8');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('NUL characters', () => {
  test('a NUL in a stored string (a template name, a key, a filename) is refused naming it; in data it is drawn as nothing', async () => {
    // PostgreSQL cannot store U+0000 in a text column: a template name with one was a 500 there.
    const named = await s.api('POST', '/v1/templates', team.apiKey, '{"name": "a\\u0000b", "type": "pdf", "definition": {"content": [{"text": "x\\u0000y"}]}}');
    const body = await expectValidationError(named, 'name');
    assert.ok(body.errors!.some((e) => e.path === 'name' && /^the text holds a NUL character \(\\u0000 at character 2\)/.test(e.message)), JSON.stringify(body.errors));
    assert.ok(body.errors!.some((e) => e.path === 'definition.content[0].text'), JSON.stringify(body.errors));
    await expectValidationError(await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {}, "filename": "a\\u0000"}`), 'filename');
    // The render's data is not stored as text: a NUL there is drawn as nothing, as any control character.
    const rendered = await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "export_type": "binary", "data": {"name": "Ada\\u0000 Lovelace", "k\\u0000": 1}}`);
    assert.equal(rendered.status, 200, await rendered.clone().text());
  });

  test('a path id with a NUL names no template: 404, not a database error', async () => {
    for (const path of ['/v1/templates/%00', '/v1/templates/a%00b', '/v1/templates/%00/fields', '/v1/templates/%00/versions']) {
      await expectError(await s.api('GET', path, team.apiKey), 404, 'TEMPLATE_NOT_FOUND');
    }
  });
});

describe('numbers in list queries', () => {
  const lists = ['/v1/pdf/jobs', '/v1/templates', '/v1/account/transactions', '/v1/assets'];

  test('limit and offset are plain decimal integers: hex, spaces, exponents, fractions and signs are refused', async () => {
    for (const list of lists) {
      for (const [query, path] of [
        ['limit=0x10', 'limit'],
        ['limit=%2010%20', 'limit'],
        ['limit=1e1', 'limit'],
        ['limit=10.0', 'limit'],
        ['limit=%2B5', 'limit'],
        ['limit=', 'limit'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['offset=-0', 'offset'],
        ['offset=0x1', 'offset'],
        ['offset=9007199254740992', 'offset'],
      ] as const) {
        const body = await expectValidationError(await s.api('GET', `${list}?${query}`, team.apiKey), path);
        const fault = body.errors!.find((e) => e.path === path)!;
        assert.match(fault.message, new RegExp(`^${path} must be a whole number`), `${list}?${query}: ${fault.message}`);
      }
      const ok = await s.api('GET', `${list}?limit=5&offset=0`, team.apiKey);
      assert.equal(ok.status, 200, `${list}: ${await ok.clone().text()}`);
      const page = (await ok.json()) as { limit: number; offset: number };
      assert.deepEqual([page.limit, page.offset], [5, 0]);
    }
  });

  test('a repeated parameter is refused with a message naming it', async () => {
    for (const list of lists) {
      const body = await expectValidationError(await s.api('GET', `${list}?limit=1&limit=2`, team.apiKey), 'limit');
      assert.equal(body.errors![0].message, 'the query parameter limit is given 2 times: give it once');
      await expectValidationError(await s.api('GET', `${list}?offset=1&offset=1`, team.apiKey), 'offset');
    }
    const status = await expectValidationError(await s.api('GET', '/v1/pdf/jobs?status=failed&status=completed', team.apiKey), 'status');
    assert.equal(status.errors![0].message, 'the query parameter status is given 2 times: give it once');
    const unknown = await expectValidationError(await s.api('GET', '/v1/pdf/jobs?status=done', team.apiKey), 'status');
    assert.match(unknown.errors![0].message, /^status must be one of pending, processing, completed, failed/);
  });
});

describe('unknown fields', () => {
  test('an unknown field is named by its path, one fault per field', async () => {
    const image = await expectValidationError(await s.api('POST', '/v1/image/create', team.apiKey, { template_id: tpl, data: {}, pdf_variant: 'pdf/a-2b' }), 'pdf_variant');
    assert.deepEqual(image.errors, [{ path: 'pdf_variant', message: '"pdf_variant" is not a known field of this request' }]);
    assert.equal(image.detail, 'pdf_variant: "pdf_variant" is not a known field of this request');

    const two = await expectValidationError(await s.api('POST', '/v1/pdf/create', team.apiKey, { template_id: tpl, data: {}, foo: 1, bar: 2 }), 'foo');
    assert.deepEqual(two.errors!.map((e) => e.path).sort(), ['bar', 'foo']);

    for (const [method, path, body] of [
      ['POST', '/v1/templates', { nmae: 'x', name: 'x', type: 'image', definition: { content: [] } }],
      ['POST', '/v1/pdf/create-async', { template_id: tpl, data: {}, webhook: 'https://example.com' }],
      ['POST', '/v1/templates/preview', { definition: { content: [] }, data: {}, fromat: 'png' }],
      ['POST', '/v1/integrations/s3', { bucket: 'acme-pdfs', access_key_id: 'a', secret_access_key: 'b', regoin: 'eu-west-1' }],
    ] as const) {
      const res = await s.api(method, path, team.apiKey, body);
      const unknown = Object.keys(body).find((k) => ['nmae', 'webhook', 'fromat', 'regoin'].includes(k))!;
      const fault = (await expectValidationError(res, unknown)).errors!.find((e) => e.path === unknown)!;
      assert.match(fault.message, /is not a known field/, `${path}: ${fault.message}`);
    }
    // An empty key has a path too.
    await expectValidationError(await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {}, "": 1}`), '[""]');
  });

  test('a body of many unknown fields gets the first 100 listed and the rest counted, not a list larger than the body', async () => {
    // 200,000 unknown keys (2.3 MB): one listed fault each made a 16 MB answer.
    const keys = Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(',');
    const text = `{"template_id": "${tpl}", "data": {}, ${keys}, "${'x'.repeat(5000)}": 2}`;
    const res = await s.api('POST', '/v1/pdf/create', team.apiKey, text);
    const raw = await res.text();
    assert.equal(res.status, 400);
    assert.ok(raw.length < 30_000, `answer of ${raw.length} characters for ${text.length} sent`);
    const body = JSON.parse(raw) as { detail: string; errors: { path: string }[] };
    assert.equal(body.errors.length, 100);
    assert.equal(body.errors[0].path, 'k0');
    assert.match(body.detail, /^k0: "k0" is not a known field of this request \(and 200000 more\)$/);
  });
});

describe('compressed request bodies', () => {
  /** A POST of `body` as it is, with `content-encoding: encoding`. */
  const send = (path: string, encoding: string, body: Uint8Array, contentType = 'application/json', apiKey: string | null = team.apiKey) =>
    s.fetch(path, { method: 'POST', headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), 'content-type': contentType, 'content-encoding': encoding }, body: new Uint8Array(body) });

  test('gzip and deflate (zlib or raw) JSON bodies are inflated', async () => {
    for (const [encoding, compress] of [
      ['gzip', gzipSync],
      ['x-gzip', gzipSync],
      ['GZIP', gzipSync],
      ['deflate', deflateSync],
      ['deflate', deflateRawSync],
    ] as const) {
      const name = `compressed ${encoding} ${compress.name} é 😀`;
      const res = await send('/v1/templates', encoding, compress(Buffer.from(JSON.stringify({ name, type: 'image', definition: { content: [] } }))));
      assert.equal(res.status, 201, `${encoding} ${compress.name}: ${await res.clone().text()}`);
      assert.equal(((await res.json()) as { name: string }).name, name);
    }
    const pdf = await send('/v1/pdf/create', 'gzip', gzipSync(JSON.stringify({ template_id: tpl, data: { name: 'Ada' }, export_type: 'binary' })));
    assert.equal(pdf.status, 200);
    assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
    // The inflated body is validated as any other: a lone surrogate in it is named.
    await expectValidationError(await send('/v1/templates', 'gzip', gzipSync('{"name": "x\\ud800", "type": "image", "definition": {"content": []}}')), 'name');
  });

  test('a multipart upload may be compressed too', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    const form = new FormData();
    form.append('file', new Blob([svg], { type: 'image/svg+xml' }), 'logo.svg');
    const multipart = new Response(form);
    const contentType = multipart.headers.get('content-type')!;
    const res = await send('/v1/assets', 'gzip', gzipSync(Buffer.from(await multipart.arrayBuffer())), contentType);
    assert.equal(res.status, 201, await res.clone().text());
    const asset = (await res.json()) as { filename: string; bytes: number };
    assert.deepEqual([asset.filename, asset.bytes], ['logo.svg', svg.length]);
  });

  test('another encoding is 415 naming it; data that is not of its encoding is 400', async () => {
    const json = Buffer.from(JSON.stringify({ name: 'x', type: 'image', definition: { content: [] } }));
    const br = await expectError(await send('/v1/templates', 'br', brotliCompressSync(json)), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(br.detail, /Content-Encoding "br" is not supported/);
    const twice = await expectError(await send('/v1/templates', 'gzip, gzip', gzipSync(gzipSync(json))), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(twice.detail, /gzip, gzip/);
    const bad = await expectError(await send('/v1/templates', 'gzip', json), 400, 'BAD_REQUEST');
    assert.match(bad.detail, /not valid gzip data/);
    const cut = await expectError(await send('/v1/templates', 'deflate', deflateSync(json).subarray(0, 10)), 400, 'BAD_REQUEST');
    assert.match(cut.detail, /not valid deflate data/);
    // Bytes after the end of a deflate stream (zlib or raw) are refused, as gzip refuses them.
    for (const compress of [deflateSync, deflateRawSync]) {
      const trailing = await expectError(await send('/v1/templates', 'deflate', Buffer.concat([compress(json), Buffer.from('{"name": "y"}')])), 400, 'BAD_REQUEST');
      assert.match(trailing.detail, /13 bytes follow the end of the deflate stream/);
    }
    const gzTrailing = await expectError(await send('/v1/templates', 'gzip', Buffer.concat([gzipSync(json), Buffer.from('junk')])), 400, 'BAD_REQUEST');
    assert.match(gzTrailing.detail, /not valid gzip data/);
    // identity is no encoding; and nothing is looked at before the key is.
    assert.equal((await send('/v1/templates', 'identity', json)).status, 201);
    await expectError(await send('/v1/templates', 'br', json, 'application/json', null), 401, 'UNAUTHORIZED');
  });
});

describe('compressed bodies and the body limits', () => {
  let small: TestServer;
  let key: string;
  before(async () => {
    // The budget counts what bodies hold parsed: at least 5 times their bytes.
    small = await startTestServer({ PLATEN_MAX_BODY_BYTES: '200000', PLATEN_MAX_TEAM_IN_FLIGHT_BYTES: '1500000' });
    key = (await small.team(10)).apiKey;
  });
  after(async () => {
    await small.close();
  });

  test('a body over the limit once inflated is 413, and so is a zip bomb, answered before the rest of it is even sent', async () => {
    const over = gzipSync(JSON.stringify({ name: 'x', type: 'image', definition: { pad: 'p'.repeat(250_000) } }));
    assert.ok(over.length < 200_000);
    const res = await small.fetch('/v1/templates', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: over });
    const body = await expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    assert.match(body.detail, /larger than 200000 bytes once inflated/);

    // 160 MB of zeros in 160 KB, of which only the first 32 KiB (about 32 MB inflated) are sent: the
    // server must stop inflating at the limit and answer, not wait for (or inflate) the rest.
    const bomb = gzipSync(Buffer.alloc(160 * 1024 * 1024), { level: 9 });
    assert.ok(bomb.length < 200_000, `the bomb is ${bomb.length} bytes compressed`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/v1/templates', small.url), {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) },
      }, (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
      req.write(bomb.subarray(0, 32 * 1024));
      setTimeout(() => reject(new Error('no answer while the rest of the bomb was held back')), 5000).unref();
    });
    assert.equal(status, 413);
  });

  test('a compressed body counts as the body limit in the team\'s bodies in flight', async () => {
    const { teamId, apiKey } = await small.team(5);
    const id = await small.template(teamId, { content: [{ text: 'x' }] });
    // A plain body of 150,000 bytes (750,000 held), half sent: it stays in flight.
    const plain = Buffer.from(JSON.stringify({ template_id: id, data: { pad: 'p'.repeat(150_000 - 50) } }).padEnd(150_000, ' '));
    let answered: (n: number) => void;
    const firstStatus = new Promise<number>((r) => (answered = r));
    const first = request(new URL('/v1/pdf/create', small.url), { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': String(plain.length) } }, (res) => {
      res.resume();
      answered(res.statusCode ?? 0);
    });
    first.write(plain.subarray(0, 1000));
    await new Promise((r) => setTimeout(r, 300));
    const json = JSON.stringify({ template_id: id, data: {} });
    // Small on the wire, but it may inflate to 200,000 bytes (1,000,000 held): with the first, past the 1,500,000 budget.
    const gz = await small.fetch('/v1/pdf/create', { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(json) });
    const refused = await expectError(gz, 429, 'RATE_LIMIT_EXCEEDED');
    assert.match(refused.detail, /PLATEN_MAX_TEAM_IN_FLIGHT_BYTES/);
    assert.equal((await small.api('POST', '/v1/pdf/create', apiKey, json)).status, 200, 'the same body uncompressed fits');
    first.end(plain.subarray(1000));
    assert.equal(await firstStatus, 200);
    const again = await small.fetch('/v1/pdf/create', { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(json) });
    assert.equal(again.status, 200, 'nothing else in flight: taken');
  });
});
