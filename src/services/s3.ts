/**
 * Uploads to the team's own bucket (spec §1, §2.1 store_s3; DESIGN §4) with the `minio` client:
 * AWS S3 (virtual-hosted style) when the integration has no endpoint, path-style addressing on
 * the endpoint of an S3-compatible store (MinIO, R2, Ceph) when it has one.
 *
 * Each operation gets a fresh client and HTTP agent: the secret is decrypted for it alone, the
 * endpoint is checked again (a private address is refused unless PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS:
 * an IP literal before connecting, a host name on every address the socket really connects to, so
 * a DNS answer that changed since the integration was saved cannot reach a private network), and
 * a time limit destroys the agent's sockets. Failures become S3Failure with the store's message
 * and never the secret.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import * as Minio from 'minio';
import type { S3IntegrationRow } from './integrations.ts';
import { literalAddressProblem, publicOnlyLookup, S3_PRIVATE_HINT } from './network.ts';
import type { SecretBox } from './secrets.ts';

/** A storage operation failed; `message` is fit for an API response (no secret in it). */
export class S3Failure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'S3Failure';
  }
}

/**
 * The object key: the prefix's non-empty segments, then `name`, joined by single slashes, so
 * "reports/", "/reports//2025/" and "" all give clean keys (no leading or doubled slash).
 */
export function joinKey(prefix: string, name: string): string {
  return [...prefix.split('/').filter((s) => s !== ''), name].join('/');
}

export interface S3Location {
  bucket: string;
  key: string;
}

/**
 * Where a PDF goes (DESIGN §4): `bucket` over the integration's bucket, `prefix` (s3_filepath, even
 * "") over its default_prefix, then `<filename>.pdf`.
 */
export function s3Location(row: S3IntegrationRow, filename: string, override: { bucket?: string | null; prefix?: string | null } = {}): S3Location {
  return { bucket: override.bucket ?? row.bucket, key: joinKey(override.prefix ?? row.defaultPrefix, filename) };
}

export type S3TestStep = 'connect' | 'write' | 'delete';

export interface S3TestResult {
  ok: boolean;
  bucket: string;
  key: string;
  step?: S3TestStep;
  error?: string;
  steps: { step: S3TestStep; ok: boolean; ms: number; note?: string; error?: string }[];
}

export interface S3StorageOptions {
  /** PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS. */
  allowPrivate: boolean;
  /** Time limit of one storage request (ms). */
  timeoutMs?: number;
}

interface Session {
  client: Minio.Client;
  secret: string;
  agent: http.Agent;
}

export class S3Storage {
  private readonly timeoutMs: number;

  constructor(
    private readonly secrets: SecretBox,
    private readonly opts: S3StorageOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  /** PUT the PDF (or image: `contentType`) at `loc`. @throws S3Failure. */
  async upload(row: S3IntegrationRow, loc: S3Location, pdf: Buffer, contentType = 'application/pdf'): Promise<void> {
    const session = this.open(row);
    try {
      await this.call(session, () => session.client.putObject(loc.bucket, loc.key, pdf, pdf.length, { 'Content-Type': contentType }));
    } finally {
      session.agent.destroy();
    }
  }

  /**
   * POST /v1/integrations/s3/test: reach the bucket (HEAD), write a small probe object under the
   * default prefix, delete it. Stops at the first step that fails and says which.
   */
  async probe(row: S3IntegrationRow): Promise<S3TestResult> {
    const loc = { bucket: row.bucket, key: joinKey(row.defaultPrefix, `.platen-probe-${randomBytes(8).toString('hex')}`) };
    const steps: S3TestResult['steps'] = [];
    const fail = (step: S3TestStep, started: number, e: unknown): S3TestResult => {
      const error = e instanceof S3Failure ? e.message : 'unexpected error';
      steps.push({ step, ok: false, ms: Math.round(performance.now() - started), error });
      return { ok: false, ...loc, step, error, steps };
    };

    let started = performance.now();
    let session: Session;
    try {
      session = this.open(row);
    } catch (e) {
      return fail('connect', started, e);
    }
    try {
      try {
        const exists = await this.call(session, () => session.client.bucketExists(loc.bucket));
        if (!exists) return fail('connect', started, new S3Failure(`bucket "${loc.bucket}" does not exist at this endpoint`));
        steps.push({ step: 'connect', ok: true, ms: Math.round(performance.now() - started) });
      } catch (e) {
        // HEAD bucket needs s3:ListBucket, which uploads do not: a 403 still proves the store answered.
        if (!(e instanceof S3Failure && e.message.startsWith('AccessDenied'))) return fail('connect', started, e);
        steps.push({ step: 'connect', ok: true, ms: Math.round(performance.now() - started), note: `the store answered but refused HEAD bucket (${e.message}); uploads do not need that permission` });
      }

      started = performance.now();
      const body = Buffer.from(`Platen S3 integration test, ${new Date().toISOString()}\n`);
      try {
        await this.call(session, () => session.client.putObject(loc.bucket, loc.key, body, body.length, { 'Content-Type': 'text/plain' }));
        steps.push({ step: 'write', ok: true, ms: Math.round(performance.now() - started) });
      } catch (e) {
        return fail('write', started, e);
      }

      started = performance.now();
      try {
        await this.call(session, () => session.client.removeObject(loc.bucket, loc.key));
        steps.push({ step: 'delete', ok: true, ms: Math.round(performance.now() - started) });
      } catch (e) {
        return fail('delete', started, e instanceof S3Failure ? new S3Failure(`${e.message} (the probe object ${loc.key} was left in the bucket)`) : e);
      }
      return { ok: true, ...loc, steps };
    } finally {
      session.agent.destroy();
    }
  }

  /** Decrypt the secret, check the endpoint, build a client on its own agent. @throws S3Failure. */
  private open(row: S3IntegrationRow): Session {
    let secret: string;
    try {
      secret = this.secrets.open(row.secretAccessKeyEnc);
    } catch {
      throw new S3Failure('the stored secret access key cannot be decrypted (was PLATEN_SECRET changed?); save the integration again with POST /v1/integrations/s3');
    }
    const endpoint = row.endpoint !== null ? new URL(row.endpoint) : null;
    // A host name is checked on every address the socket connects to (the agent's lookup); Node
    // connects to an IP literal without a lookup, so a literal is checked here.
    const problem = endpoint && !this.opts.allowPrivate ? literalAddressProblem(endpoint.hostname) : null;
    if (problem) throw new S3Failure(`the endpoint ${row.endpoint} ${problem} ${S3_PRIVATE_HINT}`);
    const lookup = publicOnlyLookup(this.opts.allowPrivate, 'S3 endpoint') as unknown as LookupFunction;
    const agent = endpoint === null || endpoint.protocol === 'https:' ? new https.Agent({ keepAlive: false, lookup }) : new http.Agent({ keepAlive: false, lookup });
    try {
      return { client: newClient(row, secret, agent), secret, agent };
    } catch (e) {
      agent.destroy();
      throw failure(e, secret);
    }
  }

  /** Run one storage call under the time limit; failures as S3Failure. */
  private async call<T>(session: Session, fn: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        session.agent.destroy();
        reject(new S3Failure(`the store did not answer within ${Math.round(this.timeoutMs / 1000)} s`));
      }, this.timeoutMs);
    });
    const work = fn();
    work.catch(() => {});
    try {
      return await Promise.race([work, limit]);
    } catch (e) {
      throw failure(e, session.secret);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A minio client for the integration: path-style on an endpoint, virtual-hosted on AWS. */
function newClient(row: S3IntegrationRow, secretKey: string, transportAgent: http.Agent): Minio.Client {
  const common = { accessKey: row.accessKeyId, secretKey, region: row.region, transportAgent, retryOptions: { disableRetry: true } };
  if (row.endpoint !== null) {
    const u = new URL(row.endpoint);
    const useSSL = u.protocol === 'https:';
    return new Minio.Client({
      ...common,
      endPoint: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port ? Number(u.port) : useSSL ? 443 : 80,
      useSSL,
      pathStyle: true,
    });
  }
  const endPoint = row.region.startsWith('cn-') ? `s3.${row.region}.amazonaws.com.cn` : `s3.${row.region}.amazonaws.com`;
  return new Minio.Client({ ...common, endPoint, port: 443, useSSL: true, pathStyle: false });
}

/** An S3Failure with the store's code and message, the secret cut out of it if it ever appears. */
function failure(e: unknown, secret: string): S3Failure {
  if (e instanceof S3Failure) return new S3Failure(scrub(e.message, secret));
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' && err.code !== '' ? err.code : '';
  let message = typeof err?.message === 'string' && err.message !== '' ? err.message : 'the store refused the request without saying why';
  if (code && !message.includes(code)) message = `${code}: ${message}`;
  if (code === 'EPRIVATE') message = `${message} ${S3_PRIVATE_HINT}`;
  return new S3Failure(scrub(message, secret));
}

function scrub(message: string, secret: string): string {
  return secret.length >= 4 ? message.split(secret).join('[redacted]') : message;
}
