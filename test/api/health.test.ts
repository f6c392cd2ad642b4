import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TEST_DIALECT } from '../helpers/test-database.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('GET /healthz answers without a key and reports the database', async () => {
  const res = await s.fetch('/healthz');
  assert.equal(res.status, 200);
  const body = (await res.json()) as { status: string; checks: { database: { status: string; engine: string; ms: number } } };
  assert.equal(body.status, 'ok');
  assert.equal(body.checks.database.status, 'ok');
  assert.equal(body.checks.database.engine, TEST_DIALECT);
  assert.equal(typeof body.checks.database.ms, 'number');
});

test('GET /readyz is 200 while the database answers, 503 naming it once it does not; /healthz stays 200', async () => {
  const t = await startTestServer();
  try {
    const ready = await t.fetch('/readyz');
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ok');
    // The database goes away under the running server (its connection closed).
    await t.server.services.db.close();
    const down = await t.fetch('/readyz');
    assert.equal(down.status, 503);
    const body = (await down.json()) as { status: string; checks: { database: { status: string; error: string } } };
    assert.equal(body.status, 'unavailable');
    assert.equal(body.checks.database.status, 'error');
    assert.ok(body.checks.database.error.length > 0);
    const health = await t.fetch('/healthz');
    assert.equal(health.status, 200, 'liveness does not depend on the database');
    assert.equal(((await health.json()) as { status: string }).status, 'unavailable');
  } finally {
    await t.close().catch(() => {});
  }
});

test('a created team renders a template as binary and pays one credit', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Ada' }, export_type: 'binary' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-credits-remaining'), '2');
  const pdf = Buffer.from(await res.arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
});

test('PLATEN_FONT_DIRS: a missing folder stops start-up naming the variable; an existing one is used by the render threads', async () => {
  const { loadConfig, ConfigError } = await import('../../src/config.ts');
  assert.throws(() => loadConfig({ PLATEN_FONT_DIRS: '/nonexistent/platen-fonts' }), (e: unknown) => e instanceof ConfigError && /PLATEN_FONT_DIRS/.test((e as Error).message));
  const { mkdtempSync, copyFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'platen-fontdir-'));
  // A scanned folder (no manifest): a copy of a bundled face under another file name.
  copyFileSync(new URL('../../fonts/NotoSansHebrew-Regular.ttf', import.meta.url), join(dir, 'hebrew-copy.ttf'));
  const t = await startTestServer({ PLATEN_FONT_DIRS: dir });
  try {
    const { teamId, apiKey } = await t.team(2);
    const id = await t.template(teamId, { content: [{ text: 'שלום from a server with a font folder' }] });
    const res = await t.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary' });
    assert.equal(res.status, 200);
    assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the job queue is a dependency of its own in cluster mode (pg-boss), not on SQLite; /readyz says draining once a shutdown began', async () => {
  const body = (await (await s.fetch('/healthz')).json()) as { checks: { queue?: { status: string; kind: string; ms: number } } };
  if (TEST_DIALECT === 'postgres') {
    assert.equal(body.checks.queue?.status, 'ok');
    assert.equal(body.checks.queue?.kind, 'pg-boss');
    assert.equal(typeof body.checks.queue?.ms, 'number');
  } else {
    assert.equal(body.checks.queue, undefined, 'the in-process queue is no dependency');
  }
  const t = await startTestServer();
  try {
    t.server.services.lifecycle!.draining = true;
    const ready = await t.fetch('/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: 'draining', checks: {} });
    assert.equal((await t.fetch('/healthz')).status, 200, 'still alive while draining');
  } finally {
    await t.close();
  }
});

test('with PLATEN_SHUTDOWN_DRAIN_MS a stopping process keeps its listener open that long, answering /readyz 503 draining on new connections', async () => {
  const t = await startTestServer({ PLATEN_SHUTDOWN_DRAIN_MS: '1500' });
  const started = performance.now();
  const closed = t.close();
  try {
    await new Promise((r) => setTimeout(r, 200));
    // A new connection (no keep-alive reuse) while it drains.
    const ready = await fetch(`${t.url}/readyz`, { headers: { connection: 'close' } });
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: 'draining', checks: {} });
  } finally {
    await closed;
  }
  assert.ok(performance.now() - started >= 1400, `closed after ${Math.round(performance.now() - started)} ms`);
  await assert.rejects(fetch(`${t.url}/readyz`), 'the listener is closed after the drain');
});
