/** Schemas of queued generation (spec §2.2, §2.4, §2.5, §2.6, §4.4). */
import { z } from '@hono/zod-openapi';
import { pageOf, pageQuery, queryEnum } from './common.ts';
import { imagePage, imageScale } from './image.ts';
import { createPdfBody, renderWarning } from './pdf.ts';

/** What a job makes: a PDF, or one page as an image. */
export const JOB_OUTPUTS = ['pdf', 'png', 'jpeg'] as const;

/** §2.2: the fields of §2.1, export_type "url" only, plus the webhook; `output` for image jobs. */
export const createAsyncBody = createPdfBody
  .extend({
    export_type: z.enum(['url'], { message: 'only "url" is supported for async jobs' }).default('url'),
    webhook_url: z.string().min(1).max(2048).optional().openapi({ description: 'public HTTPS URL notified when the job completes or fails' }),
    webhook_secret: z.string().min(16).max(256).optional().openapi({ description: 'signs webhook payloads with HMAC-SHA256' }),
    output: z.enum(JOB_OUTPUTS).default('pdf').openapi({ description: '"pdf" (default), or one page as an image: "png" or "jpeg" (as POST /v1/image/create; then `scale` and `page` apply)' }),
    scale: imageScale.optional(),
    page: imagePage.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.output === 'pdf') {
      if (b.scale !== undefined) ctx.addIssue({ code: 'custom', path: ['scale'], message: 'scale is for image output: set output to "png" or "jpeg"' });
      if (b.page !== undefined) ctx.addIssue({ code: 'custom', path: ['page'], message: 'page is for image output: set output to "png" or "jpeg" (a PDF holds every page)' });
    } else {
      // The PDF's own options (PDF/A, passwords, tagging) mean nothing to an image.
      for (const key of ['pdf_variant', 'password', 'owner_password', 'permissions', 'pdf_ua']) {
        if ((b as Record<string, unknown>)[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is for PDF output, not "${b.output}"` });
      }
    }
  })
  .openapi('CreatePdfAsyncRequest');

export type CreateAsyncBody = z.infer<typeof createAsyncBody>;

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

export const asyncCreated = z
  .object({
    job_id: z.string().uuid(),
    status: z.enum(JOB_STATUSES).openapi({ description: 'pending for a new job; a repeated request (same Idempotency-Key) gets its job\'s status now' }),
    credits_remaining: z.number().int().openapi({ description: "the team's balance after this request" }),
  })
  .openapi('PdfJobCreated');


/** What a job record says of its webhook notification. */
export const jobWebhook = z
  .object({
    status: z.enum(['pending', 'delivered', 'failed']).openapi({
      description: 'pending: not sent yet (the job has not finished) or being retried; delivered: a receiver answered 2xx; failed: every attempt failed',
    }),
    event: z.enum(['pdf.completed', 'pdf.failed']).nullable().openapi({ description: 'the event sent; null until the job has finished' }),
    attempts: z.number().int().openapi({ description: 'attempts made so far' }),
    last_status_code: z.number().int().nullable().openapi({ description: "the HTTP status of the last attempt's answer; null when none came" }),
    last_error: z.string().nullable().openapi({ description: 'why the last attempt failed (a status that is not 2xx, a timeout, a refused connection); null after a delivery' }),
    next_attempt_at: z.string().nullable().openapi({ description: 'when the next attempt is due while the delivery is retried; null otherwise' }),
  })
  .openapi('PdfJobWebhook');

export const jobRecord = z
  .object({
    id: z.string().uuid(),
    status: z.enum(JOB_STATUSES),
    template_id: z.string(),
    output: z.enum(JOB_OUTPUTS).openapi({ description: 'what the job makes: "pdf", or one page as "png" or "jpeg"' }),
    export_type: z.string(),
    filename: z.string(),
    store_s3: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    result_url: z.string().nullable(),
    result_filename: z.string().nullable(),
    result_expires_at: z.string().nullable(),
    result_s3_bucket: z.string().nullable(),
    result_s3_key: z.string().nullable(),
    error_message: z.string().nullable(),
    error_code: z.string().nullable(),
    warnings: z.array(renderWarning).openapi({ description: "a completed job's render warnings (missing data, characters no font has, images scaled to fit); empty otherwise" }),
    webhook: jobWebhook.nullable().openapi({ description: 'the webhook notification of a job with a webhook_url; null without one' }),
  })
  .openapi('PdfJob');

export const jobListQuery = pageQuery.extend({ status: queryEnum('status', JOB_STATUSES) });

export const jobList = pageOf('jobs', jobRecord, 'newest first', 'PdfJobList');
