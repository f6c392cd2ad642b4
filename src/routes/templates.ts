/**
 * Templates of the caller's team (spec §4.5, §9; DESIGN §4): the draft (create, read, edit,
 * delete), numbered versions that snapshot it, and the data fields it reads. Thin: the work is in
 * services/templates.ts, which answers 404 TEMPLATE_NOT_FOUND and 403 FORBIDDEN (spec §5).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { pageQuery } from '../schemas/common.ts';
import {
  createTemplateBody,
  createVersionBody,
  templateFieldList,
  templateIdParam,
  templateJson,
  templateList,
  templateVersion,
  templateVersionList,
  updateTemplateBody,
} from '../schemas/templates.ts';
import { createTemplate, createVersion, deleteTemplate, fieldsOf, getTemplate, listTemplates, listVersions, updateTemplate, type TemplateRow } from '../services/templates.ts';
import { authErrors, errorResponse, json, newRouter } from './router.ts';

const ofTemplate = {
  ...authErrors,
  403: errorResponse('the template belongs to another team (FORBIDDEN)'),
  404: errorResponse('no template with this id (TEMPLATE_NOT_FOUND)'),
};

const create = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create a template',
  description: 'A "pdf" definition is validated against the template DSL; faults answer 400 VALIDATION_ERROR with paths such as `definition.content[0].colr`.',
  security: [{ apiKey: [] }],
  request: { body: { required: true, content: json(createTemplateBody) } },
  responses: {
    201: { description: 'the template, with its 12-character id', content: json(templateJson) },
    400: errorResponse('invalid body or definition (VALIDATION_ERROR)'),
    ...authErrors,
  },
});

const list = createRoute({
  method: 'get',
  path: '/',
  summary: 'List the team’s templates, newest first (without definitions)',
  security: [{ apiKey: [] }],
  request: { query: pageQuery },
  responses: {
    200: { description: 'a page of templates', content: json(templateList) },
    400: errorResponse('limit or offset out of range (VALIDATION_ERROR)'),
    ...authErrors,
  },
});

const get = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'Get a template with its draft definition',
  security: [{ apiKey: [] }],
  request: { params: templateIdParam },
  responses: { 200: { description: 'the template', content: json(templateJson) }, ...ofTemplate },
});

const update = createRoute({
  method: 'put',
  path: '/{id}',
  summary: 'Edit the draft: name, definition or both',
  description:
    'Takes the representation GET returns, so a template can be read, edited and sent back: `name` and `definition` replace the stored ones ' +
    '(a field left out stays), `type` must be the template\'s own (a type cannot change), `id` must be this template\'s, and `created_at` ' +
    'and `updated_at` are ignored. Versions already taken are not changed; renders without `version` use the edited draft.',
  security: [{ apiKey: [] }],
  request: { params: templateIdParam, body: { required: true, content: json(updateTemplateBody) } },
  responses: {
    200: { description: 'the edited template', content: json(templateJson) },
    400: errorResponse('invalid body or definition, or a different `type` or `id` (VALIDATION_ERROR)'),
    ...ofTemplate,
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a template and its versions',
  security: [{ apiKey: [] }],
  request: { params: templateIdParam },
  responses: { 204: { description: 'deleted' }, ...ofTemplate },
});

const createVersionRoute = createRoute({
  method: 'post',
  path: '/{id}/versions',
  summary: 'Snapshot the draft as the next version (1, 2, ...), optionally tagged',
  description: 'The tag is 1..50 characters, not all digits, unique within the template (409 TAG_EXISTS).',
  security: [{ apiKey: [] }],
  request: { params: templateIdParam, body: { required: false, content: json(createVersionBody) } },
  responses: {
    201: { description: 'the new version', content: json(templateVersion) },
    400: errorResponse("invalid tag, or the snapshot would take the team past PLATEN_MAX_TEAM_STORAGE_BYTES (VALIDATION_ERROR, path template)"),
    409: errorResponse('the tag is taken in this template (TAG_EXISTS)'),
    ...ofTemplate,
  },
});

const versions = createRoute({
  method: 'get',
  path: '/{id}/versions',
  summary: 'List a template’s versions, newest first',
  security: [{ apiKey: [] }],
  request: { params: templateIdParam },
  responses: { 200: { description: 'the versions', content: json(templateVersionList) }, ...ofTemplate },
});

const fields = createRoute({
  method: 'get',
  path: '/{id}/fields',
  summary: 'The data fields the draft reads',
  description: 'Names are data paths such as `customer.name` or `items[].qty`.',
  security: [{ apiKey: [] }],
  request: { params: templateIdParam },
  responses: {
    200: { description: 'the fields', content: json(templateFieldList) },
    400: errorResponse('the stored definition no longer validates (stored before a rule that now refuses it), or was too large to check in time: VALIDATION_ERROR naming `id`'),
    ...ofTemplate,
  },
});

/**
 * The template as JSON text, with its stored definition (JSON text already) put in as it is:
 * parsing a 10 MB definition and writing it out again cost ~50 ms of the HTTP thread a request.
 */
function full(row: TemplateRow): string {
  const head = JSON.stringify({ id: row.id, name: row.name, type: row.type });
  const tail = JSON.stringify({ created_at: row.createdAt, updated_at: row.updatedAt });
  return `${head.slice(0, -1)},"definition":${row.definition},${tail.slice(1)}`;
}

/** The header of {@link full}'s text (sent with `as never`: the route's typed response expects an object). */
const JSON_TYPE = { 'content-type': 'application/json' };

export function templateRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  const templateLimits = { maxNodes: s.config.maxTemplateNodes, maxTeamStorageBytes: s.config.maxTeamStorageBytes, pool: s.pool };
  // A version's body is optional, and many clients send a JSON content type with an empty body.
  app.post('/:id/versions', async (c, next) => {
    // Hono's json() parses the cached text.
    if ((await c.req.arrayBuffer()).byteLength === 0) c.req.bodyCache.text = Promise.resolve('{}') as never;
    return next();
  });
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    return c.body(full(await createTemplate(s.db, c.get('teamId'), body, templateLimits)), 201, JSON_TYPE) as never;
  });
  app.openapi(list, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const page = await listTemplates(s.db, c.get('teamId'), limit, offset);
    return c.json({ templates: page.templates, total: page.total, limit, offset }, 200);
  });
  app.openapi(get, async (c) => {
    const { id } = c.req.valid('param');
    return c.body(full(await getTemplate(s.db, c.get('teamId'), id)), 200, JSON_TYPE) as never;
  });
  app.openapi(update, async (c) => {
    const { id } = c.req.valid('param');
    return c.body(full(await updateTemplate(s.db, c.get('teamId'), id, c.req.valid('json'), templateLimits)), 200, JSON_TYPE) as never;
  });
  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await deleteTemplate(s.db, c.get('teamId'), id);
    return c.body(null, 204);
  });
  app.openapi(createVersionRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { tag } = c.req.valid('json');
    return c.json(await createVersion(s.db, c.get('teamId'), id, tag, s.config.maxTeamStorageBytes), 201);
  });
  app.openapi(versions, async (c) => {
    const { id } = c.req.valid('param');
    return c.json({ versions: await listVersions(s.db, c.get('teamId'), id) }, 200);
  });
  app.openapi(fields, async (c) => {
    const { id } = c.req.valid('param');
    return c.json({ fields: await fieldsOf(s.db, c.get('teamId'), id, s.pool) }, 200);
  });
  return app;
}
