/**
 * Synchronous generation (spec §4.1): template lookup, one credit taken, render on the worker
 * pool, the credit refunded if anything after the debit fails, then the PDF as bytes or a signed URL.
 */
import type { Db } from '../../db/open.ts';
import { ApiError } from '../errors.ts';
import { RenderFailure, type RenderPool } from '../render/pool.ts';
import type { CreatePdfBody } from '../schemas/pdf.ts';
import { debitCredit, refundCredit } from './credits.ts';
import type { FileStore } from './files.ts';
import { definitionFor, getTemplate } from './templates.ts';

export interface GenerateDeps {
  db: Db;
  pool: RenderPool;
  files: FileStore;
}

export type SyncResult =
  | { kind: 'binary'; pdf: Buffer; creditsRemaining: number }
  | { kind: 'url'; url: string; filename: string; creditsRemaining: number; expiresIn: number };

/**
 * Everything that can refuse a request without costing a credit (§5, §7.1).
 * @returns the definition to render.
 */
export function checkRequest(db: Db, teamId: string, req: CreatePdfBody): unknown {
  const template = getTemplate(db, teamId, req.template_id);
  if (template.type === 'image') throw new ApiError(400, 'BAD_REQUEST', `template "${template.id}" is an image template; use the image endpoint`);
  const definition = definitionFor(db, template, req.version);
  if (req.store_s3 && req.export_type === 'url') {
    throw new ApiError(400, 'S3_INTEGRATION_MISSING', 'store_s3 needs an S3 integration, and this server does not support S3 integrations yet; leave store_s3 out to get a signed URL');
  }
  return definition;
}

/** Run a render for a team whose credit is already taken; refund and answer 500 if it fails (§7.1). */
async function renderOrRefund<T>(db: Db, teamId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    refundCredit(db, teamId);
    if (e instanceof RenderFailure) {
      throw new ApiError(500, 'INTERNAL_ERROR', `rendering failed: ${e.message}; the credit was refunded`, { render_error: { code: e.code, path: e.path ?? null } });
    }
    throw new ApiError(500, 'INTERNAL_ERROR', 'rendering failed; the credit was refunded');
  }
}

/** POST /v1/pdf/create. @throws ApiError per §7.1. */
export async function generateSync(deps: GenerateDeps, teamId: string, req: CreatePdfBody): Promise<SyncResult> {
  const definition = checkRequest(deps.db, teamId, req);
  // The balance this call's debit left: "after this call" (§2.3), whatever runs concurrently.
  const balance = debitCredit(deps.db, teamId);
  return renderOrRefund(deps.db, teamId, async () => {
    const { pdf } = await deps.pool.render(definition, req.data, { pdfVariant: req.pdf_variant });
    if (req.export_type === 'binary') return { kind: 'binary' as const, pdf, creditsRemaining: balance };
    const filename = `${req.filename}.pdf`;
    const stored = deps.files.save(teamId, filename, pdf, req.expiration);
    return { kind: 'url' as const, url: stored.url, filename, creditsRemaining: balance, expiresIn: req.expiration };
  });
}
