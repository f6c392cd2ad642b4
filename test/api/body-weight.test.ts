/**
 * A body counts what it holds parsed, not its bytes: 10 MB of `{},{},...` is 3.5 million objects,
 * about 570 MB while a request holds it (before, the team budget counted it as 10 MB, and ten of
 * them at once took the process to 3.8 GB). Weighed once read (middleware/body-weight.ts): a body
 * heavier than 20 x PLATEN_MAX_BODY_BYTES is 413, one that takes the team past its budget 429.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { jsonBodyWeight } from '../../src/middleware/body-weight.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const MiB = 1024 * 1024;
let s: TestServer;
before(async () => {
  // One body may hold 20 x 4 MiB = 80 MiB; a team's bodies 25 MiB together.
  s = await startTestServer({ PLATEN_MAX_BODY_BYTES: String(4 * MiB), PLATEN_MAX_TEAM_IN_FLIGHT_BYTES: String(25 * MiB) });
});
after(async () => {
  await s.close();
});

/** A create with a `pad` string of `padBytes`, half sent once authenticated, so that it stays in flight until `finish`. */
async function halfSent(apiKey: string, id: string, padBytes: number): Promise<{ finish: () => Promise<number> }> {
  const body = Buffer.from(JSON.stringify({ template_id: id, data: { pad: 'p'.repeat(padBytes) } }));
  const req = request(new URL('/v1/pdf/create', s.url), { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': String(body.length) } });
  const status = new Promise<number>((resolve) => req.on('response', (r) => (r.resume(), resolve(r.statusCode ?? 0))));
  req.write(body.subarray(0, body.length / 2));
  await new Promise((r) => setTimeout(r, 300));
  return { finish: () => (req.end(body.subarray(body.length / 2)), status) };
}

/** `{"template_id": id, "data": {"a": [<piece>,<piece>,...]}}` of about `bytes` bytes. */
function bodyOf(id: string, piece: string, bytes: number): string {
  const n = Math.floor(bytes / (piece.length + 1));
  return `{"template_id":"${id}","data":{"a":[${Array(n).fill(piece).join(',')}]}}`;
}

test('the weight of a JSON body: its text and two parsed copies; brackets and commas inside strings do not count', () => {
  const text = jsonBodyWeight(Buffer.from(JSON.stringify({ s: 'x'.repeat(1000) })));
  assert.equal(text.containers, 1);
  assert.ok(text.weight >= 5 * text.bytes && text.weight < 5 * text.bytes + 200, `${text.weight} for ${text.bytes} bytes`);
  const tricky = jsonBodyWeight(Buffer.from(JSON.stringify({ s: '{[,],}"\\{[' })));
  assert.equal(tricky.containers, 1, 'brackets in a string, after escaped quotes and backslashes, are text');
  const empties = jsonBodyWeight(Buffer.from(`[${Array(1000).fill('{}').join(',')}]`));
  assert.equal(empties.containers, 1001);
  assert.ok(empties.weight > 40 * empties.bytes, `${empties.weight} for ${empties.bytes} bytes: {} is far heavier than its two bytes`);
});

test('a body of millions of tiny values is refused with 413 naming its objects, and costs nothing; a body of the same size in one string is taken', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, { content: [{ text: 'x' }] });
  // 3 MiB of {}: about a million objects, ~170 MiB once parsed twice.
  const res = await fetch(new URL('/v1/pdf/create', s.url), { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: bodyOf(id, '{}', 3 * MiB) });
  assert.equal(res.status, 413);
  const body = (await res.json()) as { code: string; detail: string };
  assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
  assert.match(body.detail, /\d{6,} objects and arrays .* PLATEN_MAX_BODY_BYTES/);
  const ok = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { pad: 'p'.repeat(3 * MiB) } });
  assert.equal(ok.status, 200);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1, 'one render, the refused body cost nothing');
});

test('a body whose weight, not its size, takes the team past its budget is refused with 429 once read; alone it is taken', async () => {
  const { teamId, apiKey } = await s.team(5);
  const id = await s.template(teamId, { content: [{ text: 'x' }] });
  // A first request holding 2 MiB x 5 = 10 MiB, half sent so that it stays in flight.
  const first = await halfSent(apiKey, id, 2 * MiB);
  // 1 MiB of []: 5 MiB by its length (fits beside the first), ~57 MiB once weighed (does not).
  const arrays = bodyOf(id, '[]', MiB);
  const refused = await fetch(new URL('/v1/pdf/create', s.url), { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: arrays });
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.match(((await refused.json()) as { detail: string }).detail, /PLATEN_MAX_TEAM_IN_FLIGHT_BYTES/);
  assert.equal(await first.finish(), 200);
  // Nothing else in flight: the same body is taken (it is under the 80 MiB one body may hold).
  const alone = await fetch(new URL('/v1/pdf/create', s.url), { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: arrays });
  assert.equal(alone.status, 200);
});

test('a small body is weighed too: 200 KB of {} holds about 11 MiB', async () => {
  const { teamId, apiKey } = await s.team(5);
  const id = await s.template(teamId, { content: [{ text: 'x' }] });
  // 3 MiB of text (15 MiB held), half sent; then 200 KB of {}: 1 MiB by its length, ~11 MiB weighed.
  const first = await halfSent(apiKey, id, 3 * MiB);
  const empties = bodyOf(id, '{}', 200_000);
  const refused = await fetch(new URL('/v1/pdf/create', s.url), { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: empties });
  assert.equal(refused.status, 429);
  assert.equal(await first.finish(), 200);
});
