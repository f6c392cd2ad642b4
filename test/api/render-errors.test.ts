/**
 * An engine error keeps its code, message and template path across the render thread boundary:
 * in a synchronous answer's render_error and in a failed job's error_code and error_message, with
 * the credit refunded and nothing left pending.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectError, rowCount } from '../helpers/api.ts';
import type { PostgresDb } from '../../db/postgres.ts';
import type { SqliteDb } from '../../db/sqlite.ts';
import { balance, createJob, waitForJob } from '../helpers/jobs.ts';

// Bytes that are no PNG, JPEG or SVG: the engine refuses the image at content[1].image.
const BAD_IMAGE = { content: [{ text: 'x' }, { image: 'data:image/png;base64,AAAAAAAA', width: 50 }] };

let s: TestServer;

/** Writes a definition into a stored template without validating it (as saved before a rule tightened). */
async function storeUnchecked(id: string, definition: unknown): Promise<void> {
  const db = s.server.services.db;
  const json = JSON.stringify(definition);
  if (db.dialect === 'sqlite') (db as SqliteDb).client.prepare('UPDATE templates SET definition = ? WHERE id = ?').run(json, id);
  else await (db as PostgresDb).pool.query('UPDATE templates SET definition = $1 WHERE id = $2', [json, id]);
}

before(async () => {
  s = await startTestServer();
});
after(() => s.close());

test('sync: 500 INTERNAL_ERROR with render_error {code, message, path} of the engine, refunded', async () => {
  const { teamId, apiKey } = await s.team(3);
  const template = await s.template(teamId, BAD_IMAGE);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: {} });
  const body = (await expectError(res, 500, 'INTERNAL_ERROR')) as unknown as { detail: string; render_error: { code: string; message: string; path: string | null } };
  assert.equal(body.render_error.code, 'IMAGE_INVALID');
  assert.equal(body.render_error.path, 'content[1].image');
  assert.match(body.render_error.message, /^content\[1\]\.image: image data is not a PNG, JPEG or SVG/);
  assert.match(body.detail, /refunded/);
  assert.equal(await balance(s, teamId), 3);
  assert.equal(await rowCount(s.server.services.db, 'pendingSyncDebits'), 0);
});

test('async: the job fails with the engine code and message, refunded', async () => {
  const { teamId, apiKey } = await s.team(3);
  const template = await s.template(teamId, BAD_IMAGE);
  const { job_id } = await createJob(s, apiKey, { template_id: template, data: {} });
  const job = await waitForJob(s, apiKey, job_id);
  assert.equal(job.status, 'failed');
  assert.equal(job.error_code, 'IMAGE_INVALID');
  assert.match(job.error_message ?? '', /^content\[1\]\.image: image data is not a PNG, JPEG or SVG/);
  assert.equal(await balance(s, teamId), 3);
});

// An image after a loop and an `if`, and another inside the loop: the loop's items and the branch
// taken shift where the nodes land in the laid-out document, not where they are in the template.
const WIDE_SVG = `data:image/svg+xml;utf8,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="5000" height="10"><rect width="5000" height="10"/></svg>')}`;
const AFTER_LOOP = {
  content: [
    { text: 'x' },
    { each: 'items', as: 'item', content: [{ text: '{{item}}' }, { image: WIDE_SVG }] },
    { if: 'never', then: [{ text: 'no' }] },
    { image: '{{img}}' },
  ],
};

test('a render error and a warning after or inside an each name the node\'s template path, not its place in the expanded document', async () => {
  const { teamId, apiKey } = await s.team(3);
  const template = await s.template(teamId, AFTER_LOOP);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: { items: [1, 2, 3], img: 'data:,' } });
  const body = (await expectError(res, 500, 'INTERNAL_ERROR')) as unknown as { render_error: { code: string; message: string; path: string } };
  assert.equal(body.render_error.code, 'IMAGE_INVALID');
  assert.equal(body.render_error.path, 'content[3].image');
  assert.match(body.render_error.message, /^content\[3\]\.image: /);
  assert.equal(await balance(s, teamId), 3);

  const ok = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: { items: [1, 2, 3], img: WIDE_SVG } });
  assert.equal(ok.status, 200);
  const { warnings } = (await ok.json()) as { warnings: { code: string; path: string }[] };
  const clamped = warnings.filter((w) => w.code === 'IMAGE_CLAMPED').map((w) => w.path);
  assert.deepEqual(clamped.sort(), ['content[1].content[1]', 'content[3]']);
});

test('margins that leave no room: a template stored before save refused them is 400 naming template_id and page.margin, no credit moves', async () => {
  const { teamId, apiKey } = await s.team(3);
  // Save refuses such margins (templates.test.ts); a template stored before it did no longer
  // validates, so it is refused before the render. (A4 is 595 pt wide: 400 + 400 pt of margins once
  // drew the text from x = 400 over the right margin with no warning.)
  for (const page of [{ size: 'A4', margin: [40, 400, 40, 400] }, { size: [3, 3], margin: 0 }, { size: 'A5', margin: [300, 40, 300, 40] }]) {
    const template = await s.template(teamId, { content: [{ text: 'x' }] });
    await storeUnchecked(template, { page, content: [{ text: 'x' }] });
    const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: {} });
    const body = await expectError(res, 400, 'VALIDATION_ERROR');
    assert.deepEqual(body.errors?.map((e) => e.path), ['template_id'], JSON.stringify(page));
    assert.match(body.errors![0].message, /no longer validates .*page\.margin: the (left and right|top and bottom) margins/, JSON.stringify(page));
  }
  assert.equal(await balance(s, teamId), 3);
  // A header that leaves too little room is still the header's fault.
  const tall = await s.template(teamId, { page: { size: 'A5', margin: 40 }, header: [{ text: 'h', height: 510 }], content: [{ text: 'x' }] });
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: tall, data: {} });
  const body = (await expectError(res, 500, 'INTERNAL_ERROR')) as unknown as { render_error: { path: string } };
  assert.equal(body.render_error.path, 'header');
});
