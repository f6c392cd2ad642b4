/**
 * Templates API (spec §4.5, §5, §9; DESIGN §4) against a real server: CRUD, paging, definition
 * validation, versions and rendering them, fields, team isolation, authentication, prototype keys
 * and the OpenAPI document.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rawRows } from '../helpers/api.ts';
import { readPdf } from '../helpers/pdf.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

interface Template {
  id: string;
  name: string;
  type: 'pdf' | 'image';
  definition?: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

interface ErrorJson {
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
}

const hello = (text: string) => ({ content: [{ text }] });

async function createVia(apiKey: string, body: unknown): Promise<Template> {
  const res = await s.api('POST', '/v1/templates', apiKey, body);
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Template;
}

async function expectError(res: Response, status: number, code: string): Promise<ErrorJson> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text) as ErrorJson;
  assert.equal(body.code, code, text);
  assert.equal(typeof body.detail, 'string');
  assert.ok(body.detail.length > 0);
  return body;
}

async function expectValidation(res: Response, path: string): Promise<ErrorJson> {
  const body = await expectError(res, 400, 'VALIDATION_ERROR');
  assert.ok(Array.isArray(body.errors), 'errors[] is present');
  assert.ok(
    body.errors!.some((e) => e.path === path),
    `expected an error at "${path}", got ${JSON.stringify(body.errors)}`,
  );
  return body;
}

/** Text of a PDF rendered through POST /v1/pdf/create (binary export). */
async function renderText(apiKey: string, templateId: string, data: Record<string, unknown>, version?: string): Promise<string> {
  const res = await s.api('POST', '/v1/pdf/create', apiKey, { template_id: templateId, data, export_type: 'binary', ...(version !== undefined ? { version } : {}) });
  assert.equal(res.status, 200, res.status === 200 ? '' : await res.clone().text());
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  const doc = await readPdf(Buffer.from(await res.arrayBuffer()));
  return doc.pages.map((p) => p.text).join('\n');
}

describe('CRUD', () => {
  test('create, read, edit and delete a template', async () => {
    const { apiKey } = await s.team();
    const definition = { page: { size: 'A4' }, content: [{ text: 'Hello {{name}}' }] };
    const created = await createVia(apiKey, { name: 'Greeting', type: 'pdf', definition });
    assert.match(created.id, /^[A-Za-z0-9]{12}$/);
    assert.deepEqual(Object.keys(created).sort(), ['created_at', 'definition', 'id', 'name', 'type', 'updated_at']);
    assert.equal(created.name, 'Greeting');
    assert.equal(created.type, 'pdf');
    assert.deepEqual(created.definition, definition);
    assert.ok(!Number.isNaN(Date.parse(created.created_at)));
    assert.equal(created.updated_at, created.created_at);

    let res = await s.api('GET', `/v1/templates/${created.id}`, apiKey);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), created);

    // Rename only: the definition stays.
    res = await s.api('PUT', `/v1/templates/${created.id}`, apiKey, { name: 'Greeting v2' });
    assert.equal(res.status, 200);
    const renamed = (await res.json()) as Template;
    assert.equal(renamed.name, 'Greeting v2');
    assert.deepEqual(renamed.definition, definition);
    assert.equal(renamed.created_at, created.created_at);
    assert.ok(renamed.updated_at >= created.updated_at);

    // New definition only: the name stays.
    const next = hello('Goodbye {{name}}');
    res = await s.api('PUT', `/v1/templates/${created.id}`, apiKey, { definition: next });
    assert.equal(res.status, 200);
    const edited = (await res.json()) as Template;
    assert.equal(edited.name, 'Greeting v2');
    assert.deepEqual(edited.definition, next);

    res = await s.api('GET', `/v1/templates/${created.id}`, apiKey);
    assert.deepEqual(await res.json(), edited);

    res = await s.api('DELETE', `/v1/templates/${created.id}`, apiKey);
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');

    await expectError(await s.api('GET', `/v1/templates/${created.id}`, apiKey), 404, 'TEMPLATE_NOT_FOUND');
    await expectError(await s.api('DELETE', `/v1/templates/${created.id}`, apiKey), 404, 'TEMPLATE_NOT_FOUND');
    await expectError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: created.id, data: {} }), 404, 'TEMPLATE_NOT_FOUND');
  });

  test('PUT takes what GET returns: read, edit, send back the same JSON', async () => {
    const { apiKey } = await s.team();
    const created = await createVia(apiKey, { name: 'Round trip', type: 'pdf', definition: hello('Hello {{name}}') });
    const got = (await (await s.api('GET', `/v1/templates/${created.id}`, apiKey)).json()) as Template;
    assert.deepEqual(Object.keys(got).sort(), ['created_at', 'definition', 'id', 'name', 'type', 'updated_at']);

    // Sent back untouched: accepted, nothing changes but updated_at.
    let res = await s.api('PUT', `/v1/templates/${got.id}`, apiKey, got);
    assert.equal(res.status, 200, await res.clone().text());
    const same = (await res.json()) as Template;
    assert.deepEqual({ ...same, updated_at: got.updated_at }, got);

    // Edited: name and definition replaced; created_at kept; stale or odd timestamps are ignored.
    const edited = { ...got, name: 'Round trip (edited)', definition: hello('Goodbye {{name}}'), created_at: '1999-01-01T00:00:00.000Z', updated_at: 'whenever' };
    res = await s.api('PUT', `/v1/templates/${got.id}`, apiKey, edited);
    assert.equal(res.status, 200, await res.clone().text());
    const after = (await res.json()) as Template;
    assert.equal(after.name, 'Round trip (edited)');
    assert.deepEqual(after.definition, hello('Goodbye {{name}}'));
    assert.equal(after.type, 'pdf');
    assert.equal(after.created_at, created.created_at);
    assert.ok(after.updated_at >= got.updated_at && !Number.isNaN(Date.parse(after.updated_at)));
    assert.deepEqual(await (await s.api('GET', `/v1/templates/${got.id}`, apiKey)).json(), after);

    // The same type alone is a valid (empty) edit.
    assert.equal((await s.api('PUT', `/v1/templates/${got.id}`, apiKey, { type: 'pdf', name: 'typed' })).status, 200);
  });

  test('PUT cannot change type or id: 400 VALIDATION_ERROR naming the field, nothing stored', async () => {
    const { apiKey } = await s.team();
    const t = await createVia(apiKey, { name: 'Fixed', type: 'pdf', definition: hello('x') });
    const other = await createVia(apiKey, { name: 'Other', type: 'image', definition: hello('image') });

    let body = await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { ...t, type: 'image', name: 'changed' }), 'type');
    assert.match(body.detail, /^type: cannot change: this template is of type "pdf"; create a new template for type "image"/);
    body = await expectValidation(await s.api('PUT', `/v1/templates/${other.id}`, apiKey, { type: 'pdf', definition: hello('y') }), 'type');
    assert.match(body.detail, /of type "image"/);
    body = await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { ...other, type: 'pdf', definition: hello('y') }), 'id');
    assert.match(body.detail, new RegExp(`^id: is "${other.id}" but this is template "${t.id}"`));
    // Both at once: both named.
    body = await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, other), 'id');
    assert.deepEqual(body.errors!.map((e) => e.path).sort(), ['id', 'type']);
    // Still refused: unknown fields, a bad type value, a malformed timestamp type.
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { ...t, team_id: 'x' }), 'team_id');
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { ...t, type: 'docx' }), 'type');
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { ...t, created_at: 5 }), 'created_at');

    assert.deepEqual(await (await s.api('GET', `/v1/templates/${t.id}`, apiKey)).json(), t);
    assert.deepEqual(await (await s.api('GET', `/v1/templates/${other.id}`, apiKey)).json(), other);
  });

  test('deleting a template deletes its versions', async () => {
    const { apiKey } = await s.team();
    const t = await createVia(apiKey, { name: 't', type: 'pdf', definition: hello('one') });
    assert.equal((await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'keep' })).status, 201);
    assert.equal((await s.api('DELETE', `/v1/templates/${t.id}`, apiKey)).status, 204);
    await expectError(await s.api('GET', `/v1/templates/${t.id}/versions`, apiKey), 404, 'TEMPLATE_NOT_FOUND');
    assert.equal((await rawRows(s.server.services.db, 'template_versions', 'template_id', t.id)).length, 0);
  });

  test('request bodies are validated with field paths', async () => {
    const { apiKey } = await s.team();
    const def = hello('x');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { type: 'pdf', definition: def }), 'name');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: '', type: 'pdf', definition: def }), 'name');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x'.repeat(201), type: 'pdf', definition: def }), 'name');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x', type: 'docx', definition: def }), 'type');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x', definition: def }), 'type');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x', type: 'pdf' }), 'definition');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x', type: 'pdf', definition: [def] }), 'definition');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x', type: 'image', definition: 'a string' }), 'definition');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'x', type: 'pdf', definition: def, extra: 1 }), 'extra');
    await expectError(await s.api('POST', '/v1/templates', apiKey, '{"name": "x",'), 400, 'BAD_REQUEST');

    // 200 characters is the longest name.
    const long = await createVia(apiKey, { name: 'n'.repeat(200), type: 'pdf', definition: def });
    await expectValidation(await s.api('PUT', `/v1/templates/${long.id}`, apiKey, {}), '');
    await expectValidation(await s.api('PUT', `/v1/templates/${long.id}`, apiKey, { name: '' }), 'name');
    await expectValidation(await s.api('PUT', `/v1/templates/${long.id}`, apiKey, { type: 'image' }), 'type');
    await expectValidation(await s.api('PUT', `/v1/templates/${long.id}`, apiKey, { definition: null }), 'definition');

    const res = await s.api('GET', '/v1/templates', apiKey);
    assert.equal(((await res.json()) as { total: number }).total, 1, 'only the valid create was stored');
  });
});

describe('names and tags', () => {
  test('a name or tag needs a visible character and holds no control or bidi control characters; any script and emoji are fine', async () => {
    const { apiKey } = await s.team();
    const bad: [string, RegExp][] = [
      ['   ', /needs a visible character/],
      ['\u200b\u200b', /needs a visible character/],
      ['Invoice\tcopy', /control character U\+0009/],
      ['Line\nbreak', /control character U\+000A/],
      ['fdp\u202eexe.pdf', /control character U\+202E/],
      ['a\u2066b', /control character U\+2066/],
    ];
    for (const [name, message] of bad) {
      const e = await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name, type: 'pdf', definition: hello('x') }), 'name');
      assert.match(e.errors![0].message, message, JSON.stringify(name));
    }
    const t = await createVia(apiKey, { name: 'Rechnung \u{1F4C4} \u0641\u0627\u062a\u0648\u0631\u0629', type: 'pdf', definition: hello('x') });
    for (const [tag, message] of bad) {
      const e = await expectValidation(await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag }), 'tag');
      assert.match(e.errors![0].message, message, JSON.stringify(tag));
    }
    assert.equal((await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'v1 \u05d0' })).status, 201);
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { name: ' ' }), 'name');
  });
});

describe('definition validation', () => {
  test('a PDF definition is validated when created, with the path of each fault', async () => {
    const { apiKey } = await s.team();
    const body = await expectValidation(
      await s.api('POST', '/v1/templates', apiKey, { name: 'bad', type: 'pdf', definition: { content: [{ text: 'x', colr: '#000000' }] } }),
      'definition.content[0].colr',
    );
    assert.match(body.detail, /definition\.content\[0\]\.colr/);
    await expectValidation(
      await s.api('POST', '/v1/templates', apiKey, { name: 'bad', type: 'pdf', definition: { content: [{ text: 'ok' }, { table: { rows: 'nope' } }] } }),
      'definition.content[1].table.rows',
    );
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'bad', type: 'pdf', definition: { page: { size: 'A9000' }, content: [] } }), 'definition.page.size');
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'bad', type: 'pdf', definition: { content: [{ text: 'Hi {{name' }] } }), 'definition.content[0].text');
    const list = (await (await s.api('GET', '/v1/templates', apiKey)).json()) as { total: number };
    assert.equal(list.total, 0);
  });

  test('margins that leave no room for the content are refused when saved (create, edit, preview), naming definition.page.margin', async () => {
    const { apiKey } = await s.team();
    const fine = await createVia(apiKey, { name: 'fine', type: 'pdf', definition: { page: { size: 'A4', margin: [40, 291] }, content: [{ text: 'x' }] } });
    // A4 is 595 pt wide; a 3 x 3 pt page has no room inside any margin; A5 is 595 pt tall; 4x6in is 288 pt wide.
    for (const page of [{ size: 'A4', margin: [40, 400, 40, 400] }, { size: [3, 3], margin: 0 }, { size: 'A5', margin: [300, 40, 300, 40] }, { size: '4x6in', margin: 140 }, { size: 'A4', margin: [40, 292] }]) {
      const definition = { page, content: [{ text: 'x' }] };
      const created = await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'bad', type: 'pdf', definition }), 'definition.page.margin');
      assert.match(created.errors!.find((e) => e.path === 'definition.page.margin')!.message, /margins \(\d+ \+ \d+ pt\) leave \d+ pt of the page's (width|height) .*at least 12 pt/, JSON.stringify(page));
      await expectValidation(await s.api('PUT', `/v1/templates/${fine.id}`, apiKey, { name: 'fine', definition }), 'definition.page.margin');
      await expectValidation(await s.api('POST', '/v1/templates/preview', apiKey, { definition, data: {} }), 'definition.page.margin');
    }
    const list = (await (await s.api('GET', '/v1/templates', apiKey)).json()) as { total: number };
    assert.equal(list.total, 1, 'only the template with room was stored');
    assert.deepEqual(((await (await s.api('GET', `/v1/templates/${fine.id}`, apiKey)).json()) as Template).definition, fine.definition, 'the refused edits changed nothing');
  });

  test('an invalid edit is refused and leaves the draft as it was', async () => {
    const { apiKey } = await s.team();
    const t = await createVia(apiKey, { name: 'keep', type: 'pdf', definition: hello('fine') });
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { name: 'renamed', definition: { content: [{ spacer: 'big' }] } }), 'definition.content[0].spacer');
    const now = (await (await s.api('GET', `/v1/templates/${t.id}`, apiKey)).json()) as Template;
    assert.deepEqual(now, t);
  });

  test('image templates are checked against the template language like PDF templates, and have fields', async () => {
    const { apiKey } = await s.team();
    // Laid out by the same engine: a fault is refused when saved, not at every render.
    const bad = await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'Banner', type: 'image', definition: { content: [{ text: 'x', colr: 'red' }] } }), 'definition.content[0].colr');
    assert.match(bad.errors![0].message, /did you mean "color"/);
    await expectValidation(await s.api('POST', '/v1/templates', apiKey, { name: 'Banner', type: 'image', definition: { width: 1200 } }), 'definition.content');
    const definition = { page: { size: [600, 300] }, content: [{ text: 'Sale: {{percent}} off', fontSize: 40 }] };
    const t = await createVia(apiKey, { name: 'Banner', type: 'image', definition });
    assert.equal(t.type, 'image');
    assert.deepEqual(t.definition, definition);
    const got = (await (await s.api('GET', `/v1/templates/${t.id}`, apiKey)).json()) as Template;
    assert.deepEqual(got.definition, definition);

    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { definition: { anything: 'goes' } }), 'definition.anything');
    const res = await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { definition: { ...definition, content: [{ text: '{{title}}' }] } });
    assert.equal(res.status, 200);

    const fields = await s.api('GET', `/v1/templates/${t.id}/fields`, apiKey);
    assert.equal(fields.status, 200);
    assert.deepEqual(((await fields.json()) as { fields: { name: string }[] }).fields.map((f) => f.name), ['title']);

    // Still an object: not an array or a scalar.
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { definition: [1] }), 'definition');
    // The PDF endpoints refuse image templates (spec §4.5, §7.1), without charging.
    await expectError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: t.id, data: {} }), 400, 'BAD_REQUEST');
    const account = (await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number };
    assert.equal(account.credits, 10);
  });

  test('a definition nested absurdly deep is refused with 400, not a crash', async () => {
    const { apiKey } = await s.team();
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const type of ['image', 'pdf']) {
      const res = await s.api('POST', '/v1/templates', apiKey, `{"name":"deep","type":"${type}","definition":{"a":${deep}}}`);
      await expectError(res, 400, 'VALIDATION_ERROR');
    }
  });
});

describe('listing', () => {
  test('pages with limit and offset, newest first, with the total and without definitions', async () => {
    const { apiKey } = await s.team();
    const other = await s.team();
    await createVia(other.apiKey, { name: 'not mine', type: 'pdf', definition: hello('x') });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createVia(apiKey, { name: `t${i}`, type: i === 4 ? 'image' : 'pdf', definition: hello(`n${i}`) })).id);
    const newestFirst = [...ids].reverse();

    const all = (await (await s.api('GET', '/v1/templates', apiKey)).json()) as { templates: Template[]; total: number; limit: number; offset: number };
    assert.equal(all.total, 5);
    assert.equal(all.limit, 20);
    assert.equal(all.offset, 0);
    assert.deepEqual(all.templates.map((t) => t.id), newestFirst);
    for (const t of all.templates) {
      assert.deepEqual(Object.keys(t).sort(), ['created_at', 'id', 'name', 'type', 'updated_at']);
    }
    assert.equal(all.templates[0].type, 'image');

    const page = async (q: string) => (await (await s.api('GET', `/v1/templates?${q}`, apiKey)).json()) as { templates: Template[]; total: number; limit: number; offset: number };
    const p1 = await page('limit=2');
    assert.deepEqual(p1.templates.map((t) => t.id), newestFirst.slice(0, 2));
    assert.equal(p1.total, 5);
    assert.equal(p1.limit, 2);
    const p2 = await page('limit=2&offset=2');
    assert.deepEqual(p2.templates.map((t) => t.id), newestFirst.slice(2, 4));
    assert.equal(p2.offset, 2);
    const p3 = await page('limit=2&offset=4');
    assert.deepEqual(p3.templates.map((t) => t.id), newestFirst.slice(4));
    const past = await page('offset=50');
    assert.deepEqual(past.templates, []);
    assert.equal(past.total, 5);
    const max = await page('limit=100');
    assert.equal(max.templates.length, 5);
  });

  test('templates created within the same millisecond still list newest first', async () => {
    const { teamId, apiKey } = await s.team();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await s.template(teamId, hello(`n${i}`), 'pdf', `t${i}`));
    const list = (await (await s.api('GET', '/v1/templates?limit=100', apiKey)).json()) as { templates: Template[]; total: number };
    assert.equal(list.total, 30);
    assert.deepEqual(list.templates.map((t) => t.id), [...ids].reverse());
  });

  test('an edited template keeps its place (creation order)', async () => {
    const { apiKey } = await s.team();
    const first = await createVia(apiKey, { name: 'first', type: 'pdf', definition: hello('1') });
    const second = await createVia(apiKey, { name: 'second', type: 'pdf', definition: hello('2') });
    assert.equal((await s.api('PUT', `/v1/templates/${first.id}`, apiKey, { name: 'first, edited' })).status, 200);
    const list = (await (await s.api('GET', '/v1/templates', apiKey)).json()) as { templates: Template[] };
    assert.deepEqual(list.templates.map((t) => t.id), [second.id, first.id]);
    assert.equal(list.templates[1].name, 'first, edited');
  });

  test('bad limit or offset is 400 VALIDATION_ERROR', async () => {
    const { apiKey } = await s.team();
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-3']) {
      await expectValidation(await s.api('GET', `/v1/templates?${q}`, apiKey), 'limit');
    }
    for (const q of ['offset=-1', 'offset=x', 'offset=0.5']) {
      await expectValidation(await s.api('GET', `/v1/templates?${q}`, apiKey), 'offset');
    }
  });
});

describe('versions', () => {
  test('snapshots are numbered 1, 2, 3, listed newest first, tags optional', async () => {
    const { apiKey } = await s.team();
    const t = await createVia(apiKey, { name: 'v', type: 'pdf', definition: hello('one') });

    let res = await s.api('GET', `/v1/templates/${t.id}/versions`, apiKey);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { versions: [] });

    res = await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, {});
    assert.equal(res.status, 201);
    const v1 = (await res.json()) as { version: number; tag: string | null; created_at: string };
    assert.deepEqual(Object.keys(v1).sort(), ['created_at', 'tag', 'version']);
    assert.equal(v1.version, 1);
    assert.equal(v1.tag, null);

    res = await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'release-2' });
    assert.equal(res.status, 201);
    assert.deepEqual(((await res.json()) as { version: number; tag: string }).version, 2);

    // No body at all is the same as {}.
    res = await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey);
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { version: number }).version, 3);

    // An empty body sent with a JSON content type, as many clients do: the same.
    res = await s.fetch(`/v1/templates/${t.id}/versions`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' } });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(((await res.json()) as { version: number }).version, 4);
    // A body that is not JSON says where JSON.parse stopped.
    const bad = await s.fetch(`/v1/templates/${t.id}/versions`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: '{"tag": "x",}' });
    const badBody = await expectError(bad, 400, 'BAD_REQUEST');
    assert.match(badBody.detail, /^the request body is not valid JSON: .*position 12/);

    res = await s.api('GET', `/v1/templates/${t.id}/versions`, apiKey);
    const list = (await res.json()) as { versions: { version: number; tag: string | null }[] };
    assert.deepEqual(
      list.versions.map((v) => [v.version, v.tag]),
      [
        [4, null],
        [3, null],
        [2, 'release-2'],
        [1, null],
      ],
    );
    assert.deepEqual(list.versions[3], v1);
  });

  test('a tag is unique within its template (409 TAG_EXISTS) but not across templates', async () => {
    const { apiKey } = await s.team();
    const a = await createVia(apiKey, { name: 'a', type: 'pdf', definition: hello('a') });
    const b = await createVia(apiKey, { name: 'b', type: 'pdf', definition: hello('b') });
    assert.equal((await s.api('POST', `/v1/templates/${a.id}/versions`, apiKey, { tag: 'prod' })).status, 201);
    await expectError(await s.api('POST', `/v1/templates/${a.id}/versions`, apiKey, { tag: 'prod' }), 409, 'TAG_EXISTS');
    assert.equal((await s.api('POST', `/v1/templates/${b.id}/versions`, apiKey, { tag: 'prod' })).status, 201);
    // The refused snapshot took no number.
    const res = await s.api('POST', `/v1/templates/${a.id}/versions`, apiKey, { tag: 'Prod' });
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { version: number }).version, 2);
  });

  test('tags: 1..50 characters, not all digits', async () => {
    const { apiKey } = await s.team();
    const t = await createVia(apiKey, { name: 't', type: 'pdf', definition: hello('t') });
    for (const tag of ['42', '1', '007']) {
      const body = await expectValidation(await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag }), 'tag');
      assert.match(body.errors![0].message, /digits/);
    }
    await expectValidation(await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: '' }), 'tag');
    await expectValidation(await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'x'.repeat(51) }), 'tag');
    await expectValidation(await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 7 }), 'tag');
    await expectValidation(await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'ok', note: 'x' }), 'note');
    const ok = await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'x'.repeat(50) });
    assert.equal(ok.status, 201);
    const mixed = await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: '2024' + 'b' });
    assert.equal(mixed.status, 201);
    const list = (await (await s.api('GET', `/v1/templates/${t.id}/versions`, apiKey)).json()) as { versions: { version: number }[] };
    assert.deepEqual(list.versions.map((v) => v.version), [2, 1], 'refused tags created nothing');
  });

  test('rendering a version gives its snapshot; without a version, the edited draft', async () => {
    const { apiKey } = await s.team(20);
    const t = await createVia(apiKey, { name: 'letter', type: 'pdf', definition: hello('Snapshot text for {{who}}') });
    const res = await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, { tag: 'stable' });
    assert.equal(res.status, 201);
    assert.equal((await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { definition: hello('Draft text for {{who}}') })).status, 200);
    // A second snapshot, of the edited draft.
    assert.equal((await s.api('POST', `/v1/templates/${t.id}/versions`, apiKey, {})).status, 201);
    assert.equal((await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { definition: hello('Newest draft for {{who}}') })).status, 200);

    const data = { who: 'Ada' };
    assert.match(await renderText(apiKey, t.id, data, '1'), /Snapshot text for Ada/);
    assert.match(await renderText(apiKey, t.id, data, 'stable'), /Snapshot text for Ada/);
    assert.match(await renderText(apiKey, t.id, data, '2'), /Draft text for Ada/);
    const draft = await renderText(apiKey, t.id, data);
    assert.match(draft, /Newest draft for Ada/);
    assert.doesNotMatch(draft, /Snapshot/);

    // Unknown versions: 404, and no credit taken.
    const before = ((await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number }).credits;
    assert.equal(before, 16);
    for (const version of ['3', '99', 'unstable', 'Stable']) {
      await expectError(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: t.id, data, version }), 404, 'TEMPLATE_VERSION_NOT_FOUND');
    }
    await expectValidation(await s.api('POST', '/v1/pdf/create', apiKey, { template_id: t.id, data, version: 'v'.repeat(51) }), 'version');
    const afterCredits = ((await (await s.api('GET', '/v1/account', apiKey)).json()) as { credits: number }).credits;
    assert.equal(afterCredits, before);
  });
});

describe('fields', () => {
  test('lists the data paths of the draft, nested loops included', async () => {
    const { apiKey } = await s.team();
    const definition = {
      metadata: { title: 'Invoice {{number}}' },
      content: [
        { text: 'Bill to {{customer.name}}' },
        {
          each: 'items',
          as: 'item',
          content: [
            { text: '{{item.name}}: {{item.qty | number:0}}' },
            { each: 'item.parts', as: 'part', content: [{ text: '{{part.sku}} {{$index}}' }] },
          ],
        },
        { if: 'paid', then: [{ text: 'Paid on {{paid_on | date:"yyyy-MM-dd"}}' }] },
      ],
    };
    const t = await createVia(apiKey, { name: 'invoice', type: 'pdf', definition });
    const res = await s.api('GET', `/v1/templates/${t.id}/fields`, apiKey);
    assert.equal(res.status, 200);
    const { fields } = (await res.json()) as { fields: { name: string; type: string }[] };
    const byName = new Map(fields.map((f) => [f.name, f.type]));
    assert.equal(byName.get('customer.name'), 'string');
    assert.equal(byName.get('items'), 'array');
    assert.equal(byName.get('items[].name'), 'string');
    assert.equal(byName.get('items[].qty'), 'number');
    assert.equal(byName.get('items[].parts'), 'array');
    assert.equal(byName.get('items[].parts[].sku'), 'string');
    assert.equal(byName.get('paid'), 'boolean');
    assert.equal(byName.get('paid_on'), 'date');
    assert.equal(byName.get('number'), 'string');
    for (const f of fields) {
      assert.ok(!f.name.startsWith('$') && !f.name.startsWith('item.') && !f.name.startsWith('part.'), `no built-ins or aliases: ${f.name}`);
    }
    assert.equal(new Set(fields.map((f) => f.name)).size, fields.length, 'no duplicates');

    // Fields follow the draft.
    assert.equal((await s.api('PUT', `/v1/templates/${t.id}`, apiKey, { definition: hello('{{only}}') })).status, 200);
    assert.deepEqual(await (await s.api('GET', `/v1/templates/${t.id}/fields`, apiKey)).json(), { fields: [{ name: 'only', type: 'string' }] });
  });

  test('the invoice example through the API: types from use, "unknown" where uses disagree or say nothing', async () => {
    const { apiKey } = await s.team();
    const invoice = JSON.parse(readFileSync(new URL('../../examples/invoice/template.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    const t = await createVia(apiKey, { name: 'invoice', type: 'pdf', definition: invoice });
    const { fields } = (await (await s.api('GET', `/v1/templates/${t.id}/fields`, apiKey)).json()) as { fields: { name: string; type: string }[] };
    const byName = Object.fromEntries(fields.map((f) => [f.name, f.type]));
    assert.deepEqual(
      [byName['items[].qty'], byName['items[].unitPrice'], byName.total, byName.issued, byName.logo, byName.items, byName.paid, byName['items[].detail']],
      ['number', 'number', 'number', 'date', 'image', 'array', 'boolean', 'string'],
    );

    const odd = await createVia(apiKey, {
      name: 'odd',
      type: 'pdf',
      definition: { content: [{ text: '{{when | number}} {{when | date}}' }, { if: { eq: ['gone', null] }, then: [] }] },
    });
    assert.deepEqual(await (await s.api('GET', `/v1/templates/${odd.id}/fields`, apiKey)).json(), {
      fields: [
        { name: 'when', type: 'unknown' },
        { name: 'gone', type: 'unknown' },
      ],
    });
  });
});

describe('access', () => {
  test('another team gets 403 FORBIDDEN on every template route, and nothing changes', async () => {
    const owner = await s.team();
    const intruder = await s.team();
    const t = await createVia(owner.apiKey, { name: 'private', type: 'pdf', definition: hello('secret {{x}}') });
    assert.equal((await s.api('POST', `/v1/templates/${t.id}/versions`, owner.apiKey, { tag: 'v' })).status, 201);
    const versionsBefore = await (await s.api('GET', `/v1/templates/${t.id}/versions`, owner.apiKey)).json();

    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/templates/${t.id}`],
      ['PUT', `/v1/templates/${t.id}`, { name: 'mine now', definition: hello('overwritten') }],
      ['DELETE', `/v1/templates/${t.id}`],
      ['POST', `/v1/templates/${t.id}/versions`, { tag: 'hijack' }],
      ['GET', `/v1/templates/${t.id}/versions`],
      ['GET', `/v1/templates/${t.id}/fields`],
    ];
    for (const [method, path, body] of attempts) {
      const err = await expectError(await s.api(method, path, intruder.apiKey, body), 403, 'FORBIDDEN');
      assert.doesNotMatch(err.detail, /secret/);
    }
    await expectError(await s.api('POST', '/v1/pdf/create', intruder.apiKey, { template_id: t.id, data: {} }), 403, 'FORBIDDEN');
    await expectError(await s.api('POST', '/v1/pdf/create', intruder.apiKey, { template_id: t.id, data: {}, version: 'v' }), 403, 'FORBIDDEN');

    const now = await (await s.api('GET', `/v1/templates/${t.id}`, owner.apiKey)).json();
    assert.deepEqual(now, t);
    assert.deepEqual(await (await s.api('GET', `/v1/templates/${t.id}/versions`, owner.apiKey)).json(), versionsBefore);
    const theirs = (await (await s.api('GET', '/v1/templates', intruder.apiKey)).json()) as { templates: Template[]; total: number };
    assert.equal(theirs.total, 0);
    assert.deepEqual(theirs.templates, []);
    const intruderAccount = (await (await s.api('GET', '/v1/account', intruder.apiKey)).json()) as { credits: number };
    assert.equal(intruderAccount.credits, 10);
  });

  test('an unknown id is 404 TEMPLATE_NOT_FOUND on every template route', async () => {
    const { apiKey } = await s.team();
    for (const id of ['AAAAAAAAAAAA', 'short', 'with%20space']) {
      for (const [method, path, body] of [
        ['GET', `/v1/templates/${id}`],
        ['PUT', `/v1/templates/${id}`, { name: 'x' }],
        ['DELETE', `/v1/templates/${id}`],
        ['POST', `/v1/templates/${id}/versions`, {}],
        ['GET', `/v1/templates/${id}/versions`],
        ['GET', `/v1/templates/${id}/fields`],
      ] as [string, string, unknown?][]) {
        await expectError(await s.api(method, path, apiKey, body), 404, 'TEMPLATE_NOT_FOUND');
      }
    }
  });

  test('every template route needs a valid key (401 UNAUTHORIZED)', async () => {
    const { teamId } = await s.team();
    const id = await s.template(teamId, hello('x'));
    const routes: [string, string, unknown?][] = [
      ['POST', '/v1/templates', { name: 'x', type: 'pdf', definition: hello('x') }],
      ['GET', '/v1/templates'],
      ['GET', `/v1/templates/${id}`],
      ['PUT', `/v1/templates/${id}`, { name: 'y' }],
      ['DELETE', `/v1/templates/${id}`],
      ['POST', `/v1/templates/${id}/versions`, {}],
      ['GET', `/v1/templates/${id}/versions`],
      ['GET', `/v1/templates/${id}/fields`],
    ];
    for (const [method, path, body] of routes) {
      await expectError(await s.api(method, path, null, body), 401, 'UNAUTHORIZED');
      await expectError(await s.api(method, path, 'pk_not_a_real_key', body), 401, 'UNAUTHORIZED');
    }
    const [row] = await rawRows(s.server.services.db, 'templates', 'id', id);
    assert.equal(row?.name, 'test', 'the template is untouched');
  });
});

describe('prototype keys', () => {
  test('a definition with "__proto__" (or constructor/prototype) is refused and pollutes nothing', async () => {
    const { apiKey } = await s.team();
    const raw = (type: string, definition: string) => `{"name":"p","type":"${type}","definition":${definition}}`;
    const cases: [string, string, string][] = [
      ['pdf', '{"__proto__":{"polluted":"yes"},"content":[]}', 'definition.__proto__'],
      ['pdf', '{"content":[{"text":"x","__proto__":{"polluted":"yes"}}]}', 'definition.content[0].__proto__'],
      ['image', '{"__proto__":{"polluted":"yes"},"content":[]}', 'definition.__proto__'],
      ['image', '{"content":[],"a":[{"b":{"__proto__":{"polluted":"yes"}}}]}', 'definition.a[0].b.__proto__'],
      ['image', '{"constructor":{"prototype":{"polluted":"yes"}},"content":[]}', 'definition.constructor'],
      ['pdf', '{"content":[],"styles":{"prototype":{"color":"red"}}}', 'definition.styles.prototype'],
    ];
    for (const [type, def, path] of cases) {
      await expectValidation(await s.api('POST', '/v1/templates', apiKey, raw(type, def)), path);
    }
    // The same through an edit.
    const t = await createVia(apiKey, { name: 'ok', type: 'image', definition: { content: [] } });
    await expectValidation(await s.api('PUT', `/v1/templates/${t.id}`, apiKey, '{"definition":{"__proto__":{"polluted":"yes"}}}'), 'definition.__proto__');
    // And on the body itself.
    await expectError(await s.api('POST', '/v1/templates', apiKey, '{"__proto__":{"polluted":"yes"},"name":"p","type":"image","definition":{"content":[]}}'), 400, 'VALIDATION_ERROR');

    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    const list = (await (await s.api('GET', '/v1/templates', apiKey)).json()) as { total: number };
    assert.equal(list.total, 1, 'only the clean template was stored');
    const got = (await (await s.api('GET', `/v1/templates/${t.id}`, apiKey)).json()) as Template;
    assert.deepEqual(got.definition, { content: [] });
  });
});

test('GET /openapi.json documents every template route', async () => {
  const res = await s.fetch('/openapi.json');
  assert.equal(res.status, 200);
  const spec = (await res.json()) as { paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>> };
  assert.deepEqual(Object.keys(spec.paths['/v1/templates']).sort(), ['get', 'post']);
  assert.deepEqual(Object.keys(spec.paths['/v1/templates/{id}']).sort(), ['delete', 'get', 'put']);
  assert.deepEqual(Object.keys(spec.paths['/v1/templates/{id}/versions']).sort(), ['get', 'post']);
  assert.deepEqual(Object.keys(spec.paths['/v1/templates/{id}/fields']), ['get']);
  assert.ok(spec.paths['/v1/templates'].post.requestBody);
  assert.ok(spec.paths['/v1/templates'].post.responses['201']);
  assert.ok(spec.paths['/v1/templates/{id}'].delete.responses['204']);
  assert.ok(spec.paths['/v1/templates/{id}'].get.responses['403']);
  assert.ok(spec.paths['/v1/templates/{id}/versions'].post.responses['409']);
});
