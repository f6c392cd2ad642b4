/**
 * A real S3-compatible server for tests: s3rver (pure JavaScript, files in a temporary folder) on
 * a loopback port, behind a small proxy on another loopback port that checks every request's AWS
 * Signature V4 against the server's own key pair (s3rver checks the access key id but not V4
 * signatures), so a wrong or badly decrypted secret is refused as real S3 would refuse it
 * (403 SignatureDoesNotMatch). A minio client looks at what landed.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Minio from 'minio';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';

export interface TestS3 {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  /** A client with the server's key pair (path style). */
  client: Minio.Client;
  /** The object's bytes, or null when there is no such object. */
  read(bucket: string, key: string): Promise<Buffer | null>;
  /** Every key in the bucket. */
  keys(bucket: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Start s3rver on 127.0.0.1 with `buckets` created. */
export async function startS3(buckets: string[]): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'platen-s3-'));
  const accessKeyId = `PLATENTEST${randomBytes(5).toString('hex').toUpperCase()}`;
  const secretAccessKey = `platen-s3-secret-${randomBytes(16).toString('hex')}`;
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const backend = await server.run();
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const problem = signatureProblem(req, body, (id) => (id === accessKeyId ? secretAccessKey : undefined));
      if (problem) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${problem.code}</Code><Message>${problem.message}</Message></Error>`);
        return;
      }
      const fwd = http.request({ host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      fwd.on('error', () => res.writeHead(502).end());
      fwd.end(body);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const { port } = proxy.address() as AddressInfo;
  const client = new Minio.Client({ endPoint: '127.0.0.1', port, useSSL: false, accessKey: accessKeyId, secretKey: secretAccessKey, region: 'us-east-1', pathStyle: true });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    accessKeyId,
    secretAccessKey,
    client,
    async read(bucket, key) {
      try {
        const stream = await client.getObject(bucket, key);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      } catch (e) {
        if ((e as { code?: string }).code === 'NoSuchKey' || (e as { code?: string }).code === 'NotFound') return null;
        throw e;
      }
    },
    async keys(bucket) {
      const out: string[] = [];
      for await (const item of client.listObjectsV2(bucket, '', true)) {
        if ((item as { name?: string }).name) out.push((item as { name: string }).name);
      }
      return out.sort();
    },
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
      await server.close();
      AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(accessKeyId);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/**
 * Why the request's AWS Signature V4 (Authorization header) is not valid, or null when it is:
 * canonical request, string to sign and signing key as AWS documents them for S3 (the URI path as
 * sent, not encoded again), and the payload hash checked against the body when it is given.
 */
function signatureProblem(req: http.IncomingMessage, body: Buffer, secretOf: (accessKeyId: string) => string | undefined): { code: string; message: string } | null {
  if (req.headers.authorization === undefined && /[?&]X-Amz-Signature=/.test(req.url ?? '')) return presignedProblem(req, secretOf);
  const auth = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { code: 'AccessDenied', message: 'a Signature V4 Authorization header is required' };
  const [, accessKeyId, date, region, signedHeaders, signature] = m;
  const secret = secretOf(accessKeyId);
  if (secret === undefined) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) return { code: 'XAmzContentSHA256Mismatch', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  const [path, query = ''] = (req.url ?? '/').split('?');
  const canonicalQuery = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => (p.includes('=') ? p : `${p}=`))
    .sort()
    .join('&');
  const names = signedHeaders.split(';');
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/ +/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), 's3'), 'aws4_request');
  if (createHmac('sha256', key).update(stringToSign).digest('hex') !== signature) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' };
  }
  return null;
}

/**
 * Why a presigned URL (query-string Signature V4: X-Amz-Credential, X-Amz-Date, X-Amz-Expires,
 * X-Amz-SignedHeaders, X-Amz-Signature) is not valid, or null when it is: signature over the
 * canonical request with an unsigned payload, and the expiry against the clock.
 */
function presignedProblem(req: http.IncomingMessage, secretOf: (accessKeyId: string) => string | undefined): { code: string; message: string } | null {
  const [path, query = ''] = (req.url ?? '/').split('?');
  const pairs = query.split('&').filter((p) => p !== '').map((p) => (p.includes('=') ? p : `${p}=`));
  const param = (name: string) => {
    const pair = pairs.find((p) => p.startsWith(`${name}=`));
    return pair === undefined ? undefined : decodeURIComponent(pair.slice(name.length + 1));
  };
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(param('X-Amz-Credential') ?? '');
  const amzDate = param('X-Amz-Date') ?? '';
  const expires = Number(param('X-Amz-Expires'));
  const signedHeaders = param('X-Amz-SignedHeaders') ?? '';
  const signature = param('X-Amz-Signature') ?? '';
  if (!credential || !/^\d{8}T\d{6}Z$/.test(amzDate) || !Number.isInteger(expires) || signedHeaders === '') return { code: 'AuthorizationQueryParametersError', message: 'a presigned URL needs X-Amz-Credential, X-Amz-Date, X-Amz-Expires and X-Amz-SignedHeaders' };
  const [, accessKeyId, date, region] = credential;
  const secret = secretOf(accessKeyId);
  if (secret === undefined) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const signedAt = Date.UTC(+amzDate.slice(0, 4), +amzDate.slice(4, 6) - 1, +amzDate.slice(6, 8), +amzDate.slice(9, 11), +amzDate.slice(11, 13), +amzDate.slice(13, 15));
  if (Date.now() > signedAt + expires * 1000) return { code: 'AccessDenied', message: 'Request has expired' };
  const canonicalQuery = pairs.filter((p) => !p.startsWith('X-Amz-Signature=')).sort().join('&');
  const names = signedHeaders.split(';');
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/ +/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), 's3'), 'aws4_request');
  if (createHmac('sha256', key).update(stringToSign).digest('hex') !== signature) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' };
  }
  return null;
}
