/**
 * Queued generation through the real HTTP API (spec §2.2, §2.4-§2.6, §3, §4.2-§4.4; DESIGN §4):
 * create-async, polling to a terminal state, refunds on failure, request validation that costs
 * nothing, the job list and team scoping.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createJob, getJob, jobCount, balance, ledger, UUID_RE, waitForJob, type JobJson } from '../helpers/jobs.ts';
import { readPdf } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const BROKEN_IMAGE = { content: [{ image: '{{logo}}' }] };
const BROKEN_DATA = { logo: 'data:image/png;base64,AAAA' };

let s: TestServer;
before(async () => {
  s = await startTestServer({ PLATEN_RATE_LIMIT: '100000' });
});
after(async () => {
  await s?.close();
});

async function errorOf(res: Response): Promise<{ code: string; detail: string; errors?: { path: string; message: string }[] }> {
  const body = (await res.json()) as { code: string; detail: string; errors?: { path: string; message: string }[] };
  assert.equal(typeof body.detail, 'string', 'an error body carries a detail');
  return body;
}

describe('lifecycle', () => {
  test('create-async answers 202 pending, the job completes with every §2.5 field, and its URL serves the PDF', async () => {
    const { teamId, apiKey } = await s.team(5);
    const templateId = await s.template(teamId, { content: [{ text: 'Invoice for {{customer.name}}' }, { text: 'Total {{total}}' }] });
    const before = Date.now();
    const res = await s.api('POST', '/v1/pdf/create-async', apiKey, {
      template_id: templateId,
      data: { customer: { name: 'Grace Hopper' }, total: '1234.50' },
      filename: 'invoice-2024.03_A',
      expiration: 3600,
    });
    assert.equal(res.status, 202);
    const created = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(created).sort(), ['credits_remaining', 'job_id', 'status']);
    assert.match(String(created.job_id), UUID_RE);
    assert.equal(created.status, 'pending');
    assert.equal(created.credits_remaining, 4);
    const id = String(created.job_id);

    const seen = new Set<string>();
    const first = await getJob(s, apiKey, id);
    seen.add(first.status);
    assert.ok(['pending', 'processing', 'completed'].includes(first.status), `first poll: ${first.status}`);
    const job = await waitForJob(s, apiKey, id, 20_000, seen);
    for (const st of seen) assert.ok(['pending', 'processing', 'completed'].includes(st), `a successful job went through ${st}`);

    const fields = [
      'id', 'status', 'template_id', 'export_type', 'filename', 'store_s3', 'created_at', 'updated_at', 'completed_at', 'result_url',
      'result_filename', 'result_expires_at', 'result_s3_bucket', 'result_s3_key', 'error_message', 'error_code', 'warnings',
    ];
    for (const f of fields) assert.ok(f in job, `job record has ${f}`);
    assert.equal(job.id, id);
    assert.equal(job.status, 'completed');
    assert.equal(job.template_id, templateId);
    assert.equal(job.export_type, 'url');
    assert.equal(job.filename, 'invoice-2024.03_A');
    assert.equal(job.store_s3, false);
    assert.match(job.created_at, ISO_RE);
    assert.match(job.updated_at, ISO_RE);
    assert.match(String(job.completed_at), ISO_RE);
    assert.ok(Date.parse(job.created_at) >= before - 1000 && Date.parse(job.created_at) <= Date.now());
    assert.ok(Date.parse(job.completed_at!) >= Date.parse(job.created_at));
    assert.ok(Date.parse(job.updated_at) >= Date.parse(job.created_at));
    assert.equal(job.result_filename, 'invoice-2024.03_A.pdf');
    assert.equal(job.result_s3_bucket, null);
    assert.equal(job.result_s3_key, null);
    assert.equal(job.error_message, null);
    assert.equal(job.error_code, null);

    // result_expires_at is the instant the URL's `expires` names (DESIGN §4), about now + expiration.
    const url = new URL(String(job.result_url));
    const expires = Number(url.searchParams.get('expires'));
    assert.ok(Number.isInteger(expires), `result_url has an expires query value: ${url}`);
    assert.match(String(job.result_expires_at), ISO_RE);
    assert.equal(job.result_expires_at, new Date(expires * 1000).toISOString());
    const lifetime = expires - Math.floor(Date.parse(job.completed_at!) / 1000);
    assert.ok(Math.abs(lifetime - 3600) <= 2, `URL lifetime ${lifetime} s, asked for 3600`);
    assert.ok(url.pathname.endsWith('/invoice-2024.03_A.pdf'), url.pathname);

    const pdfRes = await fetch(url); // no API key: the signed URL is the credential
    assert.equal(pdfRes.status, 200);
    assert.equal(pdfRes.headers.get('content-type'), 'application/pdf');
    const pdf = Buffer.from(await pdfRes.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    const text = (await readPdf(pdf)).pages.map((p) => p.text).join('\n');
    assert.match(text, /Invoice for Grace Hopper/);
    assert.match(text, /Total 1234\.50/);

    // One credit taken, once, with the job's id on the ledger row.
    assert.equal(await balance(s, teamId), 4);
    const rows = (await ledger(s, teamId)).filter((r) => r.job_id === id);
    assert.deepEqual(rows.map((r) => [r.delta, r.reason, r.balance_after]), [[-1, 'generation', 4]]);
  });

  test('defaults: filename "document", a URL valid for 86400 s', async () => {
    const { teamId, apiKey } = await s.team(1);
    const templateId = await s.template(teamId, { content: [{ text: 'Hi' }] });
    const { job_id, credits_remaining } = await createJob(s, apiKey, { template_id: templateId, data: {} });
    assert.equal(credits_remaining, 0);
    const job = await waitForJob(s, apiKey, job_id);
    assert.equal(job.status, 'completed');
    assert.equal(job.filename, 'document');
    assert.equal(job.result_filename, 'document.pdf');
    const lifetime = Date.parse(job.result_expires_at!) / 1000 - Math.floor(Date.parse(job.completed_at!) / 1000);
    assert.ok(Math.abs(lifetime - 86400) <= 2, `URL lifetime ${lifetime} s`);
  });

  test('a failing render ends failed with an error code and message, and the credit is refunded', async () => {
    const { teamId, apiKey } = await s.team(2);
    const templateId = await s.template(teamId, BROKEN_IMAGE);
    const { job_id, credits_remaining } = await createJob(s, apiKey, { template_id: templateId, data: BROKEN_DATA });
    assert.equal(credits_remaining, 1);
    const job = await waitForJob(s, apiKey, job_id);
    assert.equal(job.status, 'failed');
    assert.ok(job.error_code === 'IMAGE_INVALID' || job.error_code === 'RENDER_ERROR', `error_code ${job.error_code}`);
    assert.equal(typeof job.error_message, 'string');
    assert.ok(job.error_message!.length > 0);
    assert.equal(job.result_url, null);
    assert.equal(job.result_filename, null);
    assert.equal(job.result_expires_at, null);
    assert.equal(job.result_s3_bucket, null);
    assert.equal(job.result_s3_key, null);

    assert.equal(await balance(s, teamId), 2, 'balance back where it was');
    const rows = (await ledger(s, teamId)).filter((r) => r.job_id === job_id);
    assert.deepEqual(
      rows.map((r) => [r.delta, r.reason, r.balance_after]),
      [
        [-1, 'generation', 1],
        [1, 'refund', 2],
      ],
    );
    // The refund shows in the account as well.
    const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
    assert.equal(account.credits, 2);
  });
});

describe('template versions', () => {
  test('version selects a snapshot; the definition is fixed when the job is queued', async () => {
    const { teamId, apiKey } = await s.team(10);
    const templateId = await s.template(teamId, { content: [{ text: 'V1 text for {{name}}' }] });
    const v = await s.api('POST', `/v1/templates/${templateId}/versions`, apiKey, { tag: 'stable' });
    assert.equal(v.status, 201);
    const edit = await s.api('PUT', `/v1/templates/${templateId}`, apiKey, { definition: { content: [{ text: 'DRAFT text for {{name}}' }] } });
    assert.equal(edit.status, 200);

    const textOf = async (job: JobJson) => (await readPdf(Buffer.from(await (await fetch(String(job.result_url))).arrayBuffer()))).pages[0].text;
    const byNumber = await createJob(s, apiKey, { template_id: templateId, data: { name: 'Ada' }, version: '1' });
    const byTag = await createJob(s, apiKey, { template_id: templateId, data: { name: 'Ada' }, version: 'stable' });
    const draft = await createJob(s, apiKey, { template_id: templateId, data: { name: 'Ada' } });
    // Editing the draft after queueing does not change what a queued job renders.
    await s.api('PUT', `/v1/templates/${templateId}`, apiKey, { definition: { content: [{ text: 'LATER text' }] } });
    assert.match(await textOf(await waitForJob(s, apiKey, byNumber.job_id)), /V1 text for Ada/);
    assert.match(await textOf(await waitForJob(s, apiKey, byTag.job_id)), /V1 text for Ada/);
    const draftText = await textOf(await waitForJob(s, apiKey, draft.job_id));
    assert.match(draftText, /DRAFT text for Ada/);

    const jobsBefore = await jobCount(s, teamId);
    const creditsBefore = await balance(s, teamId);
    for (const version of ['2', 'nope']) {
      const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: templateId, data: {}, version });
      assert.equal(res.status, 404, `version ${version}`);
      assert.equal((await errorOf(res)).code, 'TEMPLATE_VERSION_NOT_FOUND');
    }
    const long = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: templateId, data: {}, version: 'v'.repeat(51) });
    assert.equal(long.status, 400);
    const s3 = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: templateId, data: {}, store_s3: true });
    assert.equal(s3.status, 400);
    assert.equal((await errorOf(s3)).code, 'S3_INTEGRATION_MISSING');
    assert.equal(await jobCount(s, teamId), jobsBefore, 'no job for a refused request');
    assert.equal(await balance(s, teamId), creditsBefore, 'no credit for a refused request');
  });
});

describe('create-async refusals cost nothing and create no job', () => {
  let teamId: string;
  let apiKey: string;
  let templateId: string;
  before(async () => {
    ({ teamId, apiKey } = await s.team(50));
    templateId = await s.template(teamId, { content: [{ text: 'Hello {{name}}' }] });
  });

  /** Send `body`, expect `status` (and `code`, `path`), and check nothing was queued or charged. */
  async function refused(body: unknown, status: number, code: string, path?: string, key = apiKey): Promise<void> {
    const jobsBefore = await jobCount(s, teamId);
    const creditsBefore = await balance(s, teamId);
    const ledgerBefore = (await ledger(s, teamId)).length;
    const res = await s.api('POST', '/v1/pdf/create-async', key, body);
    const err = await errorOf(res);
    assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 200)} -> ${res.status} ${JSON.stringify(err)}`);
    assert.equal(err.code, code);
    if (path !== undefined) {
      assert.ok(err.errors?.some((e) => e.path === path), `an error with path ${path}: ${JSON.stringify(err.errors)}`);
    }
    assert.equal(await jobCount(s, teamId), jobsBefore, 'no job was created');
    assert.equal(await balance(s, teamId), creditsBefore, 'no credit was taken');
    assert.equal((await ledger(s, teamId)).length, ledgerBefore, 'nothing on the ledger');
  }

  async function accepted(extra: Record<string, unknown>): Promise<JobJson> {
    const { job_id } = await createJob(s, apiKey, { template_id: templateId, data: { name: 'x' }, ...extra });
    return waitForJob(s, apiKey, job_id);
  }

  test('export_type "binary" is refused (async supports "url" only); "url" is accepted', async () => {
    await refused({ template_id: templateId, data: {}, export_type: 'binary' }, 400, 'VALIDATION_ERROR', 'export_type');
    await refused({ template_id: templateId, data: {}, export_type: 'pdf' }, 400, 'VALIDATION_ERROR', 'export_type');
    assert.equal((await accepted({ export_type: 'url' })).status, 'completed');
  });

  test('webhook_secret must be 16-256 characters', async () => {
    const base = { template_id: templateId, data: {} };
    await refused({ ...base, webhook_secret: 'a'.repeat(15) }, 400, 'VALIDATION_ERROR', 'webhook_secret');
    await refused({ ...base, webhook_secret: 'a'.repeat(257) }, 400, 'VALIDATION_ERROR', 'webhook_secret');
    await refused({ ...base, webhook_secret: '' }, 400, 'VALIDATION_ERROR', 'webhook_secret');
    await refused({ ...base, webhook_secret: 12345678901234567 }, 400, 'VALIDATION_ERROR', 'webhook_secret');
    assert.equal((await accepted({ webhook_secret: 'b'.repeat(16) })).status, 'completed');
    assert.equal((await accepted({ webhook_secret: 'c'.repeat(256) })).status, 'completed');
  });

  test('expiration bounds are 60..604800 whole seconds, as in sync', async () => {
    const base = { template_id: templateId, data: {} };
    for (const expiration of [59, 0, -1, 604801, 3600.5, '3600', null]) {
      await refused({ ...base, expiration }, 400, 'VALIDATION_ERROR', 'expiration');
    }
    for (const expiration of [60, 604800]) {
      const job = await accepted({ expiration });
      assert.equal(job.status, 'completed');
      const lifetime = Date.parse(job.result_expires_at!) / 1000 - Math.floor(Date.parse(job.completed_at!) / 1000);
      assert.ok(Math.abs(lifetime - expiration) <= 2, `expiration ${expiration}: URL lifetime ${lifetime}`);
    }
  });

  test('filename rules as in sync: max 100 chars, alphanumerics _ - . only, no .pdf', async () => {
    const base = { template_id: templateId, data: {} };
    for (const filename of ['a'.repeat(101), 'report.pdf', 'REPORT.PDF', 'bad name', 'a/b', '../x', 'é', '', 42]) {
      await refused({ ...base, filename }, 400, 'VALIDATION_ERROR', 'filename');
    }
    const long = await accepted({ filename: 'a'.repeat(100) });
    assert.equal(long.result_filename, `${'a'.repeat(100)}.pdf`);
    const dotted = await accepted({ filename: 'Q1_report-v2.final' });
    assert.equal(dotted.result_filename, 'Q1_report-v2.final.pdf');
  });

  test('template_id and data are required; data must be an object', async () => {
    await refused({ data: {} }, 400, 'VALIDATION_ERROR', 'template_id');
    await refused({ template_id: templateId }, 400, 'VALIDATION_ERROR', 'data');
    await refused({ template_id: templateId, data: [1, 2] }, 400, 'VALIDATION_ERROR', 'data');
    await refused({ template_id: 'short', data: {} }, 400, 'VALIDATION_ERROR', 'template_id');
  });

  test('unknown template 404, another team\'s 403, image template 400, no key 401', async () => {
    await refused({ template_id: 'ZZZZZZZZZZZZ', data: {} }, 404, 'TEMPLATE_NOT_FOUND');
    const other = await s.team(5);
    const othersTemplate = await s.template(other.teamId, { content: [{ text: 'theirs' }] });
    await refused({ template_id: othersTemplate, data: {} }, 403, 'FORBIDDEN');
    assert.equal(await jobCount(s, other.teamId), 0);
    assert.equal(await balance(s, other.teamId), 5);
    const image = await s.template(teamId, { content: [{ text: 'img' }] }, 'image');
    await refused({ template_id: image, data: {} }, 400, 'BAD_REQUEST');
    await refused({ template_id: templateId, data: {} }, 401, 'UNAUTHORIZED', undefined, 'pk_not_a_real_key');
  });

  test('a team with 0 credits gets 402 INSUFFICIENT_CREDITS and no job', async () => {
    const poor = await s.team(0);
    const t = await s.template(poor.teamId, { content: [{ text: 'x' }] });
    const res = await s.api('POST', '/v1/pdf/create-async', poor.apiKey, { template_id: t, data: {} });
    assert.equal(res.status, 402);
    assert.equal((await errorOf(res)).code, 'INSUFFICIENT_CREDITS');
    assert.equal(await jobCount(s, poor.teamId), 0);
    assert.equal(await balance(s, poor.teamId), 0);
    assert.deepEqual(await ledger(s, poor.teamId), []);
    const list = (await (await s.api('GET', '/v1/pdf/jobs', poor.apiKey)).json()) as { total: number };
    assert.equal(list.total, 0);
  });

  test('the last credit buys exactly one job', async () => {
    const one = await s.team(1);
    const t = await s.template(one.teamId, { content: [{ text: 'x' }] });
    const results = await Promise.all([1, 2, 3, 4].map(() => s.api('POST', '/v1/pdf/create-async', one.apiKey, { template_id: t, data: {} })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [202, 402, 402, 402]);
    assert.equal(await jobCount(s, one.teamId), 1);
    assert.equal(await balance(s, one.teamId), 0);
  });
});

describe('the job list and job lookups', () => {
  let a: { teamId: string; apiKey: string };
  let b: { teamId: string; apiKey: string };
  const ids: string[] = []; // creation order
  let failedId: string;

  interface List {
    jobs: JobJson[];
    total: number;
    limit: number;
    offset: number;
  }
  async function list(key: string, query = ''): Promise<List> {
    const res = await s.api('GET', `/v1/pdf/jobs${query}`, key);
    assert.equal(res.status, 200, `GET /v1/pdf/jobs${query} -> ${res.status}`);
    return (await res.json()) as List;
  }

  before(async () => {
    a = await s.team(20);
    b = await s.team(20);
    const good = await s.template(a.teamId, { content: [{ text: 'job {{n}}' }] });
    const bad = await s.template(a.teamId, BROKEN_IMAGE);
    for (let n = 0; n < 6; n++) {
      const body = n === 2 ? { template_id: bad, data: BROKEN_DATA } : { template_id: good, data: { n } };
      ids.push((await createJob(s, a.apiKey, body)).job_id);
    }
    failedId = ids[2];
    for (const id of ids) await waitForJob(s, a.apiKey, id);
    const bTemplate = await s.template(b.teamId, { content: [{ text: 'b' }] });
    await waitForJob(s, b.apiKey, (await createJob(s, b.apiKey, { template_id: bTemplate, data: {} })).job_id);
  });

  test('newest first, with total, default limit 20 and offset 0', async () => {
    const page = await list(a.apiKey);
    assert.equal(page.total, 6);
    assert.equal(page.limit, 20);
    assert.equal(page.offset, 0);
    assert.deepEqual(page.jobs.map((j) => j.id), [...ids].reverse());
    for (const j of page.jobs) {
      for (const f of ['id', 'status', 'template_id', 'export_type', 'created_at', 'error_message', 'error_code']) assert.ok(f in j, `list item has ${f}`);
    }
    const failed = page.jobs.find((j) => j.id === failedId)!;
    assert.equal(failed.status, 'failed');
    assert.ok(failed.error_code && failed.error_message);
    const done = page.jobs.find((j) => j.id === ids[0])!;
    assert.equal(done.status, 'completed');
    assert.equal(done.error_code, null);
    assert.equal(done.error_message, null);
  });

  test('limit and offset page through the list', async () => {
    const reversed = [...ids].reverse();
    const p1 = await list(a.apiKey, '?limit=2');
    assert.deepEqual(p1.jobs.map((j) => j.id), reversed.slice(0, 2));
    assert.equal(p1.total, 6);
    assert.equal(p1.limit, 2);
    const p2 = await list(a.apiKey, '?limit=2&offset=2');
    assert.deepEqual(p2.jobs.map((j) => j.id), reversed.slice(2, 4));
    assert.equal(p2.offset, 2);
    const p3 = await list(a.apiKey, '?limit=100&offset=5');
    assert.deepEqual(p3.jobs.map((j) => j.id), reversed.slice(5));
    const beyond = await list(a.apiKey, '?offset=50');
    assert.deepEqual(beyond.jobs, []);
    assert.equal(beyond.total, 6);
  });

  test('status filters the list and its total', async () => {
    const failed = await list(a.apiKey, '?status=failed');
    assert.equal(failed.total, 1);
    assert.deepEqual(failed.jobs.map((j) => j.id), [failedId]);
    const completed = await list(a.apiKey, '?status=completed&limit=3');
    assert.equal(completed.total, 5);
    assert.deepEqual(completed.jobs.map((j) => j.id), [...ids].reverse().filter((id) => id !== failedId).slice(0, 3));
    for (const st of ['pending', 'processing']) {
      const none = await list(a.apiKey, `?status=${st}`);
      assert.equal(none.total, 0);
      assert.deepEqual(none.jobs, []);
    }
  });

  test('bad limit, offset or status is 400 VALIDATION_ERROR', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-3', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['status=done', 'status'],
      ['status=COMPLETED', 'status'],
    ];
    for (const [q, path] of cases) {
      const res = await s.api('GET', `/v1/pdf/jobs?${q}`, a.apiKey);
      const err = await errorOf(res);
      assert.equal(res.status, 400, `?${q} -> ${res.status}`);
      assert.equal(err.code, 'VALIDATION_ERROR', `?${q}`);
      assert.ok(err.errors?.some((e) => e.path === path), `?${q}: ${JSON.stringify(err.errors)}`);
    }
    assert.equal((await list(a.apiKey, '?limit=1')).jobs.length, 1);
    assert.equal((await list(a.apiKey, '?limit=100')).limit, 100);
  });

  test('jobs are team-scoped: another team neither lists nor reads them (404 JOB_NOT_FOUND)', async () => {
    const bList = await list(b.apiKey);
    assert.equal(bList.total, 1);
    assert.ok(!bList.jobs.some((j) => ids.includes(j.id)));
    const aList = await list(a.apiKey, '?limit=100');
    assert.ok(!aList.jobs.some((j) => j.id === bList.jobs[0].id));

    for (const id of [ids[0], failedId]) {
      const res = await s.api('GET', `/v1/pdf/jobs/${id}`, b.apiKey);
      assert.equal(res.status, 404);
      const err = await errorOf(res);
      assert.equal(err.code, 'JOB_NOT_FOUND');
      assert.ok(!JSON.stringify(err).includes('result_url'));
    }
    const own = await s.api('GET', `/v1/pdf/jobs/${bList.jobs[0].id}`, a.apiKey);
    assert.equal(own.status, 404);
    assert.equal((await errorOf(own)).code, 'JOB_NOT_FOUND');
  });

  test('an unknown job id is 404 JOB_NOT_FOUND; the list and lookups need a key', async () => {
    // %00: a NUL character, which PostgreSQL text cannot hold (it was 500 there, not 404).
    for (const id of ['00000000-0000-4000-8000-000000000000', crypto.randomUUID(), 'not-a-uuid', '%00', `${ids[0]}%00`, 'a%00b', ids[0].toUpperCase()]) {
      const res = await s.api('GET', `/v1/pdf/jobs/${id}`, a.apiKey);
      assert.equal(res.status, 404, id);
      assert.equal((await errorOf(res)).code, 'JOB_NOT_FOUND');
    }
    assert.equal((await s.api('GET', '/v1/pdf/jobs', null)).status, 401);
    assert.equal((await s.api('GET', `/v1/pdf/jobs/${ids[0]}`, null)).status, 401);
  });

  test('the list item of a job equals its record', async () => {
    const page = await list(a.apiKey);
    for (const item of page.jobs) {
      const record = await getJob(s, a.apiKey, item.id);
      for (const [k, v] of Object.entries(item)) assert.deepEqual(v, (record as unknown as Record<string, unknown>)[k], `${item.id} ${k}`);
    }
  });
});

describe('newest-first order of jobs created in quick succession', () => {
  test('jobs created one after another list in exactly the reverse order', async () => {
    const { teamId, apiKey } = await s.team(40);
    const t = await s.template(teamId, { content: [{ text: 'x' }] });
    const ids: string[] = [];
    for (let n = 0; n < 30; n++) ids.push((await createJob(s, apiKey, { template_id: t, data: {} })).job_id);
    const page = (await (await s.api('GET', '/v1/pdf/jobs?limit=100', apiKey)).json()) as { jobs: JobJson[] };
    const createdAt = page.jobs.map((j) => j.created_at);
    const ties = createdAt.filter((c, i) => createdAt.indexOf(c) !== i).length;
    assert.deepEqual(page.jobs.map((j) => j.id), [...ids].reverse(), `newest first (${ties} job(s) share a created_at millisecond with an earlier one)`);
    for (const id of ids) await waitForJob(s, apiKey, id);
  });
});
