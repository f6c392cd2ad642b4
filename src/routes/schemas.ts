/**
 * GET /v1/schemas/template.json: the template DSL as JSON Schema (draft 2020-12), generated from the
 * zod schema that validates templates. Public (no API key) and readable from any origin, so that
 * editors can fetch it as a definition's `"$schema"`.
 */
import { createHash } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app.ts';
import { templateJsonSchemaText } from '../../engine/template/json-schema.ts';
import { newRouter } from './router.ts';

const route = createRoute({
  method: 'get',
  path: '/v1/schemas/template.json',
  summary: 'The template DSL as JSON Schema',
  description:
    'JSON Schema (draft 2020-12) of a "pdf" template definition, with a description and examples on every property, for editors (`"$schema"`) ' +
    'and tools. No API key needed. It checks structure; the server also checks placeholder syntax, colour names, style names, table grids and fonts.',
  responses: {
    200: { description: 'the schema', content: { 'application/schema+json': { schema: z.object({}).passthrough().openapi({ type: 'object' }) } } },
    304: { description: 'not modified (If-None-Match)' },
  },
});

/** The route, at its full path (mounted on the root app, outside the authenticated /v1 routes). */
export function schemaRoutes(): OpenAPIHono<AppEnv> {
  const app = newRouter();
  let body: string | null = null;
  let etag = '';
  app.openapi(route, (c) => {
    if (body === null) {
      body = templateJsonSchemaText();
      etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    }
    const headers = { ETag: etag, 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers) as never;
    return c.body(body, 200, { ...headers, 'Content-Type': 'application/schema+json; charset=utf-8' }) as never;
  });
  return app;
}
