/**
 * A long string compared or filtered in every item of a loop, through a real server: the data
 * check on the HTTP thread stops after PLATEN_MAX_DATA_SCAN characters instead of holding every
 * other request for tens of seconds, and the render fails with LIMIT_EXCEEDED at the condition's
 * path, refunded (a preview: the same answer, no credit).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

const definition = { content: [{ each: 'items', content: [{ if: { lt: ['a', '{{b}}'] }, then: [{ text: 'y' }] }] }] };
// 8 MB of data; compared in each of 20,000 items it was 80 billion characters (about 20 s on the HTTP thread).
const long = 'a'.repeat(4_000_000);
const data = { a: long + 'b', b: long + 'c', items: Array.from({ length: 20_000 }, (_, i) => i) };

/**
 * Runs `fn` and returns the longest the event loop (the server's HTTP thread) was held, in ms. The
 * bound used is loose (the machine may be busy): the data check held it 16 to 21 s before.
 */
async function longestStall(fn: () => Promise<void>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  try {
    await fn();
  } finally {
    h.disable();
  }
  return h.max / 1e6;
}

test('POST /v1/pdf/create: the data check does not hold the HTTP thread, the render fails with LIMIT_EXCEEDED at the condition, refunded', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, definition);
  const stall = await longestStall(async () => {
    const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data });
    assert.equal(res.status, 500);
    const body = (await res.json()) as { render_error: { code: string; path: string; message: string } };
    assert.equal(body.render_error.code, 'LIMIT_EXCEEDED');
    assert.equal(body.render_error.path, 'content[0].content[0].if.lt');
    assert.match(body.render_error.message, /more than 20000000 characters of data/);
  });
  assert.ok(stall < 10_000, `the HTTP thread was held for ${stall.toFixed(0)} ms`);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1, 'refunded');
});

test('POST /v1/templates/preview: the same template as a free preview gets the same answer without holding the HTTP thread', async () => {
  const { apiKey } = await s.team(0);
  const stall = await longestStall(async () => {
    const res = await s.api('POST', '/v1/templates/preview', apiKey, { definition, data });
    assert.equal(res.status, 500);
    const body = (await res.json()) as { render_error: { code: string; path: string } };
    assert.equal(body.render_error.code, 'LIMIT_EXCEEDED');
    assert.equal(body.render_error.path, 'content[0].content[0].if.lt');
  });
  assert.ok(stall < 10_000, `the HTTP thread was held for ${stall.toFixed(0)} ms`);
});
