/**
 * The request log (DESIGN §2: pino; README LOG_LEVEL): one line per request with status and
 * duration, and for a synchronous generation the time spent in the render pool; never the key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const lines: Record<string, unknown>[] = [];
let s: TestServer;

before(async () => {
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  s = await startTestServer({}, { log: pino({ level: 'info' }, stream) });
});
after(async () => {
  await s.close();
});

const requestLines = (path: string) => lines.filter((l) => l.msg === 'request' && l.path === path);

test('a generation logs its duration and its time in the render pool; other requests only their duration', async () => {
  const { teamId, apiKey } = await s.team(5);
  const tpl = await s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: tpl, export_type: 'binary', data: { name: 'Ada' } });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const health = await s.fetch('/healthz');
  assert.equal(health.status, 200);

  const [create] = requestLines('/v1/pdf/create');
  assert.ok(create, 'no request line for the generation');
  assert.equal(create.method, 'POST');
  assert.equal(create.status, 200);
  assert.equal(create.team, teamId);
  const ms = create.ms as number;
  const renderMs = create.render_ms as number;
  assert.equal(typeof ms, 'number');
  assert.equal(typeof renderMs, 'number');
  assert.ok(renderMs > 0 && renderMs <= ms, `render_ms ${renderMs} should be within (0, ms ${ms}]`);
  // Hundredths of a millisecond, not whole ones (both whole by chance: 1 in 10,000).
  for (const v of [ms, renderMs]) assert.equal(Math.round(v * 100) / 100, v);
  assert.ok(!Number.isInteger(ms) || !Number.isInteger(renderMs), `ms ${ms} and render_ms ${renderMs} look rounded to whole milliseconds`);

  const [healthz] = requestLines('/healthz');
  assert.ok(healthz, 'no request line for /healthz');
  assert.equal(typeof healthz.ms, 'number');
  assert.equal('render_ms' in healthz, false);

  assert.equal(lines.some((l) => JSON.stringify(l).includes(apiKey)), false, 'the API key reached the log');
});

test('a failed render logs its code, message and path beside the 500 request line', async () => {
  const { teamId, apiKey } = await s.team(2);
  const tpl = await s.template(teamId, { content: [{ text: 'x' }, { image: '{{logo}}' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: tpl, data: { logo: 'data:image/png;base64,AAAA' } });
  assert.equal(res.status, 500);
  await res.arrayBuffer();
  const failed = lines.find((l) => l.msg === 'render failed') as { level: number; render_error: { code: string; path: string; message: string } } | undefined;
  assert.ok(failed, 'no line for the failed render');
  assert.equal(failed.level, 40, 'a warning');
  assert.equal(failed.render_error.code, 'IMAGE_INVALID');
  assert.equal(failed.render_error.path, 'content[1].image');
  assert.equal(typeof failed.render_error.message, 'string');
});
