/**
 * Template previews: a definition (or a stored template) rendered with data, stamped "PREVIEW" on
 * every page, without a credit and without storing anything: the PDF, or one page as a PNG. Validation answers exactly as
 * POST /v1/templates does (400 VALIDATION_ERROR, paths `definition.<path>`).
 */
import type { Db } from '../../db/database.ts';
import { DEFAULT_MAX_IMAGE_PIXELS, type TemplateField, type RenderWarning } from '../../engine/index.ts';
import { ApiError, validationError } from '../errors.ts';
import { checkDefinition, noLongerValid, type DefinitionCheck } from './definition-check.ts';
import { RenderFailure, type ImageTask, type RenderPool } from '../render/pool.ts';
import { checkImageSize, pageError } from './image.ts';
import type { PreviewBody } from '../schemas/preview.ts';
import { DEFAULT_MAX_TEMPLATE_NODES } from '../config.ts';
import { checkDefinitionSize, definitionFaults, definitionFor, getTemplate } from './templates.ts';
import { resolveImages, type ImageResolver } from './image-sources.ts';

/** The mark drawn across every page of a preview. */
export const PREVIEW_MARK = 'PREVIEW';

export interface PreviewResult {
  /** The PDF, or with format "png" the PNG of the page. */
  pdf: Buffer;
  /** With format "png": the page painted and the image's pixel size. */
  image?: { page: number; width: number; height: number };
  pages: number;
  warnings: RenderWarning[];
  /** The data fields the definition reads. */
  fields: TemplateField[];
  /** Milliseconds in the render pool. */
  renderMs: number;
}

/**
 * Check the definition to preview (its JSON text) and the data against it (on a render thread
 * when the definition is large: services/definition-check.ts).
 * @throws ApiError 400 VALIDATION_ERROR with `definition.<path>` for every fault of an inline
 *   definition (as POST /v1/templates answers), `definition` past `maxNodes` objects and arrays;
 *   `template_id` for a stored definition that no longer validates; `data.<path>` for data of the
 *   wrong shape, as POST /v1/pdf/create answers.
 * @returns what the check found: the data fields the definition reads, and with `imageScale` a page's pixel size.
 */
async function checkedPreview(pool: RenderPool, teamId: string, definitionJson: string, data: unknown, templateId: string | undefined, imageScale: number | undefined): Promise<DefinitionCheck> {
  const found = await checkDefinition(pool, teamId, definitionJson, { data, fields: true, imageScale, definitionField: templateId === undefined ? 'definition' : 'template_id' });
  if (found.definitionErrors) {
    throw templateId === undefined ? definitionFaults(found.definitionErrors) : noLongerValid(templateId, found.definitionErrors);
  }
  if (found.dataFaults) throw validationError(found.dataFaults.map((f) => ({ path: f.path, message: f.message })));
  return found;
}

/**
 * Render a preview for `teamId` on the render pool (in the team's fair share of threads).
 * @throws ApiError 422 IMAGE_FETCH_FAILED (an image URL or asset that cannot be had), 400 VALIDATION_ERROR (definition; data of the wrong shape at `data.<path>`; PNG: `scale` past the
 *   pixel limit, `page` past the last page), 400 BAD_REQUEST (an image template previewed as a PDF),
 *   403/404 (template_id, version), 500 INTERNAL_ERROR with `render_error {code, message, path}`
 *   when rendering fails.
 */
export async function renderPreview(
  deps: { db: Db; pool: RenderPool; maxPixels?: number; images?: ImageResolver; maxTemplateNodes?: number },
  teamId: string,
  req: PreviewBody,
): Promise<PreviewResult> {
  const png = req.format === 'png';
  let definitionJson: string;
  if (req.definition !== undefined) {
    checkDefinitionSize(req.definition, deps.maxTemplateNodes ?? DEFAULT_MAX_TEMPLATE_NODES);
    definitionJson = JSON.stringify(req.definition);
  } else {
    const template = await getTemplate(deps.db, teamId, req.template_id!);
    if (template.type === 'image' && !png) throw new ApiError(400, 'BAD_REQUEST', `template "${template.id}" is an image template; preview it with "format": "png"`);
    definitionJson = await definitionFor(deps.db, template, req.version);
  }
  const data = req.data ?? {};
  const maxPixels = deps.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS;
  const image: ImageTask | undefined = png ? { format: 'png', scale: req.scale ?? 2, page: req.page ?? 1, maxPixels, effort: 'fast' } : undefined;
  const found = await checkedPreview(deps.pool, teamId, definitionJson, data, req.template_id, image?.scale);
  const fields = found.fields ?? [];
  if (image && found.imageSize) checkImageSize(found.imageSize, image.scale, maxPixels);
  // URL and asset images, as a generation fetches them (422 IMAGE_FETCH_FAILED when one cannot be had).
  const images = await resolveImages(deps.images, teamId, definitionJson, data);
  try {
    const result = await deps.pool.render(definitionJson, data, { team: teamId, watermark: PREVIEW_MARK, image, images });
    const painted = image && result.image ? { page: image.page, width: result.image.width, height: result.image.height } : undefined;
    return { pdf: result.pdf, image: painted, pages: result.pages, warnings: result.warnings, fields, renderMs: result.ms };
  } catch (e) {
    if (!(e instanceof RenderFailure)) throw e;
    const message = e.message.replace(/[.\s]+$/, '');
    throw pageError(new ApiError(500, 'INTERNAL_ERROR', `rendering failed: ${message}`, { render_error: { code: e.code, message, path: e.path ?? null } }), false);
  }
}
