/**
 * /openapi.json (what /docs shows): every operation with a JSON body has request examples, every
 * JSON answer has an example, each example is valid against the schema it illustrates, and every
 * value of every enum of a request body is shown by one of the operation's examples.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Media {
  schema?: Record<string, unknown>;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Operation {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

let s: TestServer;
let spec: Spec;
before(async () => {
  s = await startTestServer();
  spec = (await (await s.fetch('/openapi.json')).json()) as Spec;
});
after(() => s.close());

const isJson = (type: string) => /^application\/([a-z.+-]+\+)?json/.test(type);

function operations(): [string, Operation][] {
  return Object.entries(spec.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]));
}

/** A validator for `schema`, with the document's components resolvable (`#/components/...`). */
function validatorFor(schema: unknown) {
  const rewrite = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(rewrite)
      : node && typeof node === 'object'
        ? Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'example').map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `openapi${v}` : rewrite(v)]))
        : node;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(rewrite({ $id: 'openapi', components: spec.components }) as object);
  return ajv.compile(rewrite(schema) as object);
}

test('every JSON request body and every JSON answer has a named example', () => {
  const missing: string[] = [];
  for (const [name, op] of operations()) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
      if (isJson(type) && Object.keys(media.examples ?? {}).length === 0) missing.push(`${name} request ${type}`);
    }
    for (const [status, answer] of Object.entries(op.responses)) {
      for (const [type, media] of Object.entries(answer.content ?? {})) {
        if (isJson(type) && Object.keys(media.examples ?? {}).length === 0) missing.push(`${name} ${status} ${type}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('every example is valid against its schema', () => {
  const invalid: string[] = [];
  for (const [name, op] of operations()) {
    const media: [string, Media][] = [
      ...Object.entries(op.requestBody?.content ?? {}).map(([type, m]): [string, Media] => [`request ${type}`, m]),
      ...Object.entries(op.responses).flatMap(([status, answer]) => Object.entries(answer.content ?? {}).map(([type, m]): [string, Media] => [`${status} ${type}`, m])),
    ];
    for (const [where, m] of media) {
      if (!m.schema || !m.examples) continue;
      const validate = validatorFor(m.schema);
      for (const [exampleName, example] of Object.entries(m.examples)) {
        if (!validate(example.value)) invalid.push(`${name} ${where} "${exampleName}": ${JSON.stringify(validate.errors?.slice(0, 2))}`);
      }
    }
  }
  assert.deepEqual(invalid, []);
});

/** Enum-valued properties of a request schema: [property path, values]. */
function enumsOf(schema: unknown, path = ''): [string, unknown[]][] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  if (typeof node.$ref === 'string') return enumsOf(spec.components.schemas[node.$ref.split('/').pop()!], path);
  const out: [string, unknown[]][] = [];
  if (Array.isArray(node.enum) && node.enum.length > 1) out.push([path, node.enum]);
  for (const [key, sub] of Object.entries((node.properties as Record<string, unknown>) ?? {})) out.push(...enumsOf(sub, path ? `${path}.${key}` : key));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const sub of (node[key] as unknown[]) ?? []) out.push(...enumsOf(sub, path));
  if (node.items) out.push(...enumsOf(node.items, `${path}[]`));
  return out;
}

function valuesAt(value: unknown, path: string): unknown[] {
  if (path === '') return [value];
  const [head, ...rest] = path.split('.');
  const tail = rest.join('.');
  const list = head!.endsWith('[]');
  const key = list ? head!.slice(0, -2) : head!;
  const next = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (next === undefined) return [];
  if (list) return Array.isArray(next) ? next.flatMap((item) => valuesAt(item, tail)) : [];
  return valuesAt(next, tail);
}

test("every value of every enum of a request body appears in one of the operation's examples", () => {
  const unshown: string[] = [];
  for (const [name, op] of operations()) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
      if (!isJson(type)) continue;
      const examples = Object.values(media.examples ?? {}).map((e) => e.value);
      for (const [path, values] of enumsOf(media.schema)) {
        const shown = new Set(examples.flatMap((e) => valuesAt(e, path)));
        for (const v of values) if (!shown.has(v)) unshown.push(`${name} ${path} = ${JSON.stringify(v)}`);
      }
    }
  }
  assert.deepEqual(unshown, []);
});

test('the request examples are accepted by the server as far as their shape goes (no 400 VALIDATION_ERROR on a field)', async () => {
  // Examples name a template the caller does not have: the server must get past body validation
  // to answer 404 TEMPLATE_NOT_FOUND (or 402 with no credits), never 400 on the example's fields.
  const { apiKey } = await s.team(0);
  const refused: string[] = [];
  for (const [name, op] of operations()) {
    const [method, path] = name.split(' ') as [string, string];
    if (!path.startsWith('/v1/') || path.includes('{') || method === 'GET') continue;
    if (path === '/v1/integrations/s3') continue; // its examples are real-looking AWS/MinIO addresses; the address checks are tested elsewhere
    for (const [exampleName, example] of Object.entries(op.requestBody?.content?.['application/json']?.examples ?? {})) {
      const res = await s.api(method, path, apiKey, example.value);
      const body = (await res.json().catch(() => ({}))) as { code?: string; errors?: { path: string }[] };
      if (res.status === 400 && body.code === 'VALIDATION_ERROR' && !(body.errors ?? []).every((e) => e.path.startsWith('data.'))) {
        refused.push(`${name} "${exampleName}": ${JSON.stringify(body)}`);
      }
    }
  }
  assert.deepEqual(refused, []);
});
