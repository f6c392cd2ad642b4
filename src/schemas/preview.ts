/** Request and response schemas of template previews (POST /v1/templates/preview). */
import { z } from '@hono/zod-openapi';
import { jsonObject } from './common.ts';
import { renderWarning } from './pdf.ts';
import { definitionSchema } from './templates.ts';

/**
 * A preview request: a definition to try, or a stored template (its draft, or a version); the
 * data; the output. Exactly one of `definition` and `template_id`; `version` only with
 * `template_id`; `format` "png" and `page` are refused for now (PNG previews come later).
 */
export const previewBody = z
  .object({
    definition: definitionSchema.optional(),
    template_id: z.string().length(12, 'must be a 12-character template id').optional().openapi({ example: 'Xy12Ab34Cd56', description: 'a stored template of your team, instead of `definition`' }),
    version: z.string().min(1).max(50).optional().openapi({ description: 'with template_id: a version number (as a string) or a tag; default: the draft' }),
    data: jsonObject.optional().openapi({ description: 'the data to fill the template with; default {}', example: { customer: { name: 'Ada' } } }),
    format: z.enum(['pdf', 'png']).default('pdf').openapi({ description: '"pdf"; "png" is not available yet (400 VALIDATION_ERROR, path `format`)' }),
    page: z.number().int().min(1).optional().openapi({ description: 'for PNG previews (not available yet): a PDF preview holds every page' }),
    export_type: z.enum(['binary', 'json']).default('binary').openapi({
      description: '"binary": the PDF bytes; "json": `{pdf (base64), pages, warnings, fields, render_ms}`',
    }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.definition === undefined && b.template_id === undefined) ctx.addIssue({ code: 'custom', path: ['definition'], message: 'give a definition or a template_id' });
    if (b.definition !== undefined && b.template_id !== undefined) ctx.addIssue({ code: 'custom', path: ['template_id'], message: 'give a definition or a template_id, not both' });
    if (b.version !== undefined && b.template_id === undefined) ctx.addIssue({ code: 'custom', path: ['version'], message: 'a version selects a stored template: give template_id too' });
    if (b.format === 'png') ctx.addIssue({ code: 'custom', path: ['format'], message: 'PNG previews are not available yet; use "pdf"' });
    if (b.page !== undefined) ctx.addIssue({ code: 'custom', path: ['page'], message: 'page selects the page of a PNG preview (not available yet); a PDF preview holds every page' });
  })
  .openapi('TemplatePreviewRequest', {
    example: { definition: { content: [{ text: 'Hello {{name}}', fontSize: 14 }] }, data: { name: 'Ada' }, export_type: 'json' },
  });

export type PreviewBody = z.infer<typeof previewBody>;

export const previewJson = z
  .object({
    pdf: z.string().openapi({ description: 'the PDF, base64' }),
    pages: z.number().int().openapi({ example: 1 }),
    warnings: z.array(renderWarning).openapi({ description: 'what was drawn imperfectly: missing data, characters no font has, images scaled to fit' }),
    fields: z.array(z.object({ name: z.string().openapi({ example: 'items[].qty' }), type: z.string().openapi({ example: 'number' }) })).openapi({ description: 'the data fields the template reads' }),
    render_ms: z.number().openapi({ description: 'milliseconds in the render pool' }),
  })
  .openapi('TemplatePreview', {
    example: { pdf: 'JVBERi0xLjcK...', pages: 1, warnings: [], fields: [{ name: 'name', type: 'string' }], render_ms: 6.2 },
  });
