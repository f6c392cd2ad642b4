/**
 * Renders that run past their deadline or their thread's memory are stopped and answered, on a real
 * server with real render threads: sync is 500 INTERNAL_ERROR with render_error {code, message,
 * path} and a refund, async fails the job with the code and a refund, and the server renders the
 * next invoice as before. A thread whose heap stays high is replaced between renders; a render
 * running past PLATEN_RENDER_SLOW_MS runs at a lower CPU priority until it ends.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectError, rowCount } from '../helpers/api.ts';
import { balance, createJob, ledger, waitForJob } from '../helpers/jobs.ts';
import { SLOW_DEFINITION, slowDocumentData } from '../helpers/slow-document.ts';
import { waitFor } from '../helpers/wait.ts';

const INVOICE = JSON.parse(readFileSync(new URL('../../examples/invoice/template.json', import.meta.url), 'utf8')) as unknown;
const INVOICE_DATA = JSON.parse(readFileSync(new URL('../../examples/invoice/data.json', import.meta.url), 'utf8')) as unknown;
// 800 paragraphs: about 200 pages, seconds of rendering and some 330 MiB of heap on a warm thread.
const SLOW_DATA = slowDocumentData(800);
// 1,200 paragraphs (1.8 million characters, under the 2 million limit): 3 s or more of a warm thread.
const SLOWER_DATA = slowDocumentData(1200);

interface RenderErrorBody {
  code: string;
  detail: string;
  render_error: { code: string; message: string; path: string | null };
}

/** A sync render of `template` that must fail with `code`; checks the answer's shape. */
async function expectRenderFailure(s: TestServer, apiKey: string, template: string, code: string, data: unknown = SLOW_DATA): Promise<RenderErrorBody> {
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data, export_type: 'binary' });
  const body = (await expectError(res, 500, 'INTERNAL_ERROR')) as unknown as RenderErrorBody;
  assert.equal(body.render_error.code, code, JSON.stringify(body));
  assert.equal(typeof body.render_error.message, 'string');
  assert.ok(body.render_error.message.length > 0);
  assert.equal(body.render_error.path, null);
  assert.match(body.detail, /refunded/);
  return body;
}

/** The invoice still renders: 200 and a PDF. */
async function expectInvoice(s: TestServer, apiKey: string, template: string): Promise<void> {
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: template, data: INVOICE_DATA, export_type: 'binary' });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, bytes.toString().slice(0, 300));
  assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
}

function pendingSyncDebits(s: TestServer): Promise<number> {
  return rowCount(s.server.services.db, 'pendingSyncDebits');
}

describe('a render past PLATEN_RENDER_TIMEOUT_MS', () => {
  let s: TestServer;
  before(async () => {
    // 1 s: a warm invoice renders in tens of ms, the slower document needs 3 s or more.
    s = await startTestServer({ PLATEN_RENDER_TIMEOUT_MS: '1000' });
  });
  after(() => s.close());

  test('sync: 500 with render_error RENDER_TIMEOUT, refunded; the next invoice renders', async () => {
    const { teamId, apiKey } = await s.team(5);
    const slow = await s.template(teamId, SLOW_DEFINITION);
    const invoice = await s.template(teamId, INVOICE);
    await expectInvoice(s, apiKey, invoice);
    const body = await expectRenderFailure(s, apiKey, slow, 'RENDER_TIMEOUT', SLOWER_DATA);
    assert.match(body.render_error.message, /1000 ms/);
    assert.equal(await balance(s, teamId), 4, 'the invoice paid, the stopped render refunded');
    assert.deepEqual(
      (await ledger(s, teamId)).map((r) => [r.reason, r.delta]),
      [
        ['grant', 5],
        ['generation', -1],
        ['generation', -1],
        ['refund', 1],
      ],
    );
    assert.equal(await pendingSyncDebits(s), 0, 'no debit left pending');
    await expectInvoice(s, apiKey, invoice);
    await expectInvoice(s, apiKey, invoice);
  });

  test('async: the job fails with error_code RENDER_TIMEOUT and is refunded', async () => {
    const { teamId, apiKey } = await s.team(3);
    const slow = await s.template(teamId, SLOW_DEFINITION);
    const { job_id } = await createJob(s, apiKey, { template_id: slow, data: SLOWER_DATA });
    const job = await waitForJob(s, apiKey, job_id, 60_000);
    assert.equal(job.status, 'failed');
    assert.equal(job.error_code, 'RENDER_TIMEOUT');
    assert.match(job.error_message ?? '', /1000 ms/);
    assert.equal(await balance(s, teamId), 3);
    assert.deepEqual(
      (await ledger(s, teamId)).map((r) => [r.reason, r.delta, r.job_id]),
      [
        ['grant', 3, null],
        ['generation', -1, job_id],
        ['refund', 1, job_id],
      ],
    );
    const invoice = await s.template(teamId, INVOICE);
    await expectInvoice(s, apiKey, invoice);
  });
});

describe('a render past PLATEN_RENDER_MEMORY_MB', () => {
  let s: TestServer;
  before(async () => {
    // 128 MiB: the engine and fonts take some 35, an invoice a few more; the slow document far more.
    s = await startTestServer({ PLATEN_RENDER_MEMORY_MB: '128', PLATEN_RENDER_TIMEOUT_MS: '300000' });
  });
  after(() => s.close());

  test('sync: 500 with render_error RENDER_MEMORY, refunded; the next invoice renders', async () => {
    const { teamId, apiKey } = await s.team(5);
    const slow = await s.template(teamId, SLOW_DEFINITION);
    const invoice = await s.template(teamId, INVOICE);
    const body = await expectRenderFailure(s, apiKey, slow, 'RENDER_MEMORY');
    assert.match(body.render_error.message, /128 MiB/);
    assert.equal(await balance(s, teamId), 5);
    assert.deepEqual(
      (await ledger(s, teamId)).map((r) => [r.reason, r.delta]),
      [
        ['grant', 5],
        ['generation', -1],
        ['refund', 1],
      ],
    );
    await expectInvoice(s, apiKey, invoice);
    assert.equal(await balance(s, teamId), 4);
  });

  test('async: the job fails with error_code RENDER_MEMORY and is refunded', async () => {
    const { teamId, apiKey } = await s.team(2);
    const slow = await s.template(teamId, SLOW_DEFINITION);
    const { job_id } = await createJob(s, apiKey, { template_id: slow, data: SLOW_DATA });
    const job = await waitForJob(s, apiKey, job_id, 120_000);
    assert.equal(job.status, 'failed');
    assert.equal(job.error_code, 'RENDER_MEMORY');
    assert.equal(await balance(s, teamId), 2);
  });
});

test('a render thread whose heap stays above PLATEN_RENDER_RECYCLE_MB is replaced, and renders go on', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  // Every thread's heap is above 16 MiB once the engine is loaded: each is replaced after two renders.
  const s = await startTestServer({ PLATEN_RENDER_THREADS: '1', PLATEN_RENDER_RECYCLE_MB: '16' }, { log: pino({ level: 'info' }, sink) });
  try {
    const { teamId, apiKey } = await s.team(10);
    const invoice = await s.template(teamId, INVOICE);
    for (let i = 0; i < 5; i++) await expectInvoice(s, apiKey, invoice);
    const recycled = lines.filter((l) => l.includes('render thread recycled'));
    assert.equal(recycled.length, 2, 'replaced after the 2nd and the 4th render');
    assert.ok((JSON.parse(recycled[0]!) as { heapMb: number }).heapMb > 16);
    assert.equal(await balance(s, teamId), 5);
  } finally {
    await s.close();
  }
});

/** Nice values of this process's threads (Linux /proc), by thread id. */
function threadNice(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])); // field 19: nice
    } catch {
      // the thread ended
    }
  }
  return out;
}

test('a render running past PLATEN_RENDER_SLOW_MS gets a lower CPU priority until it ends; the invoice after it renders at normal priority', { skip: !existsSync('/proc/self/task') && 'no /proc' }, async () => {
  const s = await startTestServer({ PLATEN_RENDER_SLOW_MS: '200', PLATEN_RENDER_TIMEOUT_MS: '300000' });
  try {
    const { teamId, apiKey } = await s.team(5);
    const slow = await s.template(teamId, SLOW_DEFINITION);
    const invoice = await s.template(teamId, INVOICE);
    assert.ok(![...threadNice().values()].includes(10), 'no thread lowered before');
    const pending = s.api('POST', '/v1/pdf/create', apiKey, { template_id: slow, data: slowDocumentData(400), export_type: 'binary' });
    const lowered = await waitFor('a render thread at nice 10', () => [...threadNice()].find(([, nice]) => nice === 10)?.[0], 60_000, 20);
    assert.notEqual(lowered, process.pid, 'the main thread keeps its priority');
    const res = await pending;
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.ok(![...threadNice().values()].includes(10), 'priority restored (or the thread replaced) once the render ended');
    await expectInvoice(s, apiKey, invoice);
    assert.equal(await balance(s, teamId), 3);
  } finally {
    await s.close();
  }
});
