/**
 * Image fetches of one team at once are bounded (PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY): 80 renders
 * of one team at once, 4 fetches each, fetched 320 images together while other teams' requests
 * waited. Past the bound a team's fetches wait their turn; another team's do not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TeamSlots } from '../../src/services/team-slots.ts';
import { startImageServer, type ImageServer } from '../helpers/https-images.ts';
import { encodePng } from '../helpers/images.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const PNG = encodePng(4, 4, () => [10, 20, 30, 255]);
let images: ImageServer;
let s: TestServer;
let now = 0;
let most = 0;

before(async () => {
  // Every image answers after 300 ms; the server counts the requests it has open at once.
  const slow = (_req: unknown, res: import('node:http').ServerResponse) => {
    most = Math.max(most, ++now);
    setTimeout(() => {
      now--;
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PNG);
    }, 300);
  };
  images = await startImageServer({
    ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`/img${i}.png`, slow])),
    '/cached.png': { headers: { 'content-type': 'image/png', 'cache-control': 'max-age=600' }, body: PNG },
  });
  s = await startTestServer({ PLATEN_IMAGE_ALLOW_PRIVATE: 'true', PLATEN_IMAGE_FETCH_CA_FILE: images.caFile, PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY: '2' });
});
after(async () => {
  await s.close();
  await images.close();
});

const template = { content: [{ each: 'urls', content: [{ image: '{{item}}', width: 10 }] }] };

test("one team's renders fetch at most PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY images at once, and all render; another team's fetches are not held up by them", async () => {
  const a = await s.team(10);
  const b = await s.team(10);
  const idA = await s.template(a.teamId, template);
  const idB = await s.template(b.teamId, template);
  const urls = (from: number) => Array.from({ length: 3 }, (_, i) => `${images.origin}/img${from + i}.png`);
  // Team A: 3 renders of 3 images each (9 fetches, 4 at once per render): never more than 2 open.
  most = 0;
  const statuses = await Promise.all([0, 3, 6].map((from) => s.api('POST', '/v1/pdf/create', a.apiKey, { template_id: idA, data: { urls: urls(from) } }).then((r) => r.status)));
  assert.deepEqual(statuses, [200, 200, 200]);
  assert.equal(most, 2, `the image server saw ${most} of team A's fetches at once`);
  // Both teams at once: B's fetches run beside A's (more than 2 open), each team at most 2.
  most = 0;
  const both = await Promise.all([
    s.api('POST', '/v1/pdf/create', a.apiKey, { template_id: idA, data: { urls: urls(0) } }),
    s.api('POST', '/v1/pdf/create', b.apiKey, { template_id: idB, data: { urls: urls(3) } }),
  ]);
  assert.deepEqual(both.map((r) => r.status), [200, 200]);
  assert.equal(most, 4, `the image server saw ${most} fetches at once: 2 of each team`);
});

test('an image fresh in the cache needs no slot: a render of it does not wait behind the team\'s slow fetches', async () => {
  // Slots wait at most the fetch timeout (500 ms); the team's two slots are held by 400 ms fetches
  // for 800 ms, so a render queued behind them for a slot would fail.
  const slow400 = (_req: unknown, res: import('node:http').ServerResponse) => setTimeout(() => res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PNG), 400);
  for (let i = 0; i < 4; i++) images.route(`/slow${i}.png`, slow400);
  const server = await startTestServer({ PLATEN_IMAGE_ALLOW_PRIVATE: 'true', PLATEN_IMAGE_FETCH_CA_FILE: images.caFile, PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY: '2', PLATEN_IMAGE_FETCH_TIMEOUT_MS: '500' });
  try {
    const { teamId, apiKey } = await server.team(10);
    const id = await server.template(teamId, template);
    const cached = { template_id: id, data: { urls: [`${images.origin}/cached.png`] } };
    assert.equal((await server.api('POST', '/v1/pdf/create', apiKey, cached)).status, 200);
    const slow = server.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { urls: Array.from({ length: 4 }, (_, i) => `${images.origin}/slow${i}.png`) } });
    await new Promise((r) => setTimeout(r, 100));
    const quick = await server.api('POST', '/v1/pdf/create', apiKey, cached);
    assert.equal(quick.status, 200, await quick.clone().text());
    await slow;
  } finally {
    await server.close();
  }
});

test('a task that waits past its time for a slot fails with the error given and never runs; slots pass in order', async () => {
  const slots = new TeamSlots(1);
  const order: string[] = [];
  let release!: () => void;
  const first = slots.run('t', 1000, () => new Error('busy'), () => new Promise<void>((r) => (release = r)).then(() => void order.push('first')));
  let ran = false;
  await assert.rejects(slots.run('t', 50, () => new Error('busy'), async () => void (ran = true)), /busy/);
  assert.equal(ran, false);
  const second = slots.run('t', 1000, () => new Error('busy'), async () => void order.push('second'));
  const other = slots.run('u', 10, () => new Error('busy'), async () => void order.push('other team'));
  await other;
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['other team', 'first', 'second']);
  assert.equal(slots.running('t'), 0);
});
