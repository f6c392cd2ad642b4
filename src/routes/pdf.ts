/** PDF generation routes (spec §4.1). Thin: validation by the schema, work in services/generate.ts. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { createPdfBody, s3Result, urlResult } from '../schemas/pdf.ts';
import { generateSync } from '../services/generate.ts';
import { generationErrors, newRouter } from './router.ts';
import { refuseIdempotencyKey } from '../services/idempotency.ts';

const errors = generationErrors();

const create = createRoute({
  method: 'post',
  path: '/create',
  summary: 'Generate a PDF synchronously',
  security: [{ apiKey: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: createPdfBody } } } },
  responses: {
    200: {
      description: 'export_type "url": a signed URL as JSON, or with store_s3 the bucket and key of the uploaded PDF; export_type "binary": the PDF bytes',
      content: { 'application/json': { schema: z.union([urlResult, s3Result]) }, 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
      headers: {
        'X-Credits-Remaining': { description: 'binary export: credits after the call', schema: { type: 'integer' } },
        'X-Platen-Warnings': { description: 'binary export: how many render warnings there were (the JSON answers list them)', schema: { type: 'integer' } },
      },
    },
    ...errors,
  },
});

export function pdfRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    refuseIdempotencyKey(c.req.header('idempotency-key'));
    const result = await generateSync(s, c.get('teamId'), body, c.req.raw.signal);
    c.set('renderMs', result.renderMs);
    if (result.kind === 'binary') {
      return c.body(new Uint8Array(result.pdf.buffer as ArrayBuffer, result.pdf.byteOffset, result.pdf.byteLength), 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${body.template_id}.pdf"`,
        'X-Credits-Remaining': String(result.creditsRemaining),
        'X-Platen-Warnings': String(result.warnings.length),
      }) as never;
    }
    if (result.kind === 's3') {
      return c.json({ s3_bucket: result.bucket, s3_key: result.key, filename: result.filename, credits_remaining: result.creditsRemaining, warnings: result.warnings }, 200);
    }
    return c.json({ url: result.url, filename: result.filename, credits_remaining: result.creditsRemaining, expires_in: result.expiresIn, warnings: result.warnings }, 200);
  });
  return app;
}
