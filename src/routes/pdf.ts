/** PDF generation routes (spec §4.1). Thin: validation by the schema, work in services/generate.ts. */
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { errorBody } from '../schemas/common.ts';
import { createPdfBody, urlResult } from '../schemas/pdf.ts';
import { generateSync } from '../services/generate.ts';
import { newRouter } from './router.ts';

const errors = Object.fromEntries(
  [
    [400, 'invalid request, image template, or an unsupported option'],
    [401, 'missing or invalid API key'],
    [402, 'no credits left'],
    [403, 'template of another team'],
    [404, 'unknown template or version'],
    [429, 'rate limit hit'],
    [500, 'rendering failed; the credit was refunded'],
  ].map(([status, description]) => [status, { description, content: { 'application/json': { schema: errorBody } } }]),
);

const create = createRoute({
  method: 'post',
  path: '/create',
  summary: 'Generate a PDF synchronously (spec §4.1)',
  security: [{ apiKey: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: createPdfBody } } } },
  responses: {
    200: {
      description: 'export_type "url": a signed URL as JSON; export_type "binary": the PDF bytes',
      content: { 'application/json': { schema: urlResult }, 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
      headers: { 'X-Credits-Remaining': { description: 'binary export: credits after the call', schema: { type: 'integer' } } },
    },
    ...errors,
  },
});

export function pdfRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const result = await generateSync(s, c.get('teamId'), body);
    if (result.kind === 'binary') {
      return c.body(new Uint8Array(result.pdf), 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${body.template_id}.pdf"`,
        'X-Credits-Remaining': String(result.creditsRemaining),
      }) as never;
    }
    return c.json({ url: result.url, filename: result.filename, credits_remaining: result.creditsRemaining, expires_in: result.expiresIn }, 200);
  });
  return app;
}
