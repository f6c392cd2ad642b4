/** Request and response schemas of template previews (POST /v1/templates/preview). */
import { z } from '@hono/zod-openapi';
import { jsonObject } from './common.ts';
import { imagePage, imageScale } from './image.ts';
import { renderWarning } from './pdf.ts';
import { definitionSchema } from './templates.ts';

/**
 * A preview request: a definition to try, or a stored template (its draft, or a version); the
 * data; the output. Exactly one of `definition` and `template_id`; `version` only with
 * `template_id`; `page` and `scale` only with `format` "png".
 */
export const previewBody = z
  .object({
    definition: definitionSchema.optional(),
    template_id: z.string().length(12, 'must be a 12-character template id').optional().openapi({ example: 'Xy12Ab34Cd56', description: 'a stored template of your team, instead of `definition`' }),
    version: z.string().min(1).max(50).optional().openapi({ description: 'with template_id: a version number (as a string) or a tag; default: the draft' }),
    data: jsonObject.optional().openapi({ description: 'the data to fill the template with; default {}', example: { customer: { name: 'Ada' } } }),
    format: z.enum(['pdf', 'png']).default('pdf').openapi({ description: '"pdf": every page as a PDF; "png": one page (`page`) as a PNG image, painted from the same layout' }),
    page: imagePage.optional().openapi({ description: 'with "png": the page to paint, from 1 (default 1); past the last page is 400 naming `page`' }),
    scale: imageScale.optional().openapi({ description: 'with "png": pixels per point, 0.25 to 8 (default 2)' }),
    export_type: z.enum(['binary', 'json']).default('binary').openapi({
      description: '"binary": the PDF (or PNG) bytes; "json": `{pdf or png (base64), pages, warnings, fields, render_ms}`, with "png" also `page`, `width`, `height`',
    }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.definition === undefined && b.template_id === undefined) ctx.addIssue({ code: 'custom', path: ['definition'], message: 'give a definition or a template_id' });
    if (b.definition !== undefined && b.template_id !== undefined) ctx.addIssue({ code: 'custom', path: ['template_id'], message: 'give a definition or a template_id, not both' });
    if (b.version !== undefined && b.template_id === undefined) ctx.addIssue({ code: 'custom', path: ['version'], message: 'a version selects a stored template: give template_id too' });
    if (b.format === 'pdf' && b.page !== undefined) ctx.addIssue({ code: 'custom', path: ['page'], message: 'page selects the page of a PNG preview ("format": "png"); a PDF preview holds every page' });
    if (b.format === 'pdf' && b.scale !== undefined) ctx.addIssue({ code: 'custom', path: ['scale'], message: 'scale is for PNG previews ("format": "png")' });
  })
  .openapi('TemplatePreviewRequest', {
    example: { definition: { content: [{ text: 'Hello {{name}}', fontSize: 14 }] }, data: { name: 'Ada' }, export_type: 'json' },
  });

export type PreviewBody = z.infer<typeof previewBody>;

export const previewJson = z
  .object({
    pdf: z.string().optional().openapi({ description: '"pdf": the PDF, base64' }),
    png: z.string().optional().openapi({ description: '"png": the PNG image of the page, base64' }),
    page: z.number().int().optional().openapi({ description: '"png": the page painted', example: 1 }),
    width: z.number().int().optional().openapi({ description: '"png": pixels', example: 1191 }),
    height: z.number().int().optional().openapi({ description: '"png": pixels', example: 1684 }),
    pages: z.number().int().openapi({ example: 1 }),
    warnings: z.array(renderWarning).openapi({ description: 'what was drawn imperfectly: missing data, characters no font has, images scaled to fit' }),
    fields: z.array(z.object({ name: z.string().openapi({ example: 'items[].qty' }), type: z.string().openapi({ example: 'number' }) })).openapi({ description: 'the data fields the template reads' }),
    render_ms: z.number().openapi({ description: 'milliseconds in the render pool' }),
  })
  .openapi('TemplatePreview', {
    example: { pdf: 'JVBERi0xLjcK...', pages: 1, warnings: [], fields: [{ name: 'name', type: 'string' }], render_ms: 6.2 },
  });
