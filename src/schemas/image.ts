/** Request and response schemas of image generation (POST /v1/image/create). */
import { z } from '@hono/zod-openapi';
import { fileStem } from './common.ts';
import { createPdfBody, renderWarning } from './pdf.ts';

/** Output formats of image generation. */
export const IMAGE_FORMATS = ['png', 'jpeg'] as const;

/** The file extension of each format. */
export const IMAGE_EXTENSIONS: Record<(typeof IMAGE_FORMATS)[number], string> = { png: 'png', jpeg: 'jpg' };

/** Pixels per point: 1 is 72 dpi. */
export const imageScale = z.number().min(0.25, 'must be at least 0.25').max(8, 'must be at most 8').openapi({
  description: 'pixels per point: 1 = 72 dpi, 2 = 144 dpi (default), 4.1667 = 300 dpi; 0.25 to 8. The image must stay within PLATEN_MAX_IMAGE_OUTPUT_PIXELS',
  example: 2,
});

/** The page to paint, from 1. */
export const imagePage = z.number().int('must be a whole page number').min(1).max(1_000_000).openapi({ description: 'the page to paint, from 1 (default 1); past the last page is 400 VALIDATION_ERROR naming `page`', example: 1 });

/** The fields of POST /v1/pdf/create but the PDF's own (pdf_variant, protection), plus the picture's. */
export const createImageBody = createPdfBody
  .pick({ template_id: true, data: true, export_type: true, expiration: true, store_s3: true, s3_filepath: true, s3_bucket: true, version: true })
  .extend({
    format: z.enum(IMAGE_FORMATS).default('png').openapi({ description: '"png" (default) or "jpeg" (quality 90, no transparency)' }),
    scale: imageScale.default(2),
    page: imagePage.default(1),
    filename: fileStem()
      .refine((f) => !/\.(png|jpe?g)$/i.test(f), 'leave out the extension; .png or .jpg is added')
      .default('image')
      .openapi({ description: 'file name without extension (.png or .jpg is added); default "image"' }),
  })
  .strict()
  .openapi('CreateImageRequest', {
    example: { template_id: 'Xy12Ab34Cd56', data: { customer: { name: 'Ada' } }, format: 'png', scale: 2, page: 1, export_type: 'url' },
  });

export type CreateImageBody = z.infer<typeof createImageBody>;

const warnings = z.array(renderWarning).openapi({ description: 'what was drawn imperfectly (missing data, characters no font has, images scaled to fit); empty when none' });

export const imageUrlResult = z
  .object({
    url: z.string().url(),
    filename: z.string().openapi({ example: 'image.png' }),
    credits_remaining: z.number().int(),
    expires_in: z.number().int(),
    width: z.number().int().openapi({ description: 'pixels', example: 1191 }),
    height: z.number().int().openapi({ description: 'pixels', example: 1684 }),
    page: z.number().int().openapi({ description: 'the page painted', example: 1 }),
    pages: z.number().int().openapi({ description: 'pages of the document', example: 1 }),
    warnings,
  })
  .openapi('ImageUrlResult');

export const imageS3Result = z
  .object({
    s3_bucket: z.string().openapi({ example: 'acme-images' }),
    s3_key: z.string().openapi({ example: 'labels/label-1.png' }),
    filename: z.string().openapi({ example: 'label-1.png' }),
    credits_remaining: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
    warnings,
  })
  .openapi('ImageS3Result');
