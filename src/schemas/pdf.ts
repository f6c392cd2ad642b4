/** Request and response schemas of PDF generation (spec §2.1, §2.3). */
import { z } from '@hono/zod-openapi';
import { fileStem, jsonObject } from './common.ts';
import { s3BucketName, s3KeyPrefix } from './integrations.ts';

import { passwordFault, PDF_VARIANTS, PERMISSIONS, RENDER_WARNING_CODES, type PdfUaFault, type Permission, type Protection } from '../../engine/index.ts';
import { validationError } from '../errors.ts';

/** A PDF password: 1-128 characters the encryption's preparation (SASLprep) accepts. */
const pdfPassword = z
  .string()
  .min(1)
  .max(128)
  .superRefine((value, ctx) => {
    const fault = passwordFault(value);
    if (fault) ctx.addIssue({ code: 'custom', message: `the password ${fault}` });
  });

/** §2.1: every field rule, checked before anything else happens. */
export const createPdfBody = z
  .object({
    template_id: z.string().length(12, 'must be a 12-character template id').openapi({ example: 'Xy12Ab34Cd56' }),
    data: jsonObject.openapi({ description: 'key-value pairs merged into the template', example: { customer: { name: 'Ada' } } }),
    export_type: z.enum(['url', 'binary']).default('url'),
    expiration: z.number().int('must be a whole number of seconds').min(60).max(604800).default(86400).openapi({ description: 'seconds the URL stays valid (url export only)' }),
    filename: fileStem()
      .refine((f) => !/\.pdf$/i.test(f), 'leave out the .pdf extension; it is added')
      .default('document'),
    store_s3: z.boolean().default(false).openapi({ description: "upload to the team's S3 integration (POST /v1/integrations/s3) instead of the CDN" }),
    s3_filepath: s3KeyPrefix.optional().openapi({ description: "store_s3: key prefix instead of the integration's default_prefix", example: 'invoices/2025/' }),
    s3_bucket: s3BucketName.optional().openapi({ description: "store_s3: this bucket instead of the integration's" }),
    pdf_variant: z.enum(PDF_VARIANTS).optional(),
    pdf_ua: z
      .boolean()
      .optional()
      .openapi({ description: "claim and meet PDF/UA-1 (accessible PDF): tagged, titled, every image and code with alt text; default: the template's pdfUa, else false; not with pdf_variant pdf/a-1b" }),
    version: z.string().min(1).max(50).optional().openapi({ description: 'a version number (as a string) or a tag; default: the draft' }),
    password: pdfPassword.optional().openapi({ description: 'encrypt the PDF (AES-256): readers ask for this password to open it; not with pdf_variant. 1-128 characters that SASLprep (RFC 4013) accepts: no control characters, emoji, or right-to-left letters mixed with left-to-right ones' }),
    owner_password: pdfPassword
      .optional()
      .openapi({ description: 'encrypt the PDF: this password lifts the restrictions of `permissions`; default: a random one nobody knows; not with pdf_variant' }),
    permissions: z
      .array(z.enum(PERMISSIONS as [Permission, ...Permission[]]))
      .max(4)
      .refine((p) => new Set(p).size === p.length, 'each permission at most once')
      .optional()
      .openapi({ description: 'encrypt the PDF and allow only these without the owner password: "print", "copy", "modify", "annotate" ([] allows none); default: all; not with pdf_variant', example: ['print'] }),
  })
  .strict()
  .openapi('CreatePdfRequest');

/**
 * The output protection of a request, or undefined without `password`, `owner_password` and
 * `permissions`. PDF/A forbids encryption: with `pdf_variant` it is 400 VALIDATION_ERROR naming
 * the first protection field.
 * @throws ApiError VALIDATION_ERROR
 */
export function protectionOf(req: Pick<CreatePdfBody, 'password' | 'owner_password' | 'permissions' | 'pdf_variant'>): Protection | undefined {
  const field = req.password !== undefined ? 'password' : req.owner_password !== undefined ? 'owner_password' : req.permissions !== undefined ? 'permissions' : null;
  if (field === null) return undefined;
  if (req.pdf_variant) throw validationError([{ path: field, message: `a protected (encrypted) PDF cannot be ${req.pdf_variant}: PDF/A forbids encryption; leave out pdf_variant or the protection fields` }]);
  return { userPassword: req.password, ownerPassword: req.owner_password, permissions: req.permissions };
}

export type CreatePdfBody = z.infer<typeof createPdfBody>;

/**
 * Refuse what PDF/UA cannot make (§7: before any credit), given what the definition check found
 * (CheckTask `pdfUa`: whether PDF/UA applies, by the request's `pdf_ua`, else the template's
 * `pdfUa`, and the template's faults for it).
 * @throws ApiError VALIDATION_ERROR: path `pdf_ua` with pdf_variant "pdf/a-1b" (PDF/UA-1 needs
 *   what PDF/A-1, PDF 1.4, cannot have); else one error per template path the template lacks
 *   (`metadata.title`, `metadata.language`, `content[2].alt` of an image or code without alt).
 */
export function refusePdfUaFaults(found: { applies: boolean; faults: readonly PdfUaFault[] } | null, req: Pick<CreatePdfBody, 'pdf_variant'>): void {
  if (!found?.applies) return;
  if (req.pdf_variant === 'pdf/a-1b') {
    throw validationError([{ path: 'pdf_ua', message: 'PDF/UA-1 cannot be combined with pdf/a-1b (PDF/A-1 is based on PDF 1.4); use pdf/a-2b or pdf/a-3b, or leave out pdf_ua' }]);
  }
  if (found.faults.length > 0) throw validationError(found.faults.map((f) => ({ path: f.path, message: f.message })));
}

/**
 * The definition to render (and store with a job) with the request's `pdf_ua` in it, replacing
 * the template's `pdfUa`; unchanged without `pdf_ua`. The key is added at the end of the JSON
 * text, where it wins over one the definition has (JSON.parse keeps a key's last value): a 10 MB
 * definition is neither parsed nor written again on the HTTP thread.
 */
export function withPdfUa(definitionJson: string, pdfUa: boolean | undefined): string {
  if (pdfUa === undefined) return definitionJson;
  const text = definitionJson.trimEnd();
  const end = text.length - 1;
  if (text[end] !== '}') throw new Error('a template definition is a JSON object');
  const empty = /^\{\s*$/.test(text.slice(0, end));
  return `${text.slice(0, end)}${empty ? '' : ','}"pdfUa":${pdfUa}}`;
}

/** A render warning: something drawn imperfectly without failing. */
export const renderWarning = z
  .object({
    code: z.string().openapi({ example: 'DATA_MISSING', description: RENDER_WARNING_CODES.join(', ') }),
    message: z.string().openapi({ example: 'no data at "customer.vat_id"' }),
    path: z.string().openapi({ example: 'content[3].text', description: 'the template path of the node or placeholder' }),
  })
  .openapi('RenderWarning');

const warnings = z.array(renderWarning).openapi({ description: 'what was drawn imperfectly (missing data, characters no font has, images scaled to fit); empty when none' });

export const urlResult = z
  .object({
    url: z.string().url(),
    filename: z.string().openapi({ example: 'document.pdf' }),
    credits_remaining: z.number().int(),
    expires_in: z.number().int(),
    warnings,
  })
  .openapi('PdfUrlResult');

export const s3Result = z
  .object({
    s3_bucket: z.string().openapi({ example: 'acme-invoices' }),
    s3_key: z.string().openapi({ example: 'invoices/2025/inv-1.pdf' }),
    filename: z.string().openapi({ example: 'inv-1.pdf' }),
    credits_remaining: z.number().int(),
    warnings,
  })
  .openapi('PdfS3Result');
