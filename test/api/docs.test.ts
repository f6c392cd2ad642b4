/**
 * The user-facing docs tell the truth about errors and stand on their own: docs/api.md's two error
 * tables list exactly the codes the service can answer with (src/errors.ts), with their statuses;
 * the README, docs/ and the served OpenAPI text cite no internal document; a request without a
 * JSON content type gets a documented code.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { API_ERROR_CODES, JOB_ERROR_CODES } from '../../src/errors.ts';
import { RENDER_WARNING_CODES } from '../../engine/index.ts';
import { ROOT } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const apiMd = readFileSync(`${ROOT}/docs/api.md`, 'utf8');

/** The rows of the markdown table that follows `heading`: its cells, trimmed, without backticks. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  assert.ok(start >= 0, `docs/api.md has a "${heading}" section`);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, '')));
  }
  return rows;
}

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('docs/api.md lists every HTTP error code with its status, and no other', () => {
  const rows = tableAfter(apiMd, '## Errors');
  const documented = new Map<string, number>();
  for (const [status, codes] of rows) for (const code of codes.split(',').map((c) => c.trim())) documented.set(code, Number(status));
  assert.deepEqual([...documented.keys()].sort(), Object.keys(API_ERROR_CODES).sort());
  for (const [code, status] of Object.entries(API_ERROR_CODES)) assert.equal(documented.get(code), status, `status of ${code}`);
});

test('docs/api.md lists every render and job error code, and no other', () => {
  const rows = tableAfter(apiMd, '### Render and job error codes');
  assert.deepEqual(rows.map((r) => r[0]).sort(), [...JOB_ERROR_CODES].sort());
});

test('every error code written in the service source is in the registry', () => {
  const files = readdirSync(`${ROOT}/src`, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const known = new Set<string>([...Object.keys(API_ERROR_CODES), ...JOB_ERROR_CODES, ...RENDER_WARNING_CODES]);
  for (const file of files) {
    const text = readFileSync(`${ROOT}/src/${file}`, 'utf8');
    for (const m of text.matchAll(/(?:code: |ApiError\(\d{3}, |Failure\()'([A-Z][A-Z0-9_]+)'/g)) {
      assert.ok(known.has(m[1]), `src/${file} answers with ${m[1]}, which docs/api.md does not list`);
    }
  }
});

test('docs/api.md names every render warning code', () => {
  const api = readFileSync(`${ROOT}/docs/api.md`, 'utf8');
  for (const code of RENDER_WARNING_CODES) assert.ok(api.includes(`\`${code}\``), `docs/api.md does not describe the warning ${code}`);
});

test('README, docs/ and the served OpenAPI text cite no internal document', async () => {
  const openapi = await (await s.fetch('/openapi.json')).text();
  const texts: [string, string][] = [
    ['README.md', readFileSync(`${ROOT}/README.md`, 'utf8')],
    ['/openapi.json', openapi],
    ...readdirSync(`${ROOT}/docs`)
      .filter((f) => f.endsWith('.md'))
      .map((f): [string, string] => [`docs/${f}`, readFileSync(`${ROOT}/docs/${f}`, 'utf8')]),
  ];
  for (const [name, text] of texts) {
    for (const pattern of [/DESIGN/, /§\s*\d/, /\bspec(ification)? §/i, /\bissue \d+/i]) {
      const m = pattern.exec(text);
      assert.equal(m, null, `${name} cites an internal document: "${m && text.slice(Math.max(0, m.index - 40), m.index + 40)}"`);
    }
  }
});

test('a body without a JSON content type is 415 UNSUPPORTED_MEDIA_TYPE, as documented', async () => {
  const { apiKey } = await s.team(1);
  const res = await s.fetch('/v1/pdf/create', { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'text/plain' }, body: '{"template_id": "x", "data": {}}' });
  assert.equal(res.status, 415);
  const body = (await res.json()) as { code: string; detail: string };
  assert.equal(body.code, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(body.detail, /content-type: application\/json/);
  const none = await s.fetch('/v1/pdf/create', { method: 'POST', headers: { 'x-api-key': apiKey }, body: '{"template_id": "x", "data": {}}' });
  assert.equal(none.status, 415);
  assert.equal(((await none.json()) as { code: string }).code, 'UNSUPPORTED_MEDIA_TYPE');
});
