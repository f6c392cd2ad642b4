/**
 * Many large requests of one team at once: each waits for a render thread with its body in memory,
 * so the memory a team's bodies in flight hold is bounded (PLATEN_MAX_TEAM_IN_FLIGHT_BYTES; a body
 * counts at least 5 times its size: its text and two parsed copies). Before, 40
 * concurrent 8 MB creates grew the process by 0.7 GB, and nothing stopped 600 of them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_MAX_TEAM_IN_FLIGHT_BYTES: String(15 * 1024 * 1024) });
});
after(async () => {
  await s.close();
});

/** A create whose body (`bytes` long, declared in Content-Length) is only half sent: it stays in flight until `finish`. */
function halfSent(apiKey: string, templateId: string, bytes: number): { req: ClientRequest; finish: () => Promise<number> } {
  const body = JSON.stringify({ template_id: templateId, data: { pad: '' } });
  const padded = Buffer.from(body.replace('"pad":""', `"pad":"${'p'.repeat(bytes - body.length)}"`));
  assert.equal(padded.length, bytes);
  const url = new URL('/v1/pdf/create', s.url);
  let resolveStatus: (n: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const req = request(url, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': String(bytes) } }, (res) => {
    res.resume();
    resolveStatus(res.statusCode ?? 0);
  });
  req.write(padded.subarray(0, bytes / 2));
  return {
    req,
    finish: () => {
      req.end(padded.subarray(bytes / 2));
      return status;
    },
  };
}

test('a second large body of a team whose bodies in flight would pass the budget is refused with 429 before it is read; small requests and other teams go on', async () => {
  const { teamId, apiKey } = await s.team(5);
  const other = await s.team(5);
  const id = await s.template(teamId, { content: [{ text: 'x' }] });
  const otherId = await s.template(other.teamId, { content: [{ text: 'x' }] });
  const first = halfSent(apiKey, id, 2 * 1024 * 1024);
  // Wait until the server has authenticated the first request (its half body is on the way).
  await new Promise((r) => setTimeout(r, 300));

  const big = { template_id: id, data: { pad: 'p'.repeat(2 * 1024 * 1024) } };
  const refused = await s.api('POST', '/v1/pdf/create', apiKey, big);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '1');
  const body = (await refused.json()) as { code: string; detail: string };
  assert.equal(body.code, 'RATE_LIMIT_EXCEEDED');
  assert.match(body.detail, /PLATEN_MAX_TEAM_IN_FLIGHT_BYTES/);

  // A small create of the same team fits beside it; another team's large one is its own budget.
  assert.equal((await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {} })).status, 200);
  assert.equal((await s.api('POST', '/v1/pdf/create', other.apiKey, { ...big, template_id: otherId })).status, 200);
  // A preview shares the team's budget.
  assert.equal((await s.api('POST', '/v1/templates/preview', apiKey, { definition: { content: [] }, data: { pad: 'p'.repeat(2 * 1024 * 1024) } })).status, 429);

  assert.equal(await first.finish(), 200);
  // Answered: the budget is free again.
  assert.equal((await s.api('POST', '/v1/pdf/create', apiKey, big)).status, 200);
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 2, 'three creates rendered, the refused ones cost nothing');
});

test('one body larger than the whole budget is taken when nothing else of the team is in flight', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: 'x' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { pad: 'p'.repeat(4 * 1024 * 1024) } });
  assert.equal(res.status, 200);
});
