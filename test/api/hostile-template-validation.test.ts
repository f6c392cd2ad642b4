/**
 * Large template definitions are validated on a render thread, not the HTTP thread: a 10 MB
 * definition takes 0.4 s of CPU to validate, 2 s when every node is faulty, and on the HTTP thread
 * every other request waited that long (a team could send one after another). Past
 * PLATEN_CHECK_IN_THREAD_BYTES (64 KiB) a template save, a preview and the data check before a
 * render run in the team's fair share of the render threads, under the render deadline.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PostgresDb } from '../../db/postgres.ts';
import type { SqliteDb } from '../../db/sqlite.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, waitForJob } from '../helpers/jobs.ts';

let s: TestServer;
let short: TestServer;
let single: TestServer;
before(async () => {
  s = await startTestServer();
  short = await startTestServer({ PLATEN_RENDER_TIMEOUT_MS: '100' });
  single = await startTestServer({ PLATEN_RENDER_THREADS: '1', PLATEN_MAX_IMAGE_OUTPUT_PIXELS: '10000000' });
});
after(async () => {
  await s.close();
  await short.close();
  await single.close();
});

const TEXT = 'lorem ipsum {{x}} '.repeat(28);
/** About 9.5 MB of text nodes (under the 10 MiB body limit) with three faults each (fontSize, color, an unknown key): 51,000 faults. */
const faulty = () => ({ content: Array.from({ length: 17_000 }, () => ({ text: TEXT, fontSize: 'x', color: 'nope', bogus: 1 })) });
/** About 1 MB of valid text nodes reading `x` and looping over `rows`. */
const large = () => ({ content: [...Array.from({ length: 2_000 }, () => ({ text: TEXT, fontSize: 10 })), { each: 'rows', content: [{ text: '{{item}}' }] }] });

interface ErrorBody {
  code: string;
  errors: { path: string; message: string }[];
}

test('a 9.5 MB definition with 51,000 faults: other requests are answered while it is validated, and the save still names every fault', async () => {
  const { apiKey } = await s.team(0);
  const order: string[] = [];
  const save = s.api('POST', '/v1/templates', apiKey, { name: 'big', type: 'pdf', definition: faulty() }).then(async (res) => {
    order.push('save');
    return res;
  });
  // Sent once the save's body is on its way: answered while the render thread validates it.
  await new Promise((r) => setTimeout(r, 300));
  const account = await s.api('GET', '/v1/account', apiKey);
  order.push('account');
  assert.equal(account.status, 200);
  const res = await save;
  assert.deepEqual(order, ['account', 'save']);
  assert.equal(res.status, 400);
  const body = (await res.json()) as ErrorBody;
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.equal(body.errors.length, 51_000);
  assert.deepEqual(body.errors.slice(0, 3).map((e) => e.path).sort(), ['definition.content[0].bogus', 'definition.content[0].color', 'definition.content[0].fontSize']);
});

test('a large valid definition is saved, its data checked before a credit moves (400 naming data, no credit), and rendered', async () => {
  const { teamId, apiKey } = await s.team(2);
  const created = await s.api('POST', '/v1/templates', apiKey, { name: 'large', type: 'pdf', definition: large() });
  assert.equal(created.status, 201, await created.clone().text());
  const { id } = (await created.json()) as { id: string };
  const bad = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { x: 1, rows: 'not a list' }, export_type: 'binary' });
  assert.equal(bad.status, 400);
  assert.deepEqual(((await bad.json()) as ErrorBody).errors.map((e) => e.path), ['data.rows']);
  const preview = await s.api('POST', '/v1/templates/preview', apiKey, { template_id: id, data: { rows: 3 } });
  assert.equal(preview.status, 400);
  assert.deepEqual(((await preview.json()) as ErrorBody).errors.map((e) => e.path), ['data.rows']);
  const ok = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { x: 1, rows: ['a', 'b'] }, export_type: 'binary' });
  assert.equal(ok.status, 200, await ok.clone().text());
  assert.equal(Buffer.from(await ok.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
  assert.equal(account.credits, 1, `team ${teamId}: one credit for the one PDF`);
  // An inline definition in a preview is validated the same way.
  const inline = await s.api('POST', '/v1/templates/preview', apiKey, { definition: { content: [...large().content, { text: 'x', fontSize: -1 }] } });
  assert.equal(inline.status, 400);
  assert.deepEqual(((await inline.json()) as ErrorBody).errors.map((e) => e.path), ['definition.content[2001].fontSize']);
});

test('validating past the render deadline is 400 naming definition, and the server goes on', async () => {
  const { teamId, apiKey } = await short.team(1);
  const res = await short.api('POST', '/v1/templates', apiKey, { name: 'slow', type: 'pdf', definition: faulty() });
  assert.equal(res.status, 400);
  const body = (await res.json()) as ErrorBody;
  assert.deepEqual(body.errors.map((e) => e.path), ['definition']);
  assert.match(body.errors[0].message, /could not be checked: checking it took longer than 100 ms .*make the definition smaller/);
  const id = await short.template(teamId, { content: [{ text: 'small' }, { each: 'rows', content: [{ text: '{{item.a}}' }] }] });
  // Data of a million values is checked on a thread too, whatever the definition: past the deadline, 400 naming data.
  const many = await short.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { rows: Array(1_000_000).fill({}) }, export_type: 'binary' });
  assert.equal(many.status, 400);
  const manyBody = (await many.json()) as ErrorBody;
  assert.deepEqual(manyBody.errors.map((e) => e.path), ['data']);
  assert.match(manyBody.errors[0].message, /could not be checked: checking it took longer than 100 ms .*make the data smaller/);
  const pdf = await short.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { rows: [{ a: 1 }] }, export_type: 'binary' });
  assert.equal(pdf.status, 200);
});

test('the fields of a large definition, and 400 naming id (was 500) for a stored definition that no longer validates', async () => {
  const { teamId, apiKey } = await s.team(0);
  const id = await s.template(teamId, large());
  const res = await s.api('GET', `/v1/templates/${id}/fields`, apiKey);
  assert.equal(res.status, 200);
  assert.deepEqual(((await res.json()) as { fields: unknown[] }).fields, [
    { name: 'x', type: 'string' },
    { name: 'rows', type: 'array' },
    { name: 'rows[]', type: 'string' },
  ]);
  // Written without validation, as a definition stored before a rule that now refuses it.
  const db = s.server.services.db;
  const stale = JSON.stringify({ ...large(), page: { size: [3, 3], margin: 0 } });
  if (db.dialect === 'sqlite') (db as SqliteDb).client.prepare('UPDATE templates SET definition = ? WHERE id = ?').run(stale, id);
  else await (db as PostgresDb).pool.query('UPDATE templates SET definition = $1 WHERE id = $2', [stale, id]);
  const refused = await s.api('GET', `/v1/templates/${id}/fields`, apiKey);
  assert.equal(refused.status, 400);
  const body = (await refused.json()) as ErrorBody;
  assert.deepEqual(body.errors.map((e) => e.path), ['id']);
  assert.match(body.errors[0].message, /no longer validates .*page\.margin/);
});

test('a job of a large definition with placeholders runs on a pool of one thread: its image sources are found on the thread the job holds (waiting for another would wait forever)', async () => {
  const { teamId, apiKey } = await single.team(2);
  const id = await single.template(teamId, large());
  const { job_id } = await createJob(single, apiKey, { template_id: id, data: { x: 1, rows: ['a'] } });
  const job = await waitForJob(single, apiKey, job_id, 60_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  // Image output: a page's pixel size comes from the same check (scale 8 of an A4 page: 4763 x 6736 pixels, past 10 million).
  const image = await single.api('POST', '/v1/image/create', apiKey, { template_id: id, data: { x: 1, rows: [] }, scale: 8 });
  assert.equal(image.status, 400);
  const body = (await image.json()) as ErrorBody;
  assert.deepEqual(body.errors.map((e) => e.path), ['scale']);
  assert.match(body.errors[0].message, /the image would be 4763 x 6736 pixels/);
});

test('data nested 6,000 levels deep beside 10,001 values: 400 naming data, as for small data (copying it to a render thread overflowed the stack: a 500 and a thread restarted)', async () => {
  const { teamId, apiKey } = await s.team(1);
  const id = await s.template(teamId, { content: [{ text: '{{a}}' }] });
  const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
  for (const data of [`{"a":"x","deep":${deep}}`, `{"a":"x","deep":${deep},"pad":[${Array(10_001).fill(0).join(',')}]}`]) {
    for (const [path, body] of [
      ['/v1/pdf/create', `{"template_id":"${id}","data":${data},"export_type":"binary"}`],
      ['/v1/templates/preview', `{"template_id":"${id}","data":${data}}`],
    ]) {
      const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
      assert.equal(res.status, 400, `${path}: ${(await res.clone().text()).slice(0, 200)}`);
      const { errors } = (await res.json()) as ErrorBody;
      assert.deepEqual(errors.map((e) => [e.path, e.message]), [['data', 'the data is nested deeper than 32 levels (objects and arrays)']]);
    }
  }
  const pdf = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { a: 'x' }, export_type: 'binary' });
  assert.equal(pdf.status, 200);
});

test('a stored definition whose check passes the deadline is 400 naming template_id', async () => {
  const { teamId, apiKey } = await short.team(1);
  const id = await short.template(teamId, { content: Array.from({ length: 17_000 }, () => ({ text: TEXT, fontSize: 10 })) });
  const res = await short.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { x: 1 }, export_type: 'binary' });
  assert.equal(res.status, 400);
  const { errors } = (await res.json()) as ErrorBody;
  assert.deepEqual(errors.map((e) => e.path), ['template_id']);
  assert.match(errors[0].message, /could not be checked: checking it took longer than 100 ms .*make the definition smaller/);
});
