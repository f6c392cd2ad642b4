/**
 * What the HTTP layer takes from a request before any route sees it, on a real server: strings
 * that are not Unicode text (a lone UTF-16 surrogate sent as a JSON escape), list queries' numbers,
 * unknown body fields, and compressed request bodies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectValidationError, rawRows } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let team: { teamId: string; apiKey: string };
let tpl: string;

before(async () => {
  s = await startTestServer();
  team = await s.team(100);
  tpl = await s.template(team.teamId, { content: [{ text: 'Hello {{name}}' }] });
});
after(async () => {
  await s.close();
});

describe('lone UTF-16 surrogates', () => {
  test('a template name with a lone surrogate is refused naming `name`, and nothing is stored', async () => {
    // Raw JSON text: the escape \ud800 alone, as a client's JSON.stringify writes a broken string.
    const res = await s.api('POST', '/v1/templates', team.apiKey, '{"name": "a\\ud800b", "type": "image", "definition": {}}');
    const body = await expectValidationError(res, 'name');
    assert.match(body.errors![0].message, /unpaired UTF-16 surrogate \(\\ud800 at character 2\)/);
    const list = (await (await s.api('GET', '/v1/templates', team.apiKey)).json()) as { templates: { name: string }[] };
    assert.ok(!list.templates.some((t) => t.name.startsWith('a') && t.name.endsWith('b')), `nothing stored: ${JSON.stringify(list.templates)}`);
  });

  test('every string of a body is covered: deep in a definition, in data, a low half alone, a key', async () => {
    const definition = '{"content": [{"text": "ok"}, {"text": "x\\udc00"}]}';
    await expectValidationError(await s.api('POST', '/v1/templates', team.apiKey, `{"name": "n", "type": "pdf", "definition": ${definition}}`), 'definition.content[1].text');
    // An async job stores its data: refused before any credit moves.
    const asyncRes = await s.api('POST', '/v1/pdf/create-async', team.apiKey, `{"template_id": "${tpl}", "data": {"items": [{"name": "\\ud83d"}]}}`);
    await expectValidationError(asyncRes, 'data.items[0].name');
    assert.equal((await rawRows(s.server.services.db, 'jobs', 'team_id', team.teamId)).length, 0, 'no job stored');
    const keyRes = await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {"a\\udfffb": 1}}`);
    const keyBody = await expectValidationError(keyRes, 'data');
    assert.match(keyBody.errors![0].message, /the key "a\\udfffb" holds an unpaired UTF-16 surrogate/);
    // A body with other faults too: every fault is listed.
    const both = await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {}, "filename": "\\ud800", "expiration": 1}`);
    const bothBody = await expectValidationError(both, 'filename');
    assert.ok(bothBody.errors!.some((e) => e.path === 'expiration'), JSON.stringify(bothBody.errors));
    assert.ok(bothBody.errors!.some((e) => e.path === 'filename' && /surrogate/.test(e.message)), JSON.stringify(bothBody.errors));
  });

  test('a surrogate pair, escaped or as UTF-8, is text and goes through', async () => {
    const res = await s.api('POST', '/v1/templates', team.apiKey, '{"name": "smile \\ud83d\\ude00 😀", "type": "image", "definition": {}}');
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(((await res.json()) as { name: string }).name, 'smile 😀 😀');
  });
});

describe('numbers in list queries', () => {
  const lists = ['/v1/pdf/jobs', '/v1/templates', '/v1/account/transactions', '/v1/assets'];

  test('limit and offset are plain decimal integers: hex, spaces, exponents, fractions and signs are refused', async () => {
    for (const list of lists) {
      for (const [query, path] of [
        ['limit=0x10', 'limit'],
        ['limit=%2010%20', 'limit'],
        ['limit=1e1', 'limit'],
        ['limit=10.0', 'limit'],
        ['limit=%2B5', 'limit'],
        ['limit=', 'limit'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['offset=-0', 'offset'],
        ['offset=0x1', 'offset'],
        ['offset=9007199254740992', 'offset'],
      ] as const) {
        const body = await expectValidationError(await s.api('GET', `${list}?${query}`, team.apiKey), path);
        const fault = body.errors!.find((e) => e.path === path)!;
        assert.match(fault.message, new RegExp(`^${path} must be a whole number`), `${list}?${query}: ${fault.message}`);
      }
      const ok = await s.api('GET', `${list}?limit=5&offset=0`, team.apiKey);
      assert.equal(ok.status, 200, `${list}: ${await ok.clone().text()}`);
      const page = (await ok.json()) as { limit: number; offset: number };
      assert.deepEqual([page.limit, page.offset], [5, 0]);
    }
  });

  test('a repeated parameter is refused with a message naming it', async () => {
    for (const list of lists) {
      const body = await expectValidationError(await s.api('GET', `${list}?limit=1&limit=2`, team.apiKey), 'limit');
      assert.equal(body.errors![0].message, 'the query parameter limit is given 2 times: give it once');
      await expectValidationError(await s.api('GET', `${list}?offset=1&offset=1`, team.apiKey), 'offset');
    }
    const status = await expectValidationError(await s.api('GET', '/v1/pdf/jobs?status=failed&status=completed', team.apiKey), 'status');
    assert.equal(status.errors![0].message, 'the query parameter status is given 2 times: give it once');
    const unknown = await expectValidationError(await s.api('GET', '/v1/pdf/jobs?status=done', team.apiKey), 'status');
    assert.match(unknown.errors![0].message, /^status must be one of pending, processing, completed, failed/);
  });
});

describe('unknown fields', () => {
  test('an unknown field is named by its path, one fault per field', async () => {
    const image = await expectValidationError(await s.api('POST', '/v1/image/create', team.apiKey, { template_id: tpl, data: {}, pdf_variant: 'pdf/a-2b' }), 'pdf_variant');
    assert.deepEqual(image.errors, [{ path: 'pdf_variant', message: '"pdf_variant" is not a known field of this request' }]);
    assert.equal(image.detail, 'pdf_variant: "pdf_variant" is not a known field of this request');

    const two = await expectValidationError(await s.api('POST', '/v1/pdf/create', team.apiKey, { template_id: tpl, data: {}, foo: 1, bar: 2 }), 'foo');
    assert.deepEqual(two.errors!.map((e) => e.path).sort(), ['bar', 'foo']);

    for (const [method, path, body] of [
      ['POST', '/v1/templates', { nmae: 'x', name: 'x', type: 'image', definition: {} }],
      ['POST', '/v1/pdf/create-async', { template_id: tpl, data: {}, webhook: 'https://example.com' }],
      ['POST', '/v1/templates/preview', { definition: { content: [] }, data: {}, fromat: 'png' }],
      ['POST', '/v1/integrations/s3', { bucket: 'acme-pdfs', access_key_id: 'a', secret_access_key: 'b', regoin: 'eu-west-1' }],
    ] as const) {
      const res = await s.api(method, path, team.apiKey, body);
      const unknown = Object.keys(body).find((k) => ['nmae', 'webhook', 'fromat', 'regoin'].includes(k))!;
      const fault = (await expectValidationError(res, unknown)).errors!.find((e) => e.path === unknown)!;
      assert.match(fault.message, /is not a known field/, `${path}: ${fault.message}`);
    }
    // An empty key has a path too.
    await expectValidationError(await s.api('POST', '/v1/pdf/create', team.apiKey, `{"template_id": "${tpl}", "data": {}, "": 1}`), '[""]');
  });
});
