/**
 * Large stored templates rendered once each: the HTTP process keeps parsed definitions (to skip
 * parsing them again) bounded by characters, not only by count. Before, each 8 MB template saved
 * and rendered stayed in memory in its text and parsed forms.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestServer, type TestServer } from '../helpers/server.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

test('12 templates of 8 MB, each saved and rendered: the server keeps a bounded part of them', async () => {
  const { apiKey } = await s.team(12);
  const before = heapMb();
  for (let i = 0; i < 12; i++) {
    const definition = { content: [{ text: `{{x}} ${`${i}`.padEnd(8_000_000, 'a')}` }] };
    const saved = await s.api('POST', '/v1/templates', apiKey, { name: `big ${i}`, type: 'pdf', definition });
    assert.equal(saved.status, 201);
    const { id } = (await saved.json()) as { id: string };
    // 8 million characters pass the characters limit: the render fails, refunded.
    const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {} });
    assert.equal(res.status, 500);
    assert.equal(((await res.json()) as { render_error: { code: string } }).render_error.code, 'LIMIT_EXCEEDED');
  }
  const grown = heapMb() - before;
  assert.ok(grown < 150, `the heap grew by ${grown.toFixed(0)} MB`);
});
