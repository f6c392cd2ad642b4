/**
 * A render thread's V8 heap: its young generation comes from PLATEN_RENDER_YOUNG_MB, and the Node
 * flags the engine bench runs Platen under give a process the same heap as a render thread's
 * resourceLimits give the thread.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEFAULT_RENDER_YOUNG_MB, renderNodeFlags, renderResourceLimits } from '../../src/render/heap.ts';

const base = { PLATEN_SECRET: 'r'.repeat(40), PLATEN_DATA_DIR: '/nonexistent-platen-data' };

test('PLATEN_RENDER_YOUNG_MB: default, set, refused when out of range', () => {
  assert.equal(loadConfig(base).renderYoungMb, DEFAULT_RENDER_YOUNG_MB);
  assert.equal(loadConfig({ ...base, PLATEN_RENDER_YOUNG_MB: '12' }).renderYoungMb, 12);
  assert.throws(() => loadConfig({ ...base, PLATEN_RENDER_YOUNG_MB: '1' }), (e: unknown) => e instanceof ConfigError && /PLATEN_RENDER_YOUNG_MB/.test(e.message));
});

const probe = `const v8 = require('node:v8');
const keep = [];
for (let i = 0; i < 3e5; i++) { const o = { i, s: 'x' + i }; if (i % 50 === 0) keep.push(o); }
const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
const out = JSON.stringify({ limit: v8.getHeapStatistics().heap_size_limit, newSpace: space.space_size });`;

function threadHeap(heap: { memoryMb: number; youngMb: number }): Promise<{ limit: number; newSpace: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(`${probe}\nrequire('node:worker_threads').parentPort.postMessage(out);`, { eval: true, resourceLimits: renderResourceLimits(heap) });
    w.once('message', (m: string) => resolve(JSON.parse(m)));
    w.once('error', reject);
  });
}

test('the bench flags give a process the heap a render thread gets from its resourceLimits', async () => {
  for (const heap of [{ memoryMb: 512, youngMb: DEFAULT_RENDER_YOUNG_MB }, { memoryMb: 256, youngMb: 12 }]) {
    const thread = await threadHeap(heap);
    const proc = JSON.parse(execFileSync(process.execPath, [...renderNodeFlags(heap), '-e', `${probe}\nconsole.log(out);`], { encoding: 'utf8' }));
    assert.equal(proc.limit, thread.limit, `heap limit for ${JSON.stringify(heap)}`);
    assert.ok(thread.newSpace <= (heap.youngMb * 2 * 1024 * 1024) / 3, `new space ${thread.newSpace} within the young generation`);
    assert.ok(proc.newSpace <= (heap.youngMb * 2 * 1024 * 1024) / 3, `new space ${proc.newSpace} within the young generation`);
  }
});
