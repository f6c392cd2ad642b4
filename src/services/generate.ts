/**
 * Synchronous generation (spec §4.1): template lookup, one credit taken, render on the worker
 * pool, the credit refunded if anything after the debit fails, then the PDF as bytes, a signed URL
 * or an object in the team's S3 bucket (spec §2.3). The debit is noted as pending until the
 * request settles, so a process that dies mid-render has it refunded at the next start.
 */
import type { Db } from '../../db/database.ts';
import type { Logger } from '../logger.ts';
import type { RenderWarning } from '../../engine/index.ts';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, validationError } from '../errors.ts';
import { checkStoredData } from './definition-check.ts';
import { RenderFailure, type RenderPool } from '../render/pool.ts';
import { protectionOf, refusePdfUaFaults, withPdfUa, type CreatePdfBody } from '../schemas/pdf.ts';
import { debitSyncGeneration, refundSyncGeneration, settleSyncGeneration } from './credits.ts';
import type { FileStore } from './files.ts';
import { requireS3Integration, type S3IntegrationRow } from './integrations.ts';
import { S3Failure, s3Location, type S3Storage } from './s3.ts';
import { StorageFailure } from '../storage/store.ts';
import { definitionFor, getTemplate } from './templates.ts';
import { resolveImages, type ImageResolver } from './image-sources.ts';

export interface GenerateDeps {
  db: Db;
  pool: RenderPool;
  files: FileStore;
  s3: S3Storage;
  log: Logger;
  /** Fetches URL and asset images before the render (absent: the engine refuses such sources). */
  images?: ImageResolver;
}

/** What a synchronous generation gives back; `renderMs`: its time in the render pool (for the request log). */
export type SyncResult = (
  | { kind: 'binary'; pdf: Buffer; creditsRemaining: number }
  | { kind: 'url'; url: string; filename: string; creditsRemaining: number; expiresIn: number }
  | { kind: 's3'; bucket: string; key: string; filename: string; creditsRemaining: number }
) & { renderMs: number; warnings: RenderWarning[] };

/** Whether the request goes to S3: store_s3, except with binary export, which ignores S3 options (§2.3). */
export function wantsS3(req: Pick<CreatePdfBody, 'store_s3' | 'export_type'>): boolean {
  return req.store_s3 && req.export_type === 'url';
}

/** 502 S3_UPLOAD_FAILED for a failed upload whose credit has been given back. */
export function s3UploadFailed(e: S3Failure, bucket: string, key: string): ApiError {
  return new ApiError(502, 'S3_UPLOAD_FAILED', `the upload to bucket "${bucket}" failed: ${e.message.replace(/[.\s]+$/, '')}; the credit was refunded`, { s3_bucket: bucket, s3_key: key });
}

/**
 * Everything that can refuse a request without costing a credit (§5, §7.1).
 * @returns the definition to render, and the S3 integration to upload with when the request goes to S3 (else null).
 */
export async function checkRequest(db: Db, pool: RenderPool, teamId: string, req: CreatePdfBody): Promise<{ definition: string; integration: S3IntegrationRow | null }> {
  const template = await getTemplate(db, teamId, req.template_id);
  if (template.type === 'image') throw new ApiError(400, 'BAD_REQUEST', `template "${template.id}" is an image template; use the image endpoint`);
  const definition = await definitionFor(db, template, req.version);
  const found = await checkStoredData(pool, teamId, definition, req.data, req.template_id, { pdfUa: { requested: req.pdf_ua } });
  refusePdfUaFaults(found.pdfUa, req);
  // pdf_ua goes into the definition rendered (and stored with a job): the template's pdfUa.
  return { definition: withPdfUa(definition, req.pdf_ua), integration: wantsS3(req) ? await requireS3Integration(db, teamId) : null };
}

/**
 * Run a render for a team whose credit is already taken (pending debit `pendingId`): settle the
 * debit when it succeeds; refund it and answer 500 if it fails (§7.1), with the render's code,
 * message and path in `render_error`, 502 S3_UPLOAD_FAILED if the upload to the bucket fails, 503
 * STORAGE_UNAVAILABLE if the file store does not take the file.
 */
export async function renderOrRefund<T>(db: Db, teamId: string, pendingId: number, work: () => Promise<T>, s3?: { bucket: string; key: string }): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (e) {
    await refundSyncGeneration(db, teamId, pendingId);
    if (e instanceof ClientGone) throw new ApiError(499 as ContentfulStatusCode, 'CLIENT_CLOSED_REQUEST', 'the client closed the connection before the document was delivered; the credit was refunded');
    if (e instanceof S3Failure && s3) throw s3UploadFailed(e, s3.bucket, s3.key);
    if (e instanceof StorageFailure) throw new ApiError(503, 'STORAGE_UNAVAILABLE', `${e.message.replace(/[.\s]+$/, '')}; the credit was refunded`);
    if (e instanceof RenderFailure) {
      const message = e.message.replace(/[.\s]+$/, '');
      throw new ApiError(500, 'INTERNAL_ERROR', `rendering failed: ${message}; the credit was refunded`, { render_error: { code: e.code, message, path: e.path ?? null } });
    }
    throw new ApiError(500, 'INTERNAL_ERROR', 'rendering failed; the credit was refunded');
  }
  await settleSyncGeneration(db, pendingId);
  return result;
}

/** The client that asked for a synchronous document closed its connection while it was made. */
export class ClientGone extends Error {}

/**
 * Go on delivering only to a client still there: once its connection is closed (`gone` aborted)
 * nobody will ever see the document, so nothing is stored or uploaded and its credit is given back
 * (renderOrRefund).
 * @throws ClientGone
 */
export function stillWanted(gone: AbortSignal | undefined): void {
  if (gone?.aborted) throw new ClientGone('the client closed the connection');
}

/**
 * POST /v1/pdf/create. `gone`: aborted when the client closes its connection (the request's
 * signal): a document finished after that is not delivered, stored or charged.
 * @throws ApiError per §7.1; 499 CLIENT_CLOSED_REQUEST (which nobody reads) when the client left.
 */
export async function generateSync(deps: GenerateDeps, teamId: string, req: CreatePdfBody, gone?: AbortSignal): Promise<SyncResult> {
  const protection = protectionOf(req);
  const { definition, integration } = await checkRequest(deps.db, deps.pool, teamId, req);
  // URL and asset images are fetched before the debit: a source that cannot be had costs nothing.
  const images = await resolveImages(deps.images, teamId, definition, req.data);
  const filename = `${req.filename}.pdf`;
  const loc = integration ? s3Location(integration, filename, { bucket: req.s3_bucket, prefix: req.s3_filepath }) : undefined;
  // The balance this call's debit left: "after this call" (§2.3), whatever runs concurrently.
  const { balance, pendingId } = await debitSyncGeneration(deps.db, teamId);
  return renderOrRefund(
    deps.db,
    teamId,
    pendingId,
    async (): Promise<SyncResult> => {
      const { pdf, warnings, ms: renderMs } = await deps.pool.render(definition, req.data, { team: teamId, pdfVariant: req.pdf_variant, images, protection });
      if (warnings.length > 0) deps.log.warn({ template: req.template_id, warnings: warnings.length }, 'rendered with warnings');
      stillWanted(gone);
      if (req.export_type === 'binary') return { kind: 'binary', pdf, creditsRemaining: balance, renderMs, warnings };
      if (integration && loc) {
        await deps.s3.upload(integration, loc, pdf);
        return { kind: 's3', bucket: loc.bucket, key: loc.key, filename, creditsRemaining: balance, renderMs, warnings };
      }
      const stored = await deps.files.save(teamId, filename, pdf, req.expiration);
      return { kind: 'url', url: stored.url, filename, creditsRemaining: balance, expiresIn: req.expiration, renderMs, warnings };
    },
    loc,
  );
}
