/** Schemas of stored assets (images uploaded once, used as `asset:<id>`). */
import { z } from '@hono/zod-openapi';
import { pageOf, pageQuery } from './common.ts';

export const assetJson = z
  .object({
    id: z.string().openapi({ example: '3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e', description: 'use it in a template as `asset:<id>`' }),
    filename: z.string().openapi({ example: 'logo.svg' }),
    content_type: z.string().openapi({ example: 'image/svg+xml', description: 'image/png, image/jpeg or image/svg+xml, sniffed from the bytes' }),
    bytes: z.number().int(),
    created_at: z.string(),
  })
  .openapi('Asset');

export const assetUpload = z
  .object({
    // Checked by the route (a file field named "file"), so that a missing one is told as such.
    file: z.any().optional().openapi({ type: 'string', format: 'binary', description: 'the image: PNG, JPEG or SVG, at most PLATEN_ASSET_MAX_BYTES (5 MiB by default)' }),
  })
  .openapi('AssetUpload');

export const assetParams = z.object({ asset_id: z.string().openapi({ param: { name: 'asset_id', in: 'path' }, example: '3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e' }) });

export const assetListQuery = pageQuery;

export const assetList = pageOf('assets', assetJson, 'newest first', 'AssetList');
