/** PDF generation routes (spec §4.1). Thin: validation by the schema, work in services/generate.ts. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { createPdfBody, s3Result, urlResult } from '../schemas/pdf.ts';
import { generateSync } from '../services/generate.ts';
import { errorResponse, newRouter } from './router.ts';

const errors = Object.fromEntries(
  [
    [400, 'invalid request, image template, or store_s3 without an S3 integration (S3_INTEGRATION_MISSING)'],
    [401, 'missing or invalid API key'],
    [402, 'no credits left'],
    [403, 'template of another team'],
    [404, 'unknown template or version'],
    [422, 'an image URL could not be fetched, or an asset:<id> does not exist (IMAGE_FETCH_FAILED, with url and path); no credit was taken'],
    [429, 'rate limit hit'],
    [500, 'rendering failed; the credit was refunded'],
    [502, 'store_s3: the upload to the bucket failed (S3_UPLOAD_FAILED); the credit was refunded'],
    [503, 'the file store did not take the file (STORAGE_UNAVAILABLE); the credit was refunded'],
  ].map(([status, description]) => [status, errorResponse(description as string)]),
);

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
    const result = await generateSync(s, c.get('teamId'), body);
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
