/** Image generation (POST /v1/image/create). Thin: validation by the schema, work in services/image.ts. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { createImageBody, imageS3Result, imageUrlResult } from '../schemas/image.ts';
import { generateImage } from '../services/image.ts';
import { generationErrors, newRouter } from './router.ts';
import { refuseIdempotencyKey } from '../services/idempotency.ts';

const errors = generationErrors({
  400: 'invalid request (VALIDATION_ERROR: a scale giving more pixels than allowed, a page past the last one; its credit refunded), or store_s3 without an S3 integration (S3_INTEGRATION_MISSING)',
});

const create = createRoute({
  method: 'post',
  path: '/create',
  summary: 'Generate an image (PNG or JPEG) synchronously',
  description:
    'Renders one page of a template as an image: a template of type image, or a PDF template (its page `page`). ' +
    'The page is laid out exactly as for a PDF and painted from the same glyph outlines and positions. ' +
    'One credit, given back when rendering fails. `scale` is pixels per point (1 = 72 dpi, default 2); the image may have at most PLATEN_MAX_IMAGE_OUTPUT_PIXELS pixels.',
  security: [{ apiKey: [] }],
  request: { body: { required: true, content: { 'application/json': { schema: createImageBody } } } },
  responses: {
    200: {
      description: 'export_type "url": a signed URL as JSON (or with store_s3 the bucket and key of the uploaded image); export_type "binary": the image bytes',
      content: {
        'application/json': { schema: z.union([imageUrlResult, imageS3Result]) },
        'image/png': { schema: { type: 'string', format: 'binary' } },
        'image/jpeg': { schema: { type: 'string', format: 'binary' } },
      },
      headers: {
        'X-Credits-Remaining': { description: 'binary export: credits after the call', schema: { type: 'integer' } },
        'X-Platen-Warnings': { description: 'binary export: how many render warnings there were (the JSON answers list them)', schema: { type: 'integer' } },
        'X-Platen-Pages': { description: 'binary export: pages of the document the page was taken from', schema: { type: 'integer' } },
      },
    },
    ...errors,
  },
});

export function imageRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    refuseIdempotencyKey(c.req.header('idempotency-key'));
    const result = await generateImage({ ...s, maxPixels: s.config.maxImageOutputPixels }, c.get('teamId'), body, c.req.raw.signal);
    c.set('renderMs', result.renderMs);
    const shape = { width: result.width, height: result.height, page: result.page, pages: result.pages };
    if (result.kind === 'binary') {
      const ext = body.format === 'jpeg' ? 'jpg' : 'png';
      return c.body(new Uint8Array(result.image.buffer as ArrayBuffer, result.image.byteOffset, result.image.byteLength), 200, {
        'Content-Type': result.contentType,
        'Content-Disposition': `attachment; filename="${body.template_id}.${ext}"`,
        'X-Credits-Remaining': String(result.creditsRemaining),
        'X-Platen-Warnings': String(result.warnings.length),
        'X-Platen-Pages': String(result.pages),
      }) as never;
    }
    if (result.kind === 's3') {
      return c.json({ s3_bucket: result.bucket, s3_key: result.key, filename: result.filename, credits_remaining: result.creditsRemaining, ...shape, warnings: result.warnings }, 200);
    }
    return c.json({ url: result.url, filename: result.filename, credits_remaining: result.creditsRemaining, expires_in: result.expiresIn, ...shape, warnings: result.warnings }, 200);
  });
  return app;
}
