/**
 * Generated files in an S3-compatible bucket (PLATEN_STORAGE_URL=s3://bucket/prefix), shared by
 * every node of a cluster, with the `minio` client: path-style requests on PLATEN_STORAGE_ENDPOINT
 * (MinIO, Ceph, R2, ...) unless PLATEN_STORAGE_FORCE_PATH_STYLE=false, virtual-hosted requests on
 * AWS's regional endpoint when no endpoint is set.
 *
 * Objects are `<prefix>/<id>.pdf`, written with Content-Type and the metadata
 * `x-amz-meta-platen-expires-at` (Unix seconds) and `x-amz-meta-platen-team`. The sweeper deletes
 * them by the database's list of expired files; a bucket lifecycle rule is the backstop.
 * Each call has a deadline (PLATEN_STORAGE_TIMEOUT_MS); a failure is a StorageFailure naming the
 * bucket, never the secret key.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import * as Minio from 'minio';
import { joinKey } from '../services/s3.ts';
import { StorageFailure, type BlobStore, type PutMeta, type StoredObject } from './store.ts';

/** The S3 store's settings (from PLATEN_STORAGE_*). */
export interface S3StoreOptions {
  bucket: string;
  /** Key prefix without leading or trailing slash ("" for none). */
  prefix: string;
  /** http(s) origin of an S3-compatible server; undefined: AWS S3 in `region`. */
  endpoint: string | undefined;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Bucket in the path (`host/bucket/key`) instead of the host name (`bucket.host/key`). */
  forcePathStyle: boolean;
  /** Deadline of one store call, ms. */
  timeoutMs: number;
}

/** The longest lifetime of a presigned S3 URL (Signature V4): 7 days, in seconds. */
export const PRESIGN_MAX_SECONDS = 7 * 24 * 3600;

/** A minio client for `origin` (an http(s) URL; undefined: AWS's regional endpoint). */
function clientFor(o: S3StoreOptions, origin: string | undefined, agent?: http.Agent): Minio.Client {
  const common = { accessKey: o.accessKeyId, secretKey: o.secretAccessKey, region: o.region, retryOptions: { disableRetry: true }, ...(agent ? { transportAgent: agent } : {}) };
  if (origin !== undefined) {
    const u = new URL(origin);
    const useSSL = u.protocol === 'https:';
    return new Minio.Client({ ...common, endPoint: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : useSSL ? 443 : 80, useSSL, pathStyle: o.forcePathStyle });
  }
  const endPoint = o.region.startsWith('cn-') ? `s3.${o.region}.amazonaws.com.cn` : `s3.${o.region}.amazonaws.com`;
  return new Minio.Client({ ...common, endPoint, port: 443, useSSL: true, pathStyle: o.forcePathStyle });
}

export class S3Store implements BlobStore {
  readonly kind = 's3' as const;
  readonly location: string;
  private readonly client: Minio.Client;
  private readonly agent: http.Agent;

  constructor(private readonly o: S3StoreOptions) {
    const secure = o.endpoint === undefined || o.endpoint.startsWith('https:');
    this.agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
    this.client = clientFor(o, o.endpoint, this.agent);
    this.location = `s3://${o.bucket}${o.prefix ? `/${o.prefix}` : ''} at ${o.endpoint ?? `AWS S3 ${o.region}`}`;
  }

  private key(name: string): string {
    return joinKey(this.o.prefix, name);
  }

  async put(name: string, body: Buffer, meta: PutMeta): Promise<void> {
    await this.call('write', () =>
      this.client.putObject(this.o.bucket, this.key(name), body, body.length, {
        'Content-Type': meta.contentType,
        'platen-expires-at': String(meta.expiresAt),
        'platen-team': meta.teamId,
      }),
    );
  }

  async get(name: string): Promise<StoredObject | null> {
    let res: IncomingMessage;
    try {
      res = (await this.call('read', () => this.client.getObject(this.o.bucket, this.key(name)))) as IncomingMessage;
    } catch (e) {
      if (e instanceof NotThere) return null;
      throw e;
    }
    const size = Number(res.headers['content-length']);
    return { body: res, size: Number.isFinite(size) ? size : -1 };
  }

  async delete(name: string): Promise<void> {
    try {
      await this.call('delete', () => this.client.removeObject(this.o.bucket, this.key(name)));
    } catch (e) {
      if (!(e instanceof NotThere)) throw e;
    }
  }

  /** HEAD bucket: the store answers, the keys are accepted and the bucket exists. */
  async ping(): Promise<void> {
    const exists = await this.call('reach', () => this.client.bucketExists(this.o.bucket));
    if (!exists) throw new StorageFailure(`the file store ${this.location}: bucket "${this.o.bucket}" does not exist`);
  }

  /**
   * A presigned GET URL of `name`, valid until `expiresAt` (Unix s, at most 7 days after `now`),
   * signed for `origin` (PLATEN_CDN_URL: where clients reach the bucket) or else the store's own
   * endpoint. The answer carries `Content-Type` and an inline `Content-Disposition` with `filename`.
   * No request is made.
   */
  async presignedUrl(name: string, filename: string, contentType: string, expiresAt: number, origin: string | undefined, now = new Date()): Promise<string> {
    const seconds = Math.min(PRESIGN_MAX_SECONDS, Math.max(1, expiresAt - Math.floor(now.getTime() / 1000)));
    const client = origin === undefined ? this.client : clientFor(this.o, origin);
    return client.presignedGetObject(
      this.o.bucket,
      this.key(name),
      seconds,
      { 'response-content-type': contentType, 'response-content-disposition': `inline; filename="${filename.replace(/["\\\r\n]/g, '')}"` },
      now,
    );
  }

  close(): void {
    this.agent.destroy();
  }

  /** One store call under the deadline; a missing object as NotThere, anything else as StorageFailure. */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    // Every call is idempotent (PUT, GET, DELETE, HEAD of one key): one that fails on a kept-alive
    // connection the store closed meanwhile (ECONNRESET, a hang-up) is sent again on a new one.
    const work = fn().catch((e: unknown) => (connectionDropped(e) ? fn() : Promise.reject(e)));
    work.catch(() => {});
    try {
      return await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StorageFailure(`the file store ${this.location} did not answer within ${this.o.timeoutMs} ms (${what})`)), this.o.timeoutMs);
        }),
      ]);
    } catch (e) {
      if (e instanceof StorageFailure) throw e;
      const err = e as { code?: unknown; message?: unknown };
      const code = typeof err?.code === 'string' ? err.code : '';
      if (code === 'NoSuchKey' || code === 'NotFound') throw new NotThere();
      let message = typeof err?.message === 'string' && err.message !== '' ? err.message : 'no reason given';
      if (code && !message.includes(code)) message = `${code}: ${message}`;
      message = message.split(this.o.secretAccessKey).join('[redacted]');
      throw new StorageFailure(`the file store ${this.location} failed to ${what}: ${message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The object is not in the bucket. */
class NotThere extends Error {}

/** Whether `e` is a connection the other side dropped before it answered (worth one more try). */
function connectionDropped(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  return code === 'ECONNRESET' || code === 'EPIPE' || (typeof err?.message === 'string' && /socket hang up/.test(err.message));
}
