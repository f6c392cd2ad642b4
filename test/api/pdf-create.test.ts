/**
 * POST /v1/pdf/create through a real server (spec §2.1, §2.3, §4.1, §7.1, §8; DESIGN §4): every
 * field bound on both sides, every error status, URL and binary export, signed URLs and their
 * tampering, credits under concurrency, file storage that leaves no orphan, the file sweeper.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { FileStore } from '../../src/services/files.ts';
import { createApiKey, revokeApiKeys } from '../../src/services/keys.ts';
import { balance, expectError, expectValidationError, ledger, startUrlServer } from '../helpers/api.ts';
import { readPdf } from '../helpers/pdf.ts';
import type { TestServer } from '../helpers/server.ts';

const TINY = { content: [{ text: 'Hello {{name}}' }] };

let s: TestServer;
/** A team with plenty of credits and a tiny template, shared by the bound tests. */
let team: { teamId: string; apiKey: string };
let tpl: string;

before(async () => {
  s = await startUrlServer();
  team = await s.team(1000);
  tpl = await s.template(team.teamId, TINY);
});
after(async () => {
  await s.close();
});

function create(body: unknown, key = team.apiKey): Promise<Response> {
  return s.api('POST', '/v1/pdf/create', key, body);
}

/** A create with the shared template plus `extra` fields. */
function createWith(extra: Record<string, unknown>, key = team.apiKey): Promise<Response> {
  return create({ template_id: tpl, data: { name: 'Ada' }, ...extra }, key);
}

interface UrlResult {
  url: string;
  filename: string;
  credits_remaining: number;
  expires_in: number;
}

async function expectUrlResult(res: Response): Promise<UrlResult> {
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 300));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text) as UrlResult;
  assert.deepEqual(Object.keys(body).sort(), ['credits_remaining', 'expires_in', 'filename', 'url', 'warnings']);
  assert.equal(typeof body.url, 'string');
  assert.equal(typeof body.filename, 'string');
  assert.ok(Number.isInteger(body.credits_remaining));
  assert.ok(Number.isInteger(body.expires_in));
  return body;
}

/** The parts of a signed URL: {cdn_url}/<id>/<filename>?expires=&signature= (DESIGN §4). */
function parts(url: string) {
  const u = new URL(url);
  const segs = u.pathname.split('/');
  return {
    u,
    id: segs[segs.length - 2],
    filename: decodeURIComponent(segs[segs.length - 1]),
    expires: u.searchParams.get('expires')!,
    signature: u.searchParams.get('signature')!,
  };
}

async function pdfText(pdf: ArrayBuffer | Buffer): Promise<string> {
  const doc = await readPdf(Buffer.from(pdf as ArrayBuffer));
  return doc.pages.map((p) => p.text).join('\n');
}

describe('§2.1 field bounds, both sides', () => {
  test('expiration: 59 -> 400, 60 -> 200, 604800 -> 200, 604801 -> 400; default 86400; whole seconds only', async () => {
    await expectValidationError(await createWith({ expiration: 59 }), 'expiration');
    await expectValidationError(await createWith({ expiration: 604801 }), 'expiration');
    await expectValidationError(await createWith({ expiration: 60.5 }), 'expiration');
    await expectValidationError(await createWith({ expiration: '60' }), 'expiration');

    for (const expiration of [60, 604800]) {
      const before = Math.floor(Date.now() / 1000);
      const body = await expectUrlResult(await createWith({ expiration }));
      const after = Math.floor(Date.now() / 1000);
      assert.equal(body.expires_in, expiration);
      const expires = Number(parts(body.url).expires);
      assert.ok(expires >= before + expiration && expires <= after + expiration + 1, `expires=${expires} for expiration ${expiration}`);
    }
    const def = await expectUrlResult(await createWith({}));
    assert.equal(def.expires_in, 86400, 'default expiration');
  });

  test('filename: 100 chars ok, 101 -> 400; bad characters and a .pdf extension -> 400; final name is <filename>.pdf', async () => {
    const long = 'f'.repeat(100);
    const ok = await expectUrlResult(await createWith({ filename: long }));
    assert.equal(ok.filename, `${long}.pdf`);
    assert.equal(parts(ok.url).filename, `${long}.pdf`);
    const dl = await fetch(ok.url);
    assert.equal(dl.status, 200);
    assert.equal(Buffer.from(await dl.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');

    await expectValidationError(await createWith({ filename: 'f'.repeat(101) }), 'filename');
    for (const bad of ['a b', 'a/b', 'a\\b', '../etc', 'x.pdf', 'X.PDF', '', 'naïve', 'a"b', '.', '..', 'name.', '-rf', '.hidden']) {
      // '../etc' has a slash; all others break the alphabet, the extension rule or the length.
      await expectValidationError(await createWith({ filename: bad }), 'filename');
    }

    const dotted = await expectUrlResult(await createWith({ filename: 'report_2025-03.v2' }));
    assert.equal(dotted.filename, 'report_2025-03.v2.pdf');
    const dflt = await expectUrlResult(await createWith({}));
    assert.equal(dflt.filename, 'document.pdf', 'default filename "document"');
  });

  test('s3_bucket: 2 -> 400, 3 and 63 pass validation (then S3_INTEGRATION_MISSING), 64 -> 400; lowercase only', async () => {
    await expectValidationError(await createWith({ store_s3: true, s3_bucket: 'ab' }), 's3_bucket');
    await expectValidationError(await createWith({ store_s3: true, s3_bucket: 'b'.repeat(64) }), 's3_bucket');
    await expectValidationError(await createWith({ store_s3: true, s3_bucket: 'MyBucket' }), 's3_bucket');
    for (const bucket of ['abc', 'b'.repeat(63)]) {
      const body = await expectError(await createWith({ store_s3: true, s3_bucket: bucket }), 400, 'S3_INTEGRATION_MISSING');
      assert.ok(!body.errors, 'not a validation error');
    }
  });

  test('s3_filepath: 500 passes validation, 501 -> 400', async () => {
    await expectError(await createWith({ store_s3: true, s3_filepath: 'p'.repeat(500) }), 400, 'S3_INTEGRATION_MISSING');
    await expectValidationError(await createWith({ store_s3: true, s3_filepath: 'p'.repeat(501) }), 's3_filepath');
  });

  test('version: 50 chars passes validation (then 404 TEMPLATE_VERSION_NOT_FOUND), 51 -> 400', async () => {
    await expectError(await createWith({ version: 'v'.repeat(50) }), 404, 'TEMPLATE_VERSION_NOT_FOUND');
    await expectError(await createWith({ version: '7' }), 404, 'TEMPLATE_VERSION_NOT_FOUND');
    await expectValidationError(await createWith({ version: 'v'.repeat(51) }), 'version');
  });

  test('template_id must be 12 characters; data must be an object; no unknown fields', async () => {
    await expectValidationError(await create({ template_id: tpl.slice(0, 11), data: {} }), 'template_id');
    await expectValidationError(await create({ template_id: `${tpl}x`, data: {} }), 'template_id');
    await expectValidationError(await create({ data: {} }), 'template_id');
    await expectValidationError(await create({ template_id: tpl }), 'data');
    await expectValidationError(await create({ template_id: tpl, data: [] }), 'data');
    await expectValidationError(await create({ template_id: tpl, data: [{ name: 'Ada' }] }), 'data');
    await expectValidationError(await create({ template_id: tpl, data: null }), 'data');
    await expectValidationError(await create({ template_id: tpl, data: 'name=Ada' }), 'data');
    const unknown = await expectError(await createWith({ colour: 'red' }), 400, 'VALIDATION_ERROR');
    assert.match(JSON.stringify(unknown), /colour/, 'the unknown field is named');
  });

  test('export_type "pdf" -> 400; pdf_variant outside the three -> 400 (a listed one passes validation)', async () => {
    await expectValidationError(await createWith({ export_type: 'pdf' }), 'export_type');
    await expectValidationError(await createWith({ pdf_variant: 'pdf/a-4' }), 'pdf_variant');
    await expectValidationError(await createWith({ pdf_variant: 'PDF/A-2B' }), 'pdf_variant');
    // PDF/A output may not exist yet (400 PDF_VARIANT_UNSUPPORTED); either way the value validates.
    const listed = await createWith({ pdf_variant: 'pdf/a-2b' });
    if (listed.status !== 200) {
      const body = (await listed.json()) as { code: string };
      assert.notEqual(body.code, 'VALIDATION_ERROR', 'a listed pdf_variant passes validation');
    } else {
      await listed.arrayBuffer();
    }
  });

  test('refused requests cost nothing: the balance only fell by the successful renders', async () => {
    const rows = await ledger(s.server.services.db, team.teamId);
    const generations = rows.filter((r) => r.reason === 'generation').length;
    const refunds = rows.filter((r) => r.reason === 'refund').length;
    assert.equal(refunds, 0);
    assert.equal(await balance(s.server.services.db, team.teamId), 1000 - generations);
  });
});

describe('§7.1 every status', () => {
  test('400 BAD_REQUEST for an image template, no credit taken', async () => {
    const t = await s.team(3);
    const image = await s.template(t.teamId, { content: [{ text: 'x' }] }, 'image');
    await expectError(await create({ template_id: image, data: {} }, t.apiKey), 400, 'BAD_REQUEST');
    assert.equal(await balance(s.server.services.db, t.teamId), 3);
  });

  test('401 UNAUTHORIZED: missing key, empty key, unknown key', async () => {
    const body = { template_id: tpl, data: {} };
    await expectError(await s.api('POST', '/v1/pdf/create', null, body), 401, 'UNAUTHORIZED');
    await expectError(await s.api('POST', '/v1/pdf/create', '', body), 401, 'UNAUTHORIZED');
    await expectError(await s.api('POST', '/v1/pdf/create', 'pk_not-a-real-key', body), 401, 'UNAUTHORIZED');
    await expectError(await s.api('POST', '/v1/pdf/create', `${team.apiKey}x`, body), 401, 'UNAUTHORIZED');
    await expectError(await s.api('POST', '/v1/pdf/create', 'k'.repeat(5000), body), 401, 'UNAUTHORIZED');
  });

  test('401 UNAUTHORIZED for a revoked key (revoked by its display prefix); the team\'s other keys still work', async () => {
    const t = await s.team(5);
    const { apiKey: spare } = await createApiKey(s.server.services.db, t.teamId);
    const own = await s.template(t.teamId, TINY);
    const ok = await create({ template_id: own, data: { name: 'A' }, export_type: 'binary' }, t.apiKey);
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
    // The display prefix stored for the key is its first 11 characters ("pk_" + 8).
    assert.equal(await revokeApiKeys(s.server.services.db, t.apiKey.slice(0, 11)), 1, 'exactly the one key is revoked');
    await expectError(await create({ template_id: own, data: { name: 'A' }, export_type: 'binary' }, t.apiKey), 401, 'UNAUTHORIZED');
    assert.equal(await balance(s.server.services.db, t.teamId), 4, 'the refused call cost nothing');
    const still = await create({ template_id: own, data: { name: 'A' }, export_type: 'binary' }, spare);
    assert.equal(still.status, 200, 'another key of the team is not revoked');
    await still.arrayBuffer();
  });

  test('402 INSUFFICIENT_CREDITS at 0 credits; nothing is written to the ledger', async () => {
    const t = await s.team(0);
    const own = await s.template(t.teamId, TINY);
    await expectError(await create({ template_id: own, data: { name: 'A' } }, t.apiKey), 402, 'INSUFFICIENT_CREDITS');
    await expectError(await create({ template_id: own, data: { name: 'A' }, export_type: 'binary' }, t.apiKey), 402, 'INSUFFICIENT_CREDITS');
    assert.equal(await balance(s.server.services.db, t.teamId), 0);
    assert.deepEqual(await ledger(s.server.services.db, t.teamId), []);
  });

  test('403 FORBIDDEN for another team\'s template; 404 TEMPLATE_NOT_FOUND for an unknown id', async () => {
    const other = await s.team(5);
    const body = await expectError(await create({ template_id: tpl, data: {} }, other.apiKey), 403, 'FORBIDDEN');
    assert.ok(!JSON.stringify(body).includes('Hello'), 'nothing of the template leaks');
    await expectError(await create({ template_id: 'AAAAAAAAAAAA', data: {} }, other.apiKey), 404, 'TEMPLATE_NOT_FOUND');
    assert.equal(await balance(s.server.services.db, other.teamId), 5);
  });

  test('429 RATE_LIMIT_EXCEEDED with RateLimit-* and Retry-After headers; the limit is per key', async () => {
    const r = await startUrlServer({ env: { PLATEN_RATE_LIMIT: '5' } });
    try {
      const t = await r.team(20);
      const own = await r.template(t.teamId, TINY);
      const req = (key: string) => r.api('POST', '/v1/pdf/create', key, { template_id: own, data: { name: 'A' }, export_type: 'binary' });
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await req(t.apiKey);
        assert.equal(res.status, 200, `request ${i + 1} of 5 passes`);
        await res.arrayBuffer();
        assert.equal(res.headers.get('ratelimit-limit'), '5');
        remaining.push(res.headers.get('ratelimit-remaining') ?? 'missing');
        const reset = Number(res.headers.get('ratelimit-reset'));
        assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
      }
      assert.deepEqual(remaining, ['4', '3', '2', '1', '0']);

      const limited = await req(t.apiKey);
      assert.equal(limited.headers.get('ratelimit-limit'), '5');
      assert.equal(limited.headers.get('ratelimit-remaining'), '0');
      const reset = Number(limited.headers.get('ratelimit-reset'));
      assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
      const retry = Number(limited.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      await expectError(limited, 429, 'RATE_LIMIT_EXCEEDED');
      assert.equal(await balance(r.server.services.db, t.teamId), 15, 'a refused request costs nothing');

      // Another key (even of the same team) has its own window.
      const { apiKey: second } = await createApiKey(r.server.services.db, t.teamId);
      const other = await req(second);
      assert.equal(other.status, 200);
      assert.equal(other.headers.get('ratelimit-remaining'), '4');
      await other.arrayBuffer();
      const stillLimited = await req(t.apiKey);
      await expectError(stillLimited, 429, 'RATE_LIMIT_EXCEEDED');

      // Every authenticated response carries the headers, errors of the handler included (DESIGN §4).
      const notFound = await r.api('POST', '/v1/pdf/create', second, { template_id: 'AAAAAAAAAAAA', data: {} });
      assert.equal(notFound.headers.get('ratelimit-limit'), '5');
      assert.equal(notFound.headers.get('ratelimit-remaining'), '3');
      assert.ok(Number(notFound.headers.get('ratelimit-reset')) >= 1);
      await expectError(notFound, 404, 'TEMPLATE_NOT_FOUND');
      const invalid = await r.api('POST', '/v1/pdf/create', second, { template_id: own, data: [] });
      assert.equal(invalid.headers.get('ratelimit-remaining'), '2');
      await expectError(invalid, 400, 'VALIDATION_ERROR');
    } finally {
      await r.close();
    }
  });

  test('500 INTERNAL_ERROR when rendering fails; the credit is refunded (-1 generation, +1 refund)', async () => {
    const t = await s.team(4);
    const own = await s.template(t.teamId, { content: [{ image: '{{logo}}' }] });
    const body = await expectError(await create({ template_id: own, data: { logo: 'data:image/png;base64,AAAA' } }, t.apiKey), 500, 'INTERNAL_ERROR');
    assert.match(body.detail, /refund/i);
    const bin = await expectError(await create({ template_id: own, data: { logo: 'data:image/png;base64,AAAA' }, export_type: 'binary' }, t.apiKey), 500, 'INTERNAL_ERROR');
    assert.equal(typeof bin.detail, 'string');
    assert.equal(await balance(s.server.services.db, t.teamId), 4, 'balance unchanged');
    const rows = (await ledger(s.server.services.db, t.teamId)).map((r) => [r.reason, r.delta, r.balanceAfter]);
    assert.deepEqual(rows, [
      ['grant', 4, 4],
      ['generation', -1, 3],
      ['refund', 1, 4],
      ['generation', -1, 3],
      ['refund', 1, 4],
    ]);
    // The same through the API (DESIGN §4): newest first, a refund is its own +1 row after the debit.
    const account = await s.api('GET', '/v1/account', t.apiKey);
    assert.equal(account.status, 200);
    assert.equal(((await account.json()) as { credits: number }).credits, 4);
    const tx = await s.api('GET', '/v1/account/transactions', t.apiKey);
    assert.equal(tx.status, 200);
    const list = (await tx.json()) as { transactions: { delta: number; reason: string; balance_after: number }[]; total: number };
    assert.equal(list.total, 5);
    assert.deepEqual(
      list.transactions.map((r) => [r.reason, r.delta, r.balance_after]),
      rows.slice().reverse(),
    );
  });

  test('a client that closes its connection during the render is not charged, and nothing is stored for it', async () => {
    const t = await s.team(4);
    // A table of 1,500 rows: a render that takes a while.
    const own = await s.template(t.teamId, { content: [{ table: { columns: ['*', 60], rows: [{ each: 'rows', as: 'r', row: ['{{r.name}}', '{{r.qty}}'] }] } }] });
    const rows = Array.from({ length: 1500 }, (_, i) => ({ name: `Item ${i} with words enough to shape`, qty: i }));
    const filesBefore = (await ledger(s.server.services.db, t.teamId)).length;
    for (const exportType of ['binary', 'url']) {
      const controller = new AbortController();
      const sent = fetch(`${s.url}/v1/pdf/create`, { method: 'POST', headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ template_id: own, data: { rows }, export_type: exportType }), signal: controller.signal });
      // Gone once the credit is taken (the render under way).
      for (let i = 0; i < 400 && (await balance(s.server.services.db, t.teamId)) === 4; i++) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      await assert.rejects(sent);
      let now = -1;
      for (let i = 0; i < 600 && (now = await balance(s.server.services.db, t.teamId)) !== 4; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(now, 4, `${exportType}: the credit was given back`);
    }
    const reasons = (await ledger(s.server.services.db, t.teamId)).slice(filesBefore).map((r) => r.reason);
    assert.deepEqual(reasons, ['generation', 'refund', 'generation', 'refund']);
    const stored = await s.server.services.db.orm.select().from(s.server.services.db.t.generatedFiles).where(eq(s.server.services.db.t.generatedFiles.teamId, t.teamId));
    assert.equal(stored.length, 0, 'no file was stored for the client that left');
  });

  test('unknown route: 404 NOT_FOUND as {code, detail}', async () => {
    await expectError(await s.api('GET', '/v1/pdf/nothing-here', team.apiKey), 404, 'NOT_FOUND');
    await expectError(await s.fetch('/nothing-here'), 404, 'NOT_FOUND');
  });
});

describe('§2.3 URL and binary export', () => {
  test('URL export: JSON {url, filename, credits_remaining, expires_in}; the URL downloads without a key', async () => {
    const t = await s.team(3);
    const own = await s.template(t.teamId, TINY);
    const body = await expectUrlResult(await create({ template_id: own, data: { name: 'Grace Hopper' }, filename: 'letter' }, t.apiKey));
    assert.equal(body.filename, 'letter.pdf');
    assert.equal(body.credits_remaining, 2);
    assert.equal(body.expires_in, 86400);
    assert.ok(body.url.startsWith(`${s.server.services.config.cdnUrl}/`), `${body.url} is under {cdn_url}`);
    assert.equal(await balance(s.server.services.db, t.teamId), 2);

    const res = await fetch(body.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/pdf/);
    const pdf = Buffer.from(await res.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    assert.match(await pdfText(pdf), /Hello Grace Hopper/);
  });

  test('a tampered signature, expires, id or filename -> 403 and no PDF bytes', async () => {
    const body = await expectUrlResult(await createWith({ filename: 'secret' }));
    const p = parts(body.url);
    const flip = (h: string, i: number) => h.slice(0, i) + (h[i] === '0' ? '1' : '0') + h.slice(i + 1);
    const base = `${p.u.origin}${p.u.pathname.split('/').slice(0, -2).join('/')}`;
    const tampered = [
      `${base}/${p.id}/secret.pdf?expires=${p.expires}&signature=${flip(p.signature, 0)}`,
      `${base}/${p.id}/secret.pdf?expires=${p.expires}&signature=${flip(p.signature, 63)}`,
      `${base}/${p.id}/secret.pdf?expires=${p.expires}&signature=${p.signature.toUpperCase() === p.signature ? p.signature.toLowerCase() : p.signature.toUpperCase()}`,
      `${base}/${p.id}/secret.pdf?expires=${p.expires}&signature=${p.signature.slice(0, 40)}`,
      `${base}/${p.id}/secret.pdf?expires=${p.expires}`,
      `${base}/${p.id}/secret.pdf?expires=${Number(p.expires) + 1}&signature=${p.signature}`,
      `${base}/${p.id}/secret.pdf?expires=${Number(p.expires) + 86400 * 365}&signature=${p.signature}`,
      `${base}/${p.id}/secret.pdf?signature=${p.signature}`,
      `${base}/${flip(p.id, 0)}/secret.pdf?expires=${p.expires}&signature=${p.signature}`,
      `${base}/${p.id}/other.pdf?expires=${p.expires}&signature=${p.signature}`,
      `${base}/${p.id}/secret.PDF?expires=${p.expires}&signature=${p.signature}`,
    ];
    for (const url of tampered) {
      const res = await fetch(url);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 403, url);
      assert.ok(!bytes.includes('%PDF'), `no PDF bytes for ${url}`);
      const err = JSON.parse(bytes.toString()) as { code: string; detail: string };
      assert.equal(err.code, 'FORBIDDEN');
      assert.equal(typeof err.detail, 'string');
    }
    const genuine = await fetch(body.url);
    assert.equal(genuine.status, 200, 'the untouched URL still works');
    await genuine.arrayBuffer();
  });

  test('an expired URL -> 403 (resolve 61 s after an expiration of 60; a URL signed in the past)', async () => {
    const body = await expectUrlResult(await createWith({ expiration: 60, filename: 'short' }));
    const p = parts(body.url);
    const files = s.server.services.files;
    assert.ok(await files.resolve(p.id, p.filename, p.expires, p.signature), 'valid now');
    assert.equal(await files.resolve(p.id, p.filename, p.expires, p.signature, new Date(Date.now() + 61_000)), null, 'expired 61 s later');
    assert.equal(await files.resolve(p.id, p.filename, p.expires, p.signature, new Date(Number(p.expires) * 1000)), null, 'expired at the instant it names');
    // A browser may not keep it past the expiry (5 minutes for a longer link).
    const served = await fetch(body.url);
    await served.arrayBuffer();
    const maxAge = Number(/max-age=(\d+)/.exec(served.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge <= 60 && maxAge >= 55, `Cache-Control: ${served.headers.get('cache-control')}`);

    const past = files.signedUrl(p.id, p.filename, Math.floor(Date.now() / 1000) - 1);
    const res = await fetch(past);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 403);
    assert.ok(!bytes.includes('%PDF'));
  });

  test('binary export: application/pdf, attachment "<template_id>.pdf", X-Credits-Remaining; filename, expiration and S3 options ignored', async () => {
    const t = await s.team(5);
    const own = await s.template(t.teamId, TINY);
    const res = await create({ template_id: own, data: { name: 'Binary Bob' }, export_type: 'binary', filename: 'ignored', expiration: 60 }, t.apiKey);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/pdf/);
    const cd = res.headers.get('content-disposition') ?? '';
    assert.match(cd, /^attachment\b/);
    assert.match(cd, new RegExp(`filename="?${own}\\.pdf"?`));
    assert.equal(res.headers.get('x-credits-remaining'), '4');
    const pdf = Buffer.from(await res.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    assert.match(await pdfText(pdf), /Hello Binary Bob/);

    const s3 = await create({ template_id: own, data: { name: 'x' }, export_type: 'binary', store_s3: true, s3_bucket: 'abc' }, t.apiKey);
    assert.equal(s3.status, 200, 'S3 options are ignored with binary export');
    assert.equal(s3.headers.get('x-credits-remaining'), '3');
    await s3.arrayBuffer();
  });
});

describe('credits under concurrency', () => {
  test('50 concurrent creates against 20 credits: exactly 20 succeed, 30 get 402, balance 0, 20 debits, no refunds', async () => {
    const t = await s.team(20);
    const own = await s.template(t.teamId, TINY);
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await create({ template_id: own, data: { name: `n${i}` }, export_type: 'binary' }, t.apiKey);
        const bytes = Buffer.from(await res.arrayBuffer());
        return { status: res.status, remaining: res.headers.get('x-credits-remaining'), bytes };
      }),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    assert.equal(ok.length, 20, `statuses: ${results.map((r) => r.status).join(',')}`);
    assert.equal(refused.length, 30);
    for (const r of ok) assert.equal(r.bytes.subarray(0, 5).toString(), '%PDF-');
    for (const r of refused) assert.equal((JSON.parse(r.bytes.toString()) as { code: string }).code, 'INSUFFICIENT_CREDITS');
    // Each success saw the balance its own debit left: 19, 18, ..., 0, each exactly once.
    assert.deepEqual(
      ok.map((r) => Number(r.remaining)).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i),
    );

    const db = s.server.services.db;
    assert.equal(await balance(db, t.teamId), 0);
    const rows = await ledger(db, t.teamId);
    assert.equal(rows.filter((r) => r.reason === 'generation').length, 20);
    assert.ok(rows.filter((r) => r.reason === 'generation').every((r) => r.delta === -1));
    assert.equal(rows.filter((r) => r.reason === 'refund').length, 0);
    assert.ok(rows.every((r) => r.balanceAfter >= 0), 'the balance never went below 0');
    assert.equal(rows.reduce((sum, r) => sum + r.delta, 0), 0, 'the ledger sums to the balance');
  });
});

describe('files.save: nothing lost or orphaned', () => {
  const PDF = Buffer.from('%PDF-1.7 test\n');
  const rowsOf = (teamId: string) => {
    const { orm, t: { generatedFiles } } = s.server.services.db;
    return orm.select().from(generatedFiles).where(eq(generatedFiles.teamId, teamId));
  };

  test('a row that cannot be written (its team is gone) leaves no file on disk', async () => {
    const dir = join(s.dataDir, 'files');
    const before = readdirSync(dir).sort();
    // SQLite says "FOREIGN KEY constraint failed", PostgreSQL "violates foreign key constraint".
    await assert.rejects(() => s.server.services.files.save('no-such-team', 'orphan.pdf', PDF, 60), (e: Error) => /foreign key/i.test(String((e.cause as Error | undefined)?.message ?? e.message)));
    assert.deepEqual(readdirSync(dir).sort(), before, 'no file (or .tmp) was left behind');
  });

  test('a file that cannot be written leaves no row', async () => {
    const t = await s.team(1);
    const dataDir = mkdtempSync(join(tmpdir(), 'platen-files-'));
    try {
      const store = new FileStore(s.server.services.db, dataDir, { cdnUrl: 'http://localhost/cdn' }, 'k'.repeat(40));
      assert.ok((await store.save(t.teamId, 'ok.pdf', PDF, 60)).url);
      assert.equal((await rowsOf(t.teamId)).length, 1);
      rmSync(join(dataDir, 'files'), { recursive: true });
      await assert.rejects(() => store.save(t.teamId, 'lost.pdf', PDF, 60), /ENOENT/);
      assert.deepEqual((await rowsOf(t.teamId)).map((r) => r.filename), ['ok.pdf'], 'no row for the file that was not written');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('sweeper', () => {
  test('files.sweep(now) deletes expired files and rows, keeps unexpired ones', async () => {
    const short = parts((await expectUrlResult(await createWith({ expiration: 60, filename: 'soon' }))).url);
    const long = parts((await expectUrlResult(await createWith({ expiration: 3600, filename: 'later' }))).url);
    const db = s.server.services.db;
    const fileOf = (id: string) => join(s.dataDir, 'files', `${id}.pdf`);
    const rowOf = async (id: string) => (await db.orm.select().from(db.t.generatedFiles).where(eq(db.t.generatedFiles.id, id)))[0];
    assert.ok(existsSync(fileOf(short.id)) && existsSync(fileOf(long.id)), 'both files are on disk');
    assert.ok((await rowOf(short.id)) && (await rowOf(long.id)));

    // Before the expiry nothing of the two goes.
    await s.server.services.files.sweep(new Date(Date.now() + 30_000));
    assert.ok(existsSync(fileOf(short.id)) && (await rowOf(short.id)), 'unexpired file kept');

    const deleted = await s.server.services.files.sweep(new Date(Date.now() + 120_000));
    assert.ok(deleted >= 1);
    assert.equal(existsSync(fileOf(short.id)), false, 'expired file deleted from disk');
    assert.equal(await rowOf(short.id), undefined, 'expired row deleted');
    assert.ok(existsSync(fileOf(long.id)), 'unexpired file kept on disk');
    assert.ok(await rowOf(long.id), 'unexpired row kept');

    const res = await fetch(long.u.href);
    assert.equal(res.status, 200, 'the kept file still downloads');
    await res.arrayBuffer();
  });
});
