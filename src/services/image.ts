/**
 * Synchronous image generation (POST /v1/image/create): one page of a template (of type image, or
 * a PDF template: its page `page`) painted as PNG or JPEG by the engine's raster backend, on the
 * render pool with the same limits and error model as PDF generation: one credit, refunded when
 * anything after the debit fails. A page past the document's last is the caller's fault (400
 * VALIDATION_ERROR naming `page`), found only by rendering, so its credit is refunded too.
 */
import type { Db } from '../../db/database.ts';
import type { RenderWarning } from '../../engine/index.ts';
import type { Logger } from '../logger.ts';
import { ApiError, validationError } from '../errors.ts';
import type { ImageTask, RenderPool } from '../render/pool.ts';
import { IMAGE_EXTENSIONS, type CreateImageBody } from '../schemas/image.ts';
import { debitSyncGeneration } from './credits.ts';
import { renderOrRefund, stillWanted, wantsS3 } from './generate.ts';
import { checkStoredData } from './definition-check.ts';
import type { FileStore } from './files.ts';
import { requireS3Integration, type S3IntegrationRow } from './integrations.ts';
import { s3Location, type S3Storage } from './s3.ts';
import { resolveImages, type ImageResolver } from './image-sources.ts';
import { definitionFor, getTemplate } from './templates.ts';

export interface ImageDeps {
  db: Db;
  pool: RenderPool;
  files: FileStore;
  s3: S3Storage;
  log: Logger;
  /** PLATEN_MAX_IMAGE_OUTPUT_PIXELS. */
  maxPixels: number;
  /** Fetches URL and asset images before the render (absent: the engine refuses such sources). */
  images?: ImageResolver;
}

/** What an image generation gives back; `renderMs`: its time in the render pool. */
export type ImageResult = (
  | { kind: 'binary'; image: Buffer; contentType: string; creditsRemaining: number }
  | { kind: 'url'; url: string; filename: string; creditsRemaining: number; expiresIn: number }
  | { kind: 's3'; bucket: string; key: string; filename: string; creditsRemaining: number }
) & { renderMs: number; warnings: RenderWarning[]; width: number; height: number; page: number; pages: number };

/** The media type of an image format. */
export function imageContentType(format: ImageTask['format']): string {
  return format === 'jpeg' ? 'image/jpeg' : 'image/png';
}

/**
 * 400 VALIDATION_ERROR naming `scale` when a page of `size` pixels (a page at `scale`: every page
 * has the template's page size, so this is known up front, CheckTask.imageScale) has more than
 * `maxPixels` pixels.
 */
export function checkImageSize(size: { width: number; height: number }, scale: number, maxPixels: number): void {
  if (size.width * size.height > maxPixels) {
    const fits = Math.sqrt(maxPixels / ((size.width * size.height) / (scale * scale)));
    throw validationError([
      {
        path: 'scale',
        message: `the image would be ${size.width} x ${size.height} pixels, more than the ${maxPixels.toLocaleString('en')} allowed (PLATEN_MAX_IMAGE_OUTPUT_PIXELS); use a scale of at most ${Math.floor(fits * 100) / 100}`,
      },
    ]);
  }
}

/**
 * A render failure that is the request's fault rather than the render's: a page past the last
 * one. @returns the 400 to answer (the credit already refunded), or the error unchanged.
 */
export function pageError(e: unknown, refunded: boolean): unknown {
  if (e instanceof ApiError && (e.extra.render_error as { code?: string } | undefined)?.code === 'PAGE_OUT_OF_RANGE') {
    const message = (e.extra.render_error as { message: string }).message.replace(/^page: /, '');
    return validationError([{ path: 'page', message: refunded ? `${message}; the credit was refunded` : message }]);
  }
  return e;
}

/**
 * Everything that can refuse an image request without costing a credit: the template (of either
 * type), its version, the data's shape, the image's size, the S3 integration when it goes to S3.
 * @returns the definition to render and the S3 integration (or null).
 */
export async function checkImageRequest(
  deps: Pick<ImageDeps, 'db' | 'pool'>,
  teamId: string,
  req: Pick<CreateImageBody, 'template_id' | 'version' | 'data' | 'scale' | 'store_s3' | 'export_type'>,
  maxPixels: number,
): Promise<{ definition: string; integration: S3IntegrationRow | null }> {
  const template = await getTemplate(deps.db, teamId, req.template_id);
  const definition = await definitionFor(deps.db, template, req.version);
  const found = await checkStoredData(deps.pool, teamId, definition, req.data, req.template_id, { imageScale: req.scale });
  if (found.imageSize) checkImageSize(found.imageSize, req.scale, maxPixels);
  return { definition, integration: wantsS3(req) ? await requireS3Integration(deps.db, teamId) : null };
}

/** POST /v1/image/create (`gone`: as generateSync's). @throws ApiError as POST /v1/pdf/create, and 400 VALIDATION_ERROR for `scale` (too many pixels) or `page` (past the last page). */
export async function generateImage(deps: ImageDeps, teamId: string, req: CreateImageBody, gone?: AbortSignal): Promise<ImageResult> {
  const { definition, integration } = await checkImageRequest(deps, teamId, req, deps.maxPixels);
  const filename = `${req.filename}.${IMAGE_EXTENSIONS[req.format]}`;
  const contentType = imageContentType(req.format);
  const loc = integration ? s3Location(integration, filename, { bucket: req.s3_bucket, prefix: req.s3_filepath }) : undefined;
  // URL and asset images are fetched before the debit: a source that cannot be had costs nothing.
  const images = await resolveImages(deps.images, teamId, definition, req.data);
  const { balance, pendingId } = await debitSyncGeneration(deps.db, teamId);
  const image: ImageTask = { format: req.format, scale: req.scale, page: req.page, maxPixels: deps.maxPixels };
  try {
    return await renderOrRefund(
      deps.db,
      teamId,
      pendingId,
      async (): Promise<ImageResult> => {
        const out = await deps.pool.render(definition, req.data, { team: teamId, image, images });
        const common = { renderMs: out.ms, warnings: out.warnings, width: out.image?.width ?? 0, height: out.image?.height ?? 0, page: req.page, pages: out.pages };
        if (out.warnings.length > 0) deps.log.warn({ template: req.template_id, warnings: out.warnings.length }, 'rendered with warnings');
        stillWanted(gone);
        if (req.export_type === 'binary') return { kind: 'binary', image: out.pdf, contentType, creditsRemaining: balance, ...common };
        if (integration && loc) {
          await deps.s3.upload(integration, loc, out.pdf, contentType);
          return { kind: 's3', bucket: loc.bucket, key: loc.key, filename, creditsRemaining: balance, ...common };
        }
        const stored = await deps.files.save(teamId, filename, out.pdf, req.expiration);
        return { kind: 'url', url: stored.url, filename, creditsRemaining: balance, expiresIn: req.expiration, ...common };
      },
      loc,
    );
  } catch (e) {
    throw pageError(e, true);
  }
}
