/**
 * How the render pool shares its threads (real worker threads): a team with no finished render
 * yet holds at most PLATEN_RENDER_TEAM_THREADS of them; once its last render was fast it may use
 * every thread.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RenderPool } from '../../src/render/pool.ts';
import { ROOT } from '../helpers/api.ts';

const definition = readFileSync(join(ROOT, 'examples/invoice/template.json'), 'utf8');
const data = JSON.parse(readFileSync(join(ROOT, 'examples/invoice/data.json'), 'utf8'));
const tick = () => new Promise((r) => setImmediate(r));

let pool: RenderPool;
before(() => {
  pool = new RenderPool(2, [], { teamThreads: 1, slowMs: 5000 });
});
after(async () => {
  await pool.close();
});

test('a new team gets one thread of two; after a fast render it may use both', async () => {
  const first = [pool.render(definition, data, { team: 'new' }), pool.render(definition, data, { team: 'new' })];
  await tick();
  assert.equal(pool.waiting, 1, 'the second render of a team with no finished render waits');
  await Promise.all(first);
  const second = [pool.render(definition, data, { team: 'new' }), pool.render(definition, data, { team: 'new' })];
  await tick();
  assert.equal(pool.waiting, 0, 'both renders of a team whose renders are fast start at once');
  await Promise.all(second);
});
