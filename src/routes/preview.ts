/**
 * POST /v1/templates/preview: a definition or stored template rendered with data, stamped
 * "PREVIEW", without a credit and without storing a file. Mounted before the other /v1 routes with
 * its own middleware: the same API key check and failed-authentication limit, and its own rate
 * limit (PLATEN_PREVIEW_RATE_LIMIT per key per minute) instead of the API's, so an editor's
 * previews never use up a key's render requests.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Services } from '../app.ts';
import { apiKeyAuth } from '../middleware/api-key-auth.ts';
import { limitCounter, logLimitFailures } from '../middleware/limit-store.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { previewBody, previewJson } from '../schemas/preview.ts';
import { renderPreview } from '../services/preview.ts';
import { errorResponse, json, newRouter } from './router.ts';

/**
 * The route, mounted at /v1/templates. `authFailures`: the API's failed-authentication limiter,
 * shared so that guesses count the same here; `inFlight`: the API's budget of request bodies in
 * flight per team (team-in-flight.ts), shared likewise, followed by the inflating of compressed
 * bodies (body-encoding.ts).
 */
export function previewRoutes(s: Services, authFailures: MiddlewareHandler<AppEnv>, inFlight: MiddlewareHandler<AppEnv>): OpenAPIHono<AppEnv> {
  const app = newRouter();
  const route = createRoute({
    method: 'post',
    path: '/preview',
    summary: 'Preview a template: no credit, no stored file',
    description:
      'Renders `definition` (validated as POST /v1/templates validates it, errors at `definition.<path>`) or the stored template `template_id` ' +
      '(its draft, or `version`) with `data`. Every page carries a diagonal PREVIEW mark. No credit is taken and nothing is stored. ' +
      'With `format` "png" the answer is one page (`page`, default 1) as a PNG image at `scale` pixels per point (default 2), painted from the same layout as the PDF. ' +
      'Previews have their own rate limit per API key (PLATEN_PREVIEW_RATE_LIMIT a minute, default 300) and do not count toward the API\'s.',
    security: [{ apiKey: [] }],
    middleware: [authFailures, apiKeyAuth({ db: s.db }), rateLimit({ limit: s.config.previewRateLimit, counter: limitCounter(s.db, 60_000, logLimitFailures(s.log)), name: 'preview' }), inFlight] as const,
    request: { body: { required: true, content: json(previewBody) } },
    responses: {
      200: {
        description: 'export_type "binary": the PDF, or with format "png" the PNG of the page (X-Platen-Pages, X-Platen-Warnings); "json": the PDF or PNG as base64 with pages, warnings and fields',
        content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } }, 'image/png': { schema: { type: 'string', format: 'binary' } }, 'application/json': { schema: previewJson } },
        headers: {
          'X-Platen-Pages': { description: 'pages of the PDF', schema: { type: 'integer' } },
          'X-Platen-Warnings': { description: 'render warnings (listed by export_type "json")', schema: { type: 'integer' } },
        },
      },
      400: errorResponse('invalid body or definition (VALIDATION_ERROR; with "png" also a scale past the pixel limit or a page past the last one), or an image template previewed as a PDF (BAD_REQUEST)'),
      401: errorResponse('missing or invalid API key'),
      403: errorResponse('template of another team'),
      404: errorResponse('unknown template or version'),
      422: errorResponse('an image URL could not be fetched, or an asset does not exist (IMAGE_FETCH_FAILED, with url and path)'),
      429: errorResponse('preview rate limit hit'),
      500: errorResponse('rendering failed: render_error {code, message, path}'),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const result = await renderPreview({ ...s, maxPixels: s.config.maxImageOutputPixels, maxTemplateNodes: s.config.maxTemplateNodes }, c.get('teamId'), body);
    c.set('renderMs', result.renderMs);
    const headers = {
      'Cache-Control': 'no-store',
      'X-Platen-Pages': String(result.pages),
      'X-Platen-Warnings': String(result.warnings.length),
      'Server-Timing': `render;dur=${result.renderMs.toFixed(2)}`,
    };
    if (result.image) {
      if (body.export_type === 'json') {
        return c.json({ png: result.pdf.toString('base64'), ...result.image, pages: result.pages, warnings: result.warnings, fields: result.fields, render_ms: result.renderMs }, 200, headers);
      }
      return c.body(new Uint8Array(result.pdf.buffer as ArrayBuffer, result.pdf.byteOffset, result.pdf.byteLength), 200, {
        ...headers,
        'Content-Type': 'image/png',
        'Content-Disposition': `inline; filename="preview-${result.image.page}.png"`,
      }) as never;
    }
    if (body.export_type === 'json') {
      return c.json({ pdf: result.pdf.toString('base64'), pages: result.pages, warnings: result.warnings, fields: result.fields, render_ms: result.renderMs }, 200, headers);
    }
    return c.body(new Uint8Array(result.pdf.buffer as ArrayBuffer, result.pdf.byteOffset, result.pdf.byteLength), 200, {
      ...headers,
      'Content-Type': 'application/pdf',
      'Content-Disposition': 'inline; filename="preview.pdf"',
    }) as never;
  });
  return app;
}
