/**
 * The fair admission in front of the render threads and the job runner (src/render/fair-queue.ts):
 * round-robin over teams, a per-team cap, FIFO within a team, slots given back once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue, type Release } from '../../src/render/fair-queue.ts';

/** Acquire for each key in order; record the order grants arrive in. */
function acquireAll(q: FairQueue, keys: string[]): { granted: string[]; releases: Map<string, Release[]> } {
  const granted: string[] = [];
  const releases = new Map<string, Release[]>();
  keys.forEach((key, i) => {
    void q.acquire(key).then((release) => {
      granted.push(`${key}${i}`);
      releases.set(key, [...(releases.get(key) ?? []), release]);
    });
  });
  return { granted, releases };
}

const tick = () => new Promise((r) => setImmediate(r));

test('one team with many waiting renders gets at most perKey slots; another team gets the rest at once', async () => {
  const q = new FairQueue({ slots: 2, perKey: 1 });
  const { granted, releases } = acquireAll(q, ['a', 'a', 'a', 'a', 'b']);
  await tick();
  assert.deepEqual(granted, ['a0', 'b4'], 'team b is not queued behind team a');
  assert.equal(q.running, 2);
  assert.equal(q.pending, 3);
  releases.get('b')![0]();
  await tick();
  assert.deepEqual(granted, ['a0', 'b4'], 'a free slot stays free rather than going over team a\'s cap');
  releases.get('a')![0]();
  await tick();
  assert.deepEqual(granted, ['a0', 'b4', 'a1'], 'FIFO within a team');
});

test('free slots go round-robin over the teams with work waiting', async () => {
  const q = new FairQueue({ slots: 1, perKey: 1 });
  const { granted, releases } = acquireAll(q, ['a', 'a', 'a', 'b', 'b', 'c']);
  for (let i = 0; i < 6; i++) {
    await tick();
    const last = granted.at(-1)!;
    const key = last[0]!;
    releases.get(key)!.shift()!();
  }
  await tick();
  assert.deepEqual(granted, ['a0', 'b3', 'c5', 'a1', 'b4', 'a2']);
  assert.equal(q.running, 0);
  assert.equal(q.pending, 0);
});

test('a free slot goes to the team holding the fewest, even one that came later', async () => {
  const q = new FairQueue({ slots: 2, perKey: 2 });
  const { granted, releases } = acquireAll(q, ['a', 'a', 'a', 'b']);
  await tick();
  assert.deepEqual(granted, ['a0', 'a1'], 'a team alone may use every slot up to its cap');
  releases.get('a')![0]();
  await tick();
  assert.deepEqual(granted, ['a0', 'a1', 'b3']);
});

test('releasing twice frees one slot; run() releases when its work settles, also on failure', async () => {
  const q = new FairQueue({ slots: 1, perKey: 1 });
  const release = await q.acquire('a');
  release();
  release();
  assert.equal(q.running, 0);
  await assert.rejects(q.run('a', async () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(q.running, 0);
  assert.equal(await q.run('a', async () => 7), 7);
});

test('clear() drops waiting grants and says how many', async () => {
  const q = new FairQueue({ slots: 1, perKey: 1 });
  const { granted } = acquireAll(q, ['a', 'a', 'b']);
  await tick();
  assert.equal(q.clear(), 2);
  assert.equal(q.pending, 0);
  assert.deepEqual(granted, ['a0']);
});

test('limits below 1 are refused', () => {
  assert.throws(() => new FairQueue({ slots: 0, perKey: 1 }), RangeError);
  assert.throws(() => new FairQueue({ slots: 1, perKey: 0 }), RangeError);
});

test('capOf sets each key its own cap, read whenever a slot is handed out', async () => {
  const caps = new Map([['fast', 2]]);
  const q = new FairQueue({ slots: 2, perKey: 1, capOf: (key) => caps.get(key) ?? 1 });
  const { granted, releases } = acquireAll(q, ['fast', 'fast', 'slow', 'slow']);
  await tick();
  assert.deepEqual(granted, ['fast0', 'fast1'], 'a key with cap 2 takes both slots');
  releases.get('fast')![0]();
  releases.get('fast')![1]();
  await tick();
  assert.deepEqual(granted, ['fast0', 'fast1', 'slow2'], 'a key with cap 1 takes one slot even with two free');
  caps.set('slow', 2);
  releases.get('slow')![0]();
  await tick();
  assert.deepEqual(granted, ['fast0', 'fast1', 'slow2', 'slow3']);
});
