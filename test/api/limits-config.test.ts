/** The engine's limits come from the environment (PLATEN_MAX_*) and hold on a real server. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_MAX_PAGES: '2', PLATEN_MAX_DATA_DEPTH: '3' });
});
after(async () => {
  await s.close();
});

test('PLATEN_MAX_PAGES=2: a three-page document fails with LIMIT_EXCEEDED and is refunded; two pages render', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, { content: [{ each: 'pages', as: 'p', content: [{ text: 'page {{p}}' }, { pageBreak: true }] }] });
  const three = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { pages: [1, 2, 3] } });
  assert.equal(three.status, 500);
  assert.equal(((await three.json()) as { render_error: { code: string } }).render_error.code, 'LIMIT_EXCEEDED');
  const two = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { pages: [1] }, export_type: 'binary' });
  assert.equal(two.status, 200);
  assert.equal(two.headers.get('x-credits-remaining'), '1', 'the failed render was refunded, the good one paid');
});

test('PLATEN_MAX_DATA_DEPTH=3: data four levels deep is 400 naming data', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: '{{a.b}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { a: { b: { c: { d: 1 } } } } });
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { errors: { path: string }[] }).errors[0].path, /^data/);
  const ok = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { a: { b: 'x' } }, export_type: 'binary' });
  assert.equal(ok.status, 200);
});

test('a bad PLATEN_MAX_* value stops start-up naming the variable', () => {
  assert.throws(() => loadConfig({ PLATEN_MAX_PAGES: '0' }), (e: unknown) => e instanceof ConfigError && /PLATEN_MAX_PAGES/.test(e.message));
  assert.throws(() => loadConfig({ PLATEN_MAX_GLYPHS: 'lots' }), (e: unknown) => e instanceof ConfigError && /PLATEN_MAX_GLYPHS/.test(e.message));
});

test('PLATEN_DNS_SERVERS takes IP addresses with optional ports; anything else stops start-up naming it', () => {
  const dataDir = { PLATEN_DATA_DIR: mkdtempSync(join(tmpdir(), 'platen-dns-config-')) };
  try {
    const ok = loadConfig({ ...dataDir, PLATEN_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[2606:4700::1111]:53,::1' });
    assert.deepEqual(ok.hostLookup.servers, ['1.1.1.1', '127.0.0.1:5353', '[2606:4700::1111]:53', '::1']);
    assert.deepEqual(loadConfig(dataDir).hostLookup, { concurrency: 2, timeoutMs: 5000, servers: [] });
    for (const bad of ['dns.google', '1.1.1.1:70000', '[::1', '10.0.0.1:']) {
      assert.throws(() => loadConfig({ ...dataDir, PLATEN_DNS_SERVERS: bad }), (e: unknown) => e instanceof ConfigError && /PLATEN_DNS_SERVERS/.test(e.message) && e.message.includes(bad), bad);
    }
  } finally {
    rmSync(dataDir.PLATEN_DATA_DIR, { recursive: true, force: true });
  }
});
