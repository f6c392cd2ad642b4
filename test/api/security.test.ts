/**
 * Security properties of the HTTP API through real servers: prototype pollution through data and
 * placeholders, malformed and oversized bodies, hashed API keys, keys never in responses or logs,
 * signed-URL paths that try to escape the files folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../db/open.ts';
import { ApiError } from '../../src/errors.ts';
import { createApiKey } from '../../src/services/keys.ts';
import { createTeam } from '../../src/services/teams.ts';
import { createTemplate } from '../../src/services/templates.ts';
import { isPublicAddress, literalAddressProblem } from '../../src/services/network.ts';
import { balance, expectError, expectValidationError, freePort, rawRows, ROOT } from '../helpers/api.ts';
import { readPdf } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let team: { teamId: string; apiKey: string };

before(async () => {
  s = await startTestServer();
  team = await s.team(100);
});
after(async () => {
  await s.close();
});

async function pdfText(res: Response): Promise<string> {
  const pdf = Buffer.from(await res.arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  return (await readPdf(pdf)).pages.map((p) => p.text).join('\n');
}

describe('prototype pollution', () => {
  test('"__proto__" and "constructor" keys in data render fine and pollute nothing', async () => {
    const tpl = await s.template(team.teamId, { content: [{ text: 'Hello {{name}} [{{polluted}}] [{{x}}] [{{inner.polluted}}]' }] });
    // Raw JSON text: JSON.stringify of an object literal could not carry an own "__proto__" key.
    const raw = `{"template_id": "${tpl}", "export_type": "binary", "data": {"__proto__": {"polluted": 1}, "constructor": {"prototype": {"x": 1}}, "name": "Ada", "inner": {"__proto__": {"polluted": 2}}}}`;
    const res = await s.api('POST', '/v1/pdf/create', team.apiKey, raw);
    assert.equal(res.status, 200);
    const text = await pdfText(res);
    assert.match(text, /Hello Ada \[\] \[\] \[\]/, `nothing inherited from a polluted prototype: ${text}`);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).x, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);

    // The worker threads that rendered it are not polluted either: a later render of another team sees nothing.
    const other = await s.team(2);
    const probe = await s.template(other.teamId, { content: [{ text: 'probe [{{polluted}}] [{{x}}]' }] });
    for (let i = 0; i < 2; i++) {
      const again = await s.api('POST', '/v1/pdf/create', other.apiKey, { template_id: probe, data: {}, export_type: 'binary' });
      assert.equal(again.status, 200);
      assert.match(await pdfText(again), /probe \[\] \[\]/);
    }
  });

  test('"__proto__" as a top-level body key is refused, not merged', async () => {
    const tpl = await s.template(team.teamId, { content: [{ text: 'x' }] });
    const raw = `{"template_id": "${tpl}", "data": {}, "__proto__": {"export_type": "binary"}}`;
    const res = await s.api('POST', '/v1/pdf/create', team.apiKey, raw);
    // Either refused as an unknown field, or ignored: never turned into a binary export.
    if (res.status === 200) {
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, 'the __proto__ key did not switch the export type');
      await res.arrayBuffer();
    } else {
      await expectError(res, 400, 'VALIDATION_ERROR');
    }
    assert.equal(({} as Record<string, unknown>).export_type, undefined);
  });

  test('placeholders reaching the prototype are refused at template creation (ApiError 400)', async () => {
    const db = s.server.services.db;
    const bad: unknown[] = [
      { content: [{ text: '{{__proto__.polluted}}' }] },
      { content: [{ text: '{{constructor.name}}' }] },
      { content: [{ text: '<<constructor.name>>' }] },
      { content: [{ text: 'Hi {{customer.__proto__}}' }] },
      { content: [{ text: '{{constructor.prototype.x}}' }] },
      { content: [{ each: '__proto__', as: 'x', content: [{ text: 'a' }] }] },
      { content: [{ if: 'constructor.name', then: [{ text: 'a' }] }] },
      { content: [{ qrcode: '{{__proto__.toString}}' }] },
      { metadata: { title: '{{constructor.name}}' }, content: [{ text: 'a' }] },
    ];
    for (const definition of bad) {
      await assert.rejects(
        () => createTemplate(db, team.teamId, { name: 'evil', type: 'pdf', definition }),
        (e: unknown) => e instanceof ApiError && e.status === 400,
        `refused: ${JSON.stringify(definition)}`,
      );
    }
  });
});

describe('request bodies', () => {
  test('malformed JSON -> 400 BAD_REQUEST', async () => {
    const tpl = await s.template(team.teamId, { content: [{ text: 'x' }] });
    const before = await balance(s.server.services.db, team.teamId);
    for (const raw of [`{"template_id": "${tpl}", "data": {`, `{'template_id': '${tpl}'}`, `{"template_id": "${tpl}", "data": {}} trailing`, '{"data": NaN}']) {
      await expectError(await s.api('POST', '/v1/pdf/create', team.apiKey, raw), 400, 'BAD_REQUEST');
    }
    assert.equal(await balance(s.server.services.db, team.teamId), before, 'refused bodies cost nothing');
  });

  test('a body over PLATEN_MAX_BODY_BYTES -> 413 PAYLOAD_TOO_LARGE (with and without Content-Length); smaller bodies pass', async () => {
    const small = await startTestServer({ PLATEN_MAX_BODY_BYTES: '2048' });
    try {
      const t = await small.team(5);
      const tpl = await small.template(t.teamId, { content: [{ text: 'Hi {{name}}' }] });
      const big = JSON.stringify({ template_id: tpl, data: { name: 'x'.repeat(5 * 1024) }, export_type: 'binary' });
      assert.ok(big.length > 5000);
      await expectError(await small.api('POST', '/v1/pdf/create', t.apiKey, big), 413, 'PAYLOAD_TOO_LARGE');

      // Streamed (chunked, no Content-Length): the limit still holds.
      const chunks = [big.slice(0, 1000), big.slice(1000, 3000), big.slice(3000)];
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
          controller.close();
        },
      });
      const chunked = await fetch(`${small.url}/v1/pdf/create`, {
        method: 'POST',
        headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      await expectError(chunked, 413, 'PAYLOAD_TOO_LARGE');
      assert.equal(await balance(small.server.services.db, t.teamId), 5, 'oversized requests cost nothing');

      const ok = await small.api('POST', '/v1/pdf/create', t.apiKey, { template_id: tpl, data: { name: 'x'.repeat(1000) }, export_type: 'binary' });
      assert.equal(ok.status, 200, 'a body under the limit passes');
      await ok.arrayBuffer();

      // A chunked body under the limit is counted as it streams, then read by the route as usual.
      const smallBody = JSON.stringify({ template_id: tpl, data: { name: 'chunked' }, export_type: 'binary' });
      const chunkedOk = await fetch(`${small.url}/v1/pdf/create`, {
        method: 'POST',
        headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(smallBody.slice(0, 20)));
            controller.enqueue(new TextEncoder().encode(smallBody.slice(20)));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      assert.equal(chunkedOk.status, 200, 'a chunked body under the limit passes');
      assert.equal(chunkedOk.headers.get('content-type'), 'application/pdf');
      await chunkedOk.arrayBuffer();
      assert.equal(await balance(small.server.services.db, t.teamId), 3, 'two renders, two credits');
    } finally {
      await small.close();
    }
  });
});

describe('bodies of callers without a key', () => {
  /** POST a chunked body to `path` with `apiKey`, sending one chunk and holding the rest back; resolves with the answer. */
  function heldBackChunked(path: string, apiKey: string): Promise<{ status: number; body: string }> {
    const u = new URL(`${s.url}${path}`);
    return new Promise((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' || (e as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(e)));
      req.write('{"template_id": "abcdefghijkl", "data": {"pad": "');
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error('no answer within 5 s: the server waited for the rest of the body'));
      }, 5000);
    });
  }

  test('a chunked body without a valid key is not read: 401 comes while the body is still being sent', async () => {
    for (const path of ['/v1/pdf/create', '/v1/pdf/create-async', '/v1/templates', '/v1/templates/preview']) {
      const res = await heldBackChunked(path, 'pk_not_a_key');
      assert.equal(res.status, 401, `${path}: ${res.body}`);
      assert.equal((JSON.parse(res.body) as { code: string }).code, 'UNAUTHORIZED');
    }
  });
});

describe('requests that never finish arriving', () => {
  test('a body or headers held back past PLATEN_REQUEST_TIMEOUT_MS end the connection (408), without waiting for Node\'s 300 s', async () => {
    const quick = await startTestServer({ PLATEN_REQUEST_TIMEOUT_MS: '1500' });
    try {
      const t = await quick.team(2);
      const u = new URL(quick.url);
      /** Write `text` on a raw connection and never more; resolve with what the server sent before closing, and when. */
      const stall = (text: string) =>
        new Promise<{ answer: string; ms: number }>((resolve, reject) => {
          const started = performance.now();
          const socket = connect(Number(u.port), u.hostname, () => socket.write(text));
          let answer = '';
          socket.on('data', (c) => (answer += c));
          socket.on('close', () => resolve({ answer, ms: performance.now() - started }));
          socket.on('error', () => {});
          setTimeout(() => {
            socket.destroy();
            reject(new Error('the connection was still open after 10 s'));
          }, 10_000);
        });
      const body = await stall(`POST /v1/pdf/create HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.apiKey}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"template_id": `);
      assert.match(body.answer, /^HTTP\/1\.1 408/, body.answer.slice(0, 80));
      // In the API's error model, as every answer.
      const json = JSON.parse(body.answer.slice(body.answer.indexOf('\r\n\r\n') + 4)) as { code: string; detail: string };
      assert.equal(json.code, 'REQUEST_TIMEOUT');
      assert.match(json.detail, /within 1500 ms \(PLATEN_REQUEST_TIMEOUT_MS\)/);
      assert.ok(body.ms >= 1400 && body.ms < 6000, `closed after ${Math.round(body.ms)} ms`);
      const headers = await stall('POST /v1/pdf/create HTTP/1.1\r\nHost: x\r\nx-api-');
      assert.ok(headers.ms < 6000, `closed after ${Math.round(headers.ms)} ms`);
      assert.equal(await balance(quick.server.services.db, t.teamId), 2, 'nothing charged');
      // Headers past Node's 16 KiB, and bytes that are not HTTP: JSON answers too.
      const big = await fetch(`${quick.url}/v1/account`, { headers: { 'x-api-key': 'k'.repeat(20_000) } });
      assert.equal(big.status, 431);
      assert.equal(((await big.json()) as { code: string }).code, 'HEADERS_TOO_LARGE');
      const garbage = await stall('HELLO\r\n\r\n');
      assert.match(garbage.answer, /^HTTP\/1\.1 400 Bad Request\r\n[^]*"code":"BAD_REQUEST"/, garbage.answer);
      // A request that arrives in time is served as usual.
      assert.equal((await quick.api('GET', '/v1/account', t.apiKey)).status, 200);
    } finally {
      await quick.close();
    }
  });
});

describe('API keys at rest', () => {
  test('keys are stored hashed: no column holds the key, key_hash is 64 hex chars and not the key', async () => {
    const t = await s.team(1);
    const { apiKey: second } = await createApiKey(s.server.services.db, t.teamId);
    const rows = await rawRows(s.server.services.db, 'api_keys', 'team_id', t.teamId);
    assert.equal(rows.length, 2);
    const columns = Object.keys(rows[0]);
    assert.ok(columns.includes('key_hash'));
    assert.ok(!columns.some((c) => /^(key|api_key|secret|token)$/.test(c)), `columns: ${columns.join(', ')}`);
    for (const key of [t.apiKey, second]) {
      for (const row of rows) {
        for (const [col, value] of Object.entries(row)) {
          assert.ok(typeof value !== 'string' || !value.includes(key), `column ${col} holds the key`);
        }
      }
      const row = rows.find((r) => r.key_hash === createHash('sha256').update(key).digest('hex'));
      assert.ok(row, 'a row with the SHA-256 of the key');
      assert.match(String(row.key_hash), /^[0-9a-f]{64}$/);
      assert.notEqual(row.key_hash, key);
      // The display prefix is short: not enough of the key to use it.
      assert.ok(String(row.prefix).length <= 12 && key.length >= 40);
    }
  });

  test('no file in the data dir (database, WAL, files) contains a key', async () => {
    const t = await s.team(3);
    const tpl = await s.template(t.teamId, { content: [{ text: 'x' }] });
    const res = await s.api('POST', '/v1/pdf/create', t.apiKey, { template_id: tpl, data: {} });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? walk(p) : [p];
      });
    const files = walk(s.dataDir);
    if (s.server.services.db.dialect === 'sqlite') assert.ok(files.some((f) => f.endsWith('platen.db')));
    for (const f of files) {
      const bytes = readFileSync(f);
      assert.ok(!bytes.includes(t.apiKey), `${f} contains the API key`);
      assert.ok(!bytes.includes(team.apiKey), `${f} contains the API key`);
    }
  });
});

describe('files at rest', () => {
  test('the data dir it creates, the database, its WAL, generated files and assets are readable by the service\'s user alone', async () => {
    // A data dir the server creates itself (a mkdtemp folder is 0700 already), under umask 022.
    const parent = mkdtempSync(join(tmpdir(), 'platen-modes-'));
    const dataDir = join(parent, 'data');
    const previous = process.umask(0o022);
    // Against PostgreSQL the test helper writes its database's name into the data dir first.
    const pg = process.env.PLATEN_TEST_DATABASE_URL !== undefined;
    if (pg) mkdirSync(dataDir, { mode: 0o700 });
    const own = await startTestServer({}, { dataDir });
    try {
      const t = await own.team(3);
      const tpl = await own.template(t.teamId, { content: [{ text: 'x' }] });
      const res = await own.api('POST', '/v1/pdf/create', t.apiKey, { template_id: tpl, data: {} });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      const form = new FormData();
      form.append('file', new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>']), 'a.svg');
      assert.equal((await own.fetch('/v1/assets', { method: 'POST', headers: { 'x-api-key': t.apiKey }, body: form })).status, 201);
      const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => [join(dir, n), ...(statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [])]);
      const entries = [dataDir, ...walk(dataDir)];
      if (own.server.services.db.dialect === 'sqlite') assert.ok(entries.some((f) => f.endsWith('platen.db-wal')), entries.join(' '));
      assert.ok(entries.some((f) => f.endsWith('.pdf')) && entries.some((f) => f.endsWith('.svg')), entries.join(' '));
      for (const f of entries) {
        if (pg && f.endsWith('test-database-url')) continue;
        const mode = statSync(f).mode & 0o777;
        assert.equal(mode & 0o077, 0, `${f.slice(parent.length)} is ${mode.toString(8)}: others may read it`);
      }
    } finally {
      process.umask(previous);
      await own.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('signed URL paths', () => {
  test('paths that try to leave the files folder are 403, never a file', async () => {
    for (const path of [
      '/cdn/..%2Fplaten.db/x.pdf?expires=9999999999&signature=' + '0'.repeat(64),
      '/cdn/..%2F..%2Fsecret/x.pdf?expires=9999999999&signature=' + '0'.repeat(64),
      '/cdn/' + '0'.repeat(32) + '/..%2F..%2Fplaten.db?expires=9999999999&signature=' + '0'.repeat(64),
    ]) {
      const res = await s.fetch(path);
      const body = Buffer.from(await res.arrayBuffer());
      assert.ok(res.status === 403 || res.status === 404, `${path}: ${res.status}`);
      assert.ok(!body.includes('SQLite format'), 'no database bytes');
    }
  });
});

describe('keys never leak', () => {
  let child: ChildProcess | undefined;
  let dir: string;
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('no response body, header or log line (the real logger, LOG_LEVEL=trace) contains an API key', async () => {
    dir = mkdtempSync(join(tmpdir(), 'platen-logs-'));
    const db = openDatabase(join(dir, 'platen.db'));
    const t = await createTeam(db, 'Logged', 3);
    const poor = await createTeam(db, 'Poor', 0);
    const tpl = (await createTemplate(db, t.teamId, { name: 't', type: 'pdf', definition: { content: [{ text: 'Hello {{name}}' }] } })).id;
    const broken = (await createTemplate(db, t.teamId, { name: 'b', type: 'pdf', definition: { content: [{ image: '{{logo}}' }] } })).id;
    await db.close();
    const wrongKey = `${t.apiKey.slice(0, -4)}ABCD`;
    const keys = [t.apiKey, poor.apiKey, wrongKey];

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PLATEN_PUBLIC_URL: base,
        PLATEN_DATA_DIR: dir,
        PLATEN_SEED_DEMO: 'false',
        PLATEN_RENDER_THREADS: '1',
        LOG_LEVEL: 'trace',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const started = Date.now();
    while (!out.includes('platen listening')) {
      assert.ok(child.exitCode === null, `server exited: ${out}`);
      assert.ok(Date.now() - started < 20_000, `server did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const seen: string[] = [];
    const call = async (path: string, key: string | null, body?: string, extra: Record<string, string> = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
      if (key !== null) headers['x-api-key'] = key;
      const res = await fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body });
      const bytes = Buffer.from(await res.arrayBuffer());
      seen.push(`${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${bytes.toString('latin1')}`);
      return { res, bytes };
    };
    const create = (key: string | null, body: unknown) => call('/v1/pdf/create', key, typeof body === 'string' ? body : JSON.stringify(body));

    const urlRes = await create(t.apiKey, { template_id: tpl, data: { name: 'Ada' } });
    assert.equal(urlRes.res.status, 200);
    const { url } = JSON.parse(urlRes.bytes.toString()) as { url: string };
    assert.equal((await call(new URL(url).pathname + new URL(url).search, null)).res.status, 200);
    assert.equal((await create(t.apiKey, { template_id: tpl, data: { name: 'Ada' }, export_type: 'binary' })).res.status, 200);
    assert.equal((await create(wrongKey, { template_id: tpl, data: {} })).res.status, 401);
    assert.equal((await create(t.apiKey, { template_id: 'AAAAAAAAAAAA', data: {} })).res.status, 404);
    assert.equal((await create(t.apiKey, { template_id: tpl, data: [] })).res.status, 400);
    assert.equal((await create(t.apiKey, '{"template_id": ')).res.status, 400);
    assert.equal((await create(t.apiKey, { template_id: broken, data: { logo: 'data:image/png;base64,AAAA' } })).res.status, 500);
    assert.equal((await create(poor.apiKey, { template_id: tpl, data: {} })).res.status, 403);
    assert.equal((await call('/v1/nothing', t.apiKey)).res.status, 404);
    // A key sent where keys do not belong (the query string) is not logged either.
    assert.equal((await call(`/v1/pdf/create?api_key=${t.apiKey}`, null, '{}')).res.status, 401);

    // Let the last log lines flush.
    await new Promise((r) => setTimeout(r, 300));
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    await exited;

    const lines = out.split('\n').filter((l) => l.trim() !== '');
    assert.ok(lines.filter((l) => l.includes('"request"')).length >= 11, `a log line per request:\n${out}`);
    for (const key of keys) {
      assert.ok(!out.includes(key), `a log line contains an API key:\n${lines.filter((l) => l.includes(key)).join('\n')}`);
      assert.ok(!out.includes(key.slice(3, 30)), 'not even a large part of a key is logged');
      for (const r of seen) assert.ok(!r.includes(key), `a response contains an API key:\n${r.slice(0, 500)}`);
    }
    assert.ok(!out.includes('signature='), 'signed-URL signatures are not logged');
  });
});

describe('S3 key prefixes and buckets that try to leave their place', () => {
  const badPrefixes = ['../x/', 'invoices/../../etc/', '..', 'a/./b/', '/abs/', '//x', '\\x', 'a\\..\\b', 'a/\u0000/b'];

  test('s3_filepath and s3_bucket with ".." segments or a leading slash: 400 naming the field, on create and create-async, no credit taken', async () => {
    const t = await s.team(5);
    const tpl = await s.template(t.teamId, { content: [{ text: 'x' }] });
    for (const route of ['/v1/pdf/create', '/v1/pdf/create-async']) {
      for (const s3_filepath of badPrefixes) {
        await expectValidationError(await s.api('POST', route, t.apiKey, { template_id: tpl, data: {}, store_s3: true, s3_filepath }), 's3_filepath');
      }
      for (const s3_bucket of ['../bucket', '/bucket', 'a..b', 'bucket/..', '.bucket']) {
        await expectValidationError(await s.api('POST', route, t.apiKey, { template_id: tpl, data: {}, store_s3: true, s3_bucket }), 's3_bucket');
      }
      // Dots inside a segment and repeated slashes are fine: validation passes (the team has no integration).
      for (const s3_filepath of ['invoices/2025/', 'a..b/v1.2/', 'x//y/', '']) {
        await expectError(await s.api('POST', route, t.apiKey, { template_id: tpl, data: {}, store_s3: true, s3_filepath }), 400, 'S3_INTEGRATION_MISSING');
      }
    }
    assert.equal(await balance(s.server.services.db, t.teamId), 5);
  });

  test('default_prefix with ".." segments or a leading slash: 400 naming default_prefix; a relative prefix is saved', async () => {
    const t = await s.team(1);
    const integration = { bucket: 'acme-pdfs', region: 'eu-central-1', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret-secret' };
    for (const default_prefix of badPrefixes) {
      const body = await expectValidationError(await s.api('POST', '/v1/integrations/s3', t.apiKey, { ...integration, default_prefix }), 'default_prefix');
      assert.match(body.detail, /default_prefix: must not/);
    }
    assert.equal((await s.api('GET', '/v1/integrations/s3', t.apiKey)).status, 404, 'nothing was saved');
    const ok = await s.api('POST', '/v1/integrations/s3', t.apiKey, { ...integration, default_prefix: 'invoices/2025/' });
    assert.equal(ok.status, 201, await ok.text());
  });
});

describe('IPv4 addresses written as IPv6', () => {
  const loopbackForms = ['[::127.0.0.1]', '[::7f00:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]', '[::10.0.0.1]', '[::ffff:a9fe:a9fe]', '[::8.8.8.8]'];

  test('isPublicAddress: IPv4-mapped forms are judged as their IPv4 address, IPv4-compatible ones are never public', () => {
    for (const h of loopbackForms) {
      assert.equal(isPublicAddress(h.slice(1, -1)), false, h);
      assert.ok(literalAddressProblem(h), `${h} is refused where S3 connections are made`);
    }
    assert.equal(isPublicAddress('::ffff:8.8.8.8'), true, 'a mapped public address stays public');
    assert.equal(isPublicAddress('2606:4700:4700::1111'), true);
  });

  test('as webhook_url (400 webhook_url) and as S3 endpoint (400 endpoint), nothing taken or saved', async () => {
    const t = await s.team(3);
    const tpl = await s.template(t.teamId, { content: [{ text: 'x' }] });
    for (const host of loopbackForms) {
      const res = await s.api('POST', '/v1/pdf/create-async', t.apiKey, { template_id: tpl, data: {}, webhook_url: `https://${host}/hook` });
      const body = await expectValidationError(res, 'webhook_url');
      assert.match(body.detail, /private, loopback or reserved/, host);
      const s3 = await s.api('POST', '/v1/integrations/s3', t.apiKey, { bucket: 'acme-pdfs', region: 'us-east-1', access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret-secret', endpoint: `http://${host}:9000` });
      await expectValidationError(s3, 'endpoint');
    }
    assert.equal(await balance(s.server.services.db, t.teamId), 3);
    assert.equal((await s.api('GET', '/v1/integrations/s3', t.apiKey)).status, 404);
  });
});

describe('huge numbers in request fields', () => {
  test('1e308, -1e308, 1e400 (Infinity once parsed) and fractions are 400 naming the field', async () => {
    const t = await s.team(2);
    const tpl = await s.template(t.teamId, { content: [{ text: 'x' }] });
    for (const n of ['1e308', '-1e308', '1e400', '86400.5', '9007199254740993']) {
      for (const route of ['/v1/pdf/create', '/v1/pdf/create-async']) {
        await expectValidationError(await s.api('POST', route, t.apiKey, `{"template_id": "${tpl}", "data": {}, "expiration": ${n}}`), 'expiration');
      }
    }
    for (const path of ['/v1/templates', '/v1/pdf/jobs', '/v1/account/transactions']) {
      for (const [name, n] of [['limit', '1e308'], ['offset', '1e308'], ['offset', '-1'], ['offset', '9007199254740993']]) {
        await expectValidationError(await s.api('GET', `${path}?${name}=${n}`, t.apiKey), name);
      }
    }
    assert.equal(await balance(s.server.services.db, t.teamId), 2);
  });
});
