/**
 * Idempotency-Key on POST /v1/pdf/create-async: a client that sends a request again after losing
 * the answer (a timeout, a dropped connection) gets the job the first request made, and pays once.
 *
 * The key is stored with the job, unique within the team, with a keyed hash of the request body;
 * the job's insert and its credit are one transaction, so of two requests with one key (retries
 * sent at once, or to two nodes) one writes the job and the other finds it. A key is remembered as
 * long as its job is kept (PLATEN_JOB_RETENTION_DAYS).
 */
import { createHmac } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { ApiError, validationError } from '../errors.ts';
import type { JobView } from './jobs.ts';

/** The header, as clients write it. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The headers schema of a route that takes the key: 1-255 visible ASCII characters. */
export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters (a UUID is a good choice)')
    .optional()
    .openapi({
      description:
        'Makes the request safe to send again: a request with a key the team used before gets the job that key made (and `Idempotent-Replayed: true`), without a second credit. The same key with a different body is refused (422 IDEMPOTENCY_KEY_REUSED). Keys are kept as long as their jobs.',
      example: '5d0b8d0c-3f4e-4b8a-9a53-4ad2f1a0c9b1',
    }),
});

/** A request's key and its body's hash, ready to store with the job. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

/**
 * The key of a request and the hash of its body (`body` as validated), or undefined without a key.
 * The hash is an HMAC under the server's secret: the body may hold a webhook secret or a PDF
 * password, which a plain hash stored beside the job would let a reader of the database guess at.
 */
export function idempotencyOf(key: string | undefined, body: unknown, secret: string): Idempotency | undefined {
  if (key === undefined) return undefined;
  const requestHash = createHmac('sha256', secret).update('platen idempotency\0').update(JSON.stringify(body)).digest('hex');
  return { key, requestHash };
}

/**
 * `job` when the request that made it had this very body; it is what a repeated request answers.
 * @throws ApiError 422 IDEMPOTENCY_KEY_REUSED when the body differs.
 */
export function replayedJob(job: JobView, idempotency: Idempotency): JobView {
  if (job.requestHash !== idempotency.requestHash) {
    throw new ApiError(
      422,
      'IDEMPOTENCY_KEY_REUSED',
      `${IDEMPOTENCY_HEADER} "${idempotency.key}" was first sent with a different request body (job ${job.id}): send a new key for a new request`,
      { job_id: job.id },
    );
  }
  return job;
}

/**
 * Synchronous creates render on every request, so a key there would promise what is not done:
 * it is refused rather than ignored.
 * @throws ApiError 400 VALIDATION_ERROR at path "idempotency-key" when `key` is given.
 */
export function refuseIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  throw validationError([
    {
      path: 'idempotency-key',
      message: `is taken by POST /v1/pdf/create-async only: a synchronous create renders (and takes a credit) on every request; queue the job with ${IDEMPOTENCY_HEADER} to make retries safe`,
    },
  ]);
}
