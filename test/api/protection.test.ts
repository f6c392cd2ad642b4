/**
 * Protected PDFs through the API: password, owner_password and permissions encrypt the PDF
 * (AES-256), read back with pdfinfo and qpdf; refused with pdf_variant; a queued job keeps the
 * passwords sealed in its row and produces the same protection.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { balance, expectValidationError, rawRows } from '../helpers/api.ts';
import { waitForJob } from '../helpers/jobs.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let dir: string;
before(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'platen-protect-'));
});
after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const TEMPLATE = { content: [{ text: 'Confidential: {{name}}' }] };

function save(pdf: Buffer): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  return file;
}

/** pdfinfo's "Encrypted:" line, opened with `password`. */
function encryption(file: string, password?: string): string {
  const out = execFileSync('pdfinfo', [...(password ? ['-upw', password] : []), file], { encoding: 'utf8' });
  return /^Encrypted:\s*(.*)$/m.exec(out)![1];
}

/** The text of the PDF decrypted by qpdf with `password`. */
function decryptedText(file: string, password: string): string {
  const plain = `${file}.plain.pdf`;
  execFileSync('qpdf', [`--password=${password}`, '--decrypt', file, plain]);
  return execFileSync('pdftotext', [plain, '-'], { encoding: 'utf8' });
}

test('password, owner_password and permissions: AES-256, the user password opens it, only printing allowed', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Ada' }, export_type: 'binary', password: 'open-sesame', owner_password: 'boss-key', permissions: ['print'] });
  assert.equal(res.status, 200);
  const file = save(Buffer.from(await res.arrayBuffer()));
  assert.equal(encryption(file, 'open-sesame'), 'yes (print:yes copy:no change:no addNotes:no algorithm:AES-256)');
  // Without the password poppler cannot open it; qpdf names the wrong password.
  assert.notEqual(spawnSync('pdfinfo', [file]).status, 0, 'no password: not opened');
  assert.notEqual(spawnSync('qpdf', ['--password=wrong', '--check', file]).status, 0);
  assert.match(decryptedText(file, 'open-sesame'), /Confidential: Ada/);
  // The owner password opens it with every right.
  const owner = execFileSync('qpdf', ['--password=boss-key', '--show-encryption', file], { encoding: 'utf8' });
  assert.match(owner, /Supplied password is owner password/);
  assert.match(owner, /extract for any purpose: not allowed/);
  assert.match(owner, /print high resolution: allowed/);
  assert.match(owner, /modify anything: not allowed/);
  assert.match(owner, /file encryption method: AESv3/);
  assert.equal(await balance(s.server.services.db, teamId), 2);
});

test('permissions alone: opens without a password, restrictions held by a random owner password; [] allows nothing', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  const a = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Bo' }, export_type: 'binary', permissions: ['copy', 'annotate'] });
  const fa = save(Buffer.from(await a.arrayBuffer()));
  assert.equal(encryption(fa), 'yes (print:no copy:yes change:no addNotes:yes algorithm:AES-256)');
  assert.match(execFileSync('pdftotext', [fa, '-'], { encoding: 'utf8' }), /Confidential: Bo/, 'readable without a password');
  const none = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary', password: 'x', permissions: [] });
  assert.equal(encryption(save(Buffer.from(await none.arrayBuffer())), 'x'), 'yes (print:no copy:no change:no addNotes:no algorithm:AES-256)');
  const all = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, export_type: 'binary', password: 'x' });
  assert.equal(encryption(save(Buffer.from(await all.arrayBuffer())), 'x'), 'yes (print:yes copy:yes change:yes addNotes:yes algorithm:AES-256)');
});

test('with pdf_variant each protection field is 400 VALIDATION_ERROR naming it, before any credit; bad values too', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, TEMPLATE);
  const body = { template_id: id, data: {}, pdf_variant: 'pdf/a-2b' };
  for (const [field, value] of [['password', 'p'], ['owner_password', 'o'], ['permissions', ['print']]] as const) {
    const e = await expectValidationError(await s.api('POST', '/v1/pdf/create', apiKey, { ...body, [field]: value }), field);
    assert.match(e.detail, /PDF\/A forbids encryption/);
    await expectValidationError(await s.api('POST', '/v1/pdf/create-async', apiKey, { ...body, [field]: value }), field);
  }
  await expectValidationError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, permissions: ['print', 'print'] }), 'permissions');
  await expectValidationError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, permissions: ['fly'] }), 'permissions[0]');
  await expectValidationError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: {}, password: '' }), 'password');
  assert.equal(await balance(s.server.services.db, teamId), 2);
});

test('a password the encryption cannot prepare (SASLprep) is 400 naming the field, before any credit; an accented or right-to-left one protects the PDF', async () => {
  const { teamId, apiKey } = await s.team(3);
  const id = await s.template(teamId, TEMPLATE);
  // An emoji (unassigned in Unicode 3.2), a control character, mixed directions, one that maps to nothing.
  for (const [field, value, reason] of [
    ['password', '\u{1F600}', /unassigned in Unicode 3.2/],
    ['password', 'a\u0007b', /control, private-use or non-character/],
    ['owner_password', 'a\u05d0', /right-to-left and left-to-right/],
    ['password', '\u00ad', /empty once prepared/],
  ] as const) {
    for (const path of ['/v1/pdf/create', '/v1/pdf/create-async']) {
      const e = await expectValidationError(await s.api('POST', path, apiKey, { template_id: id, data: {}, [field]: value }), field);
      assert.match(e.errors![0].message, reason, `${path} ${JSON.stringify(value)}: ${e.errors![0].message}`);
    }
  }
  assert.equal(await balance(s.server.services.db, teamId), 3);
  for (const password of ['p\u00e4ssw\u00f6rd', '\u05d0\u05d1\u05d2']) {
    const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: id, data: { name: 'Ada' }, export_type: 'binary', password });
    assert.equal(res.status, 200, password);
    assert.match(decryptedText(save(Buffer.from(await res.arrayBuffer())), password), /Confidential: Ada/);
  }
});

test('a queued job keeps its passwords sealed (never in clear in its row) and its PDF is protected', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, TEMPLATE);
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: { name: 'Cy' }, password: 'job-secret-123', owner_password: 'job-owner-456', permissions: ['print', 'copy'] });
  assert.equal(res.status, 202);
  const { job_id } = (await res.json()) as { job_id: string };
  const [row] = await rawRows(s.server.services.db, 'jobs', 'id', job_id);
  const text = JSON.stringify(row);
  assert.ok(!text.includes('job-secret-123') && !text.includes('job-owner-456'), 'no password in clear in the job row');
  // Sealed while the job waits or runs (it may already be done here: then dropped, below).
  if (row.status === 'completed') assert.equal(row.protection_enc, null);
  else assert.match(String(row.protection_enc), /^v1\./, 'sealed');
  const job = await waitForJob(s, apiKey, job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.ok(!JSON.stringify(job).includes('job-secret'), 'the job record does not show it');
  const [done] = await rawRows(s.server.services.db, 'jobs', 'id', job_id);
  assert.equal(done.protection_enc, null, 'the sealed passwords are dropped once the job is done');
  const file = save(Buffer.from(await (await fetch(job.result_url!)).arrayBuffer()));
  assert.equal(encryption(file, 'job-secret-123'), 'yes (print:yes copy:yes change:no addNotes:no algorithm:AES-256)');
  assert.match(decryptedText(file, 'job-owner-456'), /Confidential: Cy/);
});

test('a queued job that fails drops its sealed passwords too', async () => {
  const { teamId, apiKey } = await s.team(2);
  const id = await s.template(teamId, { content: [{ text: 'x' }, { image: `asset:${'0'.repeat(32)}` }] });
  const res = await s.api('POST', '/v1/pdf/create-async', apiKey, { template_id: id, data: {}, password: 'fail-secret-1' });
  assert.equal(res.status, 202, await res.clone().text());
  const { job_id } = (await res.json()) as { job_id: string };
  const job = await waitForJob(s, apiKey, job_id);
  assert.equal(job.status, 'failed', JSON.stringify(job));
  const [row] = await rawRows(s.server.services.db, 'jobs', 'id', job_id);
  assert.equal(row.protection_enc, null);
});
