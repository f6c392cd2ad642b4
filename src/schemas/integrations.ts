/**
 * Schemas of the S3 integration (spec §4.5; DESIGN §4): one per team. The secret access key goes
 * in and never comes out: responses carry `secret_access_key_set` only.
 */
import { z } from '@hono/zod-openapi';

/**
 * An S3 bucket name (spec §2.1 s3_bucket, §8): 3-63 characters of a-z, 0-9, "." and "-", starting
 * and ending with a letter or digit, no "..", not shaped like an IP address.
 */
export const s3BucketName = z
  .string()
  .min(3)
  .max(63)
  .regex(/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/, 'must be a lowercase bucket name (a-z, 0-9, "." and "-")')
  .refine((b) => !b.includes('..'), 'must not contain ".."')
  .refine((b) => !/^\d+\.\d+\.\d+\.\d+$/.test(b), 'must not be shaped like an IP address');

/**
 * A key prefix inside a bucket (s3_filepath, default_prefix): at most 500 characters, relative to
 * the bucket (no leading "/" or "\\"), without "." or ".." segments (split on "/" and "\\") and
 * without control characters. Empty and repeated slashes are allowed: the key joins the non-empty
 * segments with single slashes.
 */
export const s3KeyPrefix = z
  .string()
  .max(500)
  .refine((p) => !/[\x00-\x1f\x7f]/.test(p), 'must not contain control characters')
  .refine((p) => !/^[\/\\]/.test(p), 'must not start with a slash: a prefix is relative to the bucket, such as "invoices/2025/"')
  .refine((p) => !p.split(/[\/\\]/).some((seg) => seg === '.' || seg === '..'), 'must not contain "." or ".." segments');

/** An AWS region name such as us-east-1, eu-central-1, us-gov-west-1 or cn-north-1. */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/** Why `endpoint` is not the base URL of an S3 service, or null. */
export function endpointShapeProblem(endpoint: string): string | null {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return 'must be an absolute http(s) URL such as https://<account>.r2.cloudflarestorage.com or http://minio.internal:9000';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be an http(s) URL';
  if (u.username || u.password) return 'must not contain credentials (use access_key_id and secret_access_key)';
  if (u.pathname !== '/' || u.search || u.hash) return 'must be the base URL of the service without a path or query (the bucket goes in "bucket")';
  return null;
}

const printable = /^[\x21-\x7e]+$/;

export const s3IntegrationBody = z
  .object({
    bucket: s3BucketName.openapi({ example: 'acme-invoices' }),
    region: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "-" and "_" only')
      .default('us-east-1')
      .openapi({ description: 'signing region; "auto" for Cloudflare R2; with no endpoint, an AWS region', example: 'eu-central-1' }),
    access_key_id: z.string().min(1).max(256).regex(printable, 'must be printable ASCII without spaces').openapi({ example: 'AKIAIOSFODNN7EXAMPLE' }),
    secret_access_key: z.string().min(1).max(256).regex(printable, 'must be printable ASCII without spaces').openapi({ description: 'stored encrypted; never returned' }),
    endpoint: z
      .string()
      .min(1)
      .max(2048)
      .superRefine((e, ctx) => {
        const problem = endpointShapeProblem(e);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional()
      .openapi({ description: 'base URL of an S3-compatible store (MinIO, R2, Ceph); path-style addressing. Leave out for AWS S3', example: 'https://minio.example.com:9000' }),
    default_prefix: s3KeyPrefix
      .default('')
      .openapi({ description: 'key prefix used when a request gives no s3_filepath', example: 'invoices/' }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.endpoint === undefined && !AWS_REGION.test(b.region)) {
      ctx.addIssue({
        code: 'custom',
        path: ['region'],
        message: 'without an endpoint the store is AWS S3, so region must be an AWS region such as eu-central-1; for R2, MinIO and other stores set endpoint',
      });
    }
  })
  .openapi('S3IntegrationRequest');

export type S3IntegrationBody = z.infer<typeof s3IntegrationBody>;

export const s3IntegrationJson = z
  .object({
    bucket: z.string(),
    region: z.string(),
    access_key_id: z.string(),
    secret_access_key_set: z.literal(true).openapi({ description: 'the secret is stored (encrypted); it is never returned' }),
    endpoint: z.string().nullable().openapi({ description: 'null for AWS S3' }),
    path_style: z.boolean().openapi({ description: 'true with an endpoint (path-style URLs), false for AWS S3 (virtual-hosted style)' }),
    default_prefix: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('S3Integration');

export const S3_TEST_STEPS = ['connect', 'write', 'delete'] as const;

export const s3TestResult = z
  .object({
    ok: z.boolean(),
    bucket: z.string(),
    key: z.string().openapi({ description: 'the probe object written and removed' }),
    step: z.enum(S3_TEST_STEPS).optional().openapi({ description: 'the step that failed (only when ok is false)' }),
    error: z.string().optional().openapi({ description: 'what the store said (only when ok is false)' }),
    steps: z.array(
      z.object({
        step: z.enum(S3_TEST_STEPS),
        ok: z.boolean(),
        ms: z.number().int(),
        note: z.string().optional(),
        error: z.string().optional(),
      }),
    ),
  })
  .openapi('S3IntegrationTest');
