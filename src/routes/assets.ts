/**
 * Stored assets: upload an image once (multipart, field `file`), list, delete; templates use it
 * as `asset:<id>` wherever an image source goes. Team-scoped: another team's id is 404. Thin:
 * storage in services/assets.ts.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Services } from '../app.ts';
import { ApiError, validationError } from '../errors.ts';
import { assetJson, assetList, assetListQuery, assetParams, assetUpload } from '../schemas/assets.ts';
import { createAsset, deleteAsset, listAssets, toAssetJson } from '../services/assets.ts';
import { StorageFailure } from '../storage/store.ts';
import { authErrors, errorResponse, json, newRouter } from './router.ts';

/** Bytes an asset upload may have besides the file itself (multipart boundaries and part headers). */
export const ASSET_UPLOAD_FRAMING_BYTES = 64 * 1024;

/**
 * Before the request validators: a body that is not multipart is 415 with this route's message
 * (the validators' own 415 asks for JSON), and one that is multipart but cannot be read is 400
 * naming `file` (theirs is a BAD_REQUEST without a field). The parsed form is cached for them.
 */
const multipartOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!/^multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'upload the image as multipart/form-data with the field "file"');
  }
  try {
    await c.req.formData();
  } catch {
    throw validationError([{ path: 'file', message: 'the multipart body could not be read: send the image as multipart/form-data with the field "file"' }]);
  }
  await next();
};

const upload = createRoute({
  method: 'post',
  path: '/',
  middleware: [multipartOnly] as const,
  summary: 'Upload an image asset',
  description:
    'A multipart/form-data body with the image in the field `file` (PNG, JPEG or SVG, sniffed from the bytes; at most PLATEN_ASSET_MAX_BYTES, 5 MiB by default). ' +
    'It is checked as a render decodes it, with the render limits: a file cut short, an SVG with entity declarations or a size no PDF can draw, or an image past PLATEN_MAX_IMAGE_PIXELS or PLATEN_MAX_SVG_ELEMENTS is refused (400 naming `file`, the message saying what is wrong). ' +
    'Use it in any template of the team as `"image": "asset:<id>"` (or through a placeholder whose data is `asset:<id>`). Costs no credit.',
  security: [{ apiKey: [] }],
  request: { body: { required: true, content: { 'multipart/form-data': { schema: assetUpload } } } },
  responses: {
    201: { description: 'stored', content: json(assetJson) },
    400: errorResponse("no `file` field, an empty or too large file, not a PNG, JPEG or SVG, an image a render could not draw (truncated, corrupt, past the render limits), or past the team's PLATEN_MAX_TEAM_STORAGE_BYTES (VALIDATION_ERROR)"),
    413: errorResponse('the request body is larger than PLATEN_ASSET_MAX_BYTES and 64 KiB of multipart framing: refused before it is read (PAYLOAD_TOO_LARGE)'),
    415: errorResponse('the body is not multipart/form-data'),
    ...authErrors,
  },
});

const list = createRoute({
  method: 'get',
  path: '/',
  summary: 'List the team’s assets',
  security: [{ apiKey: [] }],
  request: { query: assetListQuery },
  responses: { 200: { description: 'a page of assets, newest first', content: json(assetList) }, ...authErrors },
});

const remove = createRoute({
  method: 'delete',
  path: '/{asset_id}',
  summary: 'Delete an asset',
  description: 'Templates that use it fail from then on with 422 IMAGE_FETCH_FAILED naming the asset and the template path (queued jobs: the job fails with that code).',
  security: [{ apiKey: [] }],
  request: { params: assetParams },
  responses: { 204: { description: 'deleted' }, 404: errorResponse('no asset with this id in the team (ASSET_NOT_FOUND)'), ...authErrors },
});

export function assetRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(upload, async (c) => {
    if (!/^multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'upload the image as multipart/form-data with the field "file"');
    }
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      throw validationError([{ path: 'file', message: 'the multipart body could not be read' }]);
    }
    const file = form.file;
    if (Array.isArray(file)) throw validationError([{ path: 'file', message: `the body holds ${file.length} fields named "file": upload one file per request` }]);
    if (!(file instanceof File)) throw validationError([{ path: 'file', message: 'a file field named "file" is required' }]);
    if (file.size > s.config.assetMaxBytes) throw validationError([{ path: 'file', message: `the file is larger than ${s.config.assetMaxBytes} bytes (PLATEN_ASSET_MAX_BYTES)` }]);
    const bytes = Buffer.from(await file.arrayBuffer());
    try {
      const row = await createAsset(s.db, s.assets, c.get('teamId'), { filename: file.name, bytes }, s.config.assetMaxBytes, s.config.maxTeamStorageBytes, s.config.engineLimits, s.pool);
      return c.json(toAssetJson(row), 201);
    } catch (e) {
      if (e instanceof StorageFailure) throw new ApiError(503, 'STORAGE_UNAVAILABLE', `the asset could not be stored: ${e.message}`);
      throw e;
    }
  });
  app.openapi(list, async (c) => {
    const q = c.req.valid('query');
    return c.json(await listAssets(s.db, c.get('teamId'), q.limit, q.offset), 200);
  });
  app.openapi(remove, async (c) => {
    await deleteAsset(s.db, s.assets, c.get('teamId'), c.req.valid('param').asset_id);
    return c.body(null, 204);
  });
  return app;
}
