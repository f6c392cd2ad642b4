/**
 * Where webhooks may go (spec §2.2; DESIGN §4): public HTTPS addresses only, unless
 * PLATEN_WEBHOOK_ALLOW_PRIVATE is set (development and tests). S3 endpoints likewise must be
 * public unless PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS is set (a self-hosted MinIO on the LAN). Checked when the job is requested
 * and again at every delivery, on the very address the connection uses (see `publicOnlyLookup`),
 * so a DNS answer that changes in between cannot reach a private network.
 */
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { dnsError, hostLookup, type HostLookup } from './host-lookup.ts';

/**
 * IPv4-compatible IPv6 addresses (`::a.b.c.d`, deprecated by RFC 4291): `::127.0.0.1` is written
 * `[::7f00:1]` in a URL, which ipaddr.js ranks "unicast". No public service uses the form, so the
 * whole block is refused (it holds `::` and `::1` too).
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * An IPv6 address in the WHATWG URL parser's canonical form (hexadecimal groups), or null when it
 * has none (a zone id). ipaddr.js reads a dotted tail wrongly: it parses `::8.8.8.8` as
 * `::ffff:8.8.8.8`, which system resolvers also print for IPv4-compatible addresses.
 */
function canonicalIPv6(ip: string): string | null {
  try {
    return unbracketed(new URL(`http://[${ip}]/`).hostname);
  } catch {
    return null;
  }
}

/**
 * Whether an IP address (v4 or v6, without brackets) is on the public internet: not loopback,
 * private, link-local, reserved, ... An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, also
 * written `::ffff:7f00:1`) is judged as its IPv4 address; an IPv4-compatible one (`::127.0.0.1`)
 * is never public. False for anything that is not an IP address.
 */
export function isPublicAddress(ip: string): boolean {
  const text = isIP(ip) === 6 ? canonicalIPv6(ip) : ip;
  if (text === null || !ipaddr.isValid(text)) return false;
  let addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return addr.range() === 'unicast';
}

/**
 * Why `url` may not receive webhooks, or null when it may.
 * Resolves the host name: every address it resolves to must be public.
 */
export async function webhookUrlProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  const u = absoluteUrl(url);
  if (!u) return 'must be an absolute URL';
  if (u.username || u.password) return 'must not contain credentials';
  if (allowPrivate) return u.protocol === 'https:' || u.protocol === 'http:' ? null : 'must be an http(s) URL';
  if (u.protocol !== 'https:') return 'must be an https URL';
  return hostAddressProblem(u.hostname);
}

/**
 * Why the host of an S3 endpoint (DESIGN §4, PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS) may not be used,
 * or null when it may. The URL's shape (http(s), no path) is the schema's business; this resolves
 * the host name: every address it resolves to must be public, unless private ones are allowed.
 */
export async function s3EndpointProblem(endpoint: string, allowPrivate: boolean): Promise<string | null> {
  const u = absoluteUrl(endpoint);
  if (!u) return 'must be an absolute URL';
  if (allowPrivate) return null;
  const problem = await hostAddressProblem(u.hostname);
  return problem === NOT_PUBLIC ? `${problem} ${S3_PRIVATE_HINT}` : problem;
}

/** What an S3 endpoint refused as private should say. */
export const S3_PRIVATE_HINT = '(a self-hosted store on a private network needs PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS=true on the server)';

const NOT_PUBLIC = 'must not point to a private, loopback or reserved address';

function absoluteUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** A URL's hostname without the brackets of an IPv6 literal. */
const unbracketed = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/**
 * Why `hostname` is an IP literal that is not public, or null (a public literal, or a host name).
 * Node connects to an IP literal without calling `lookup`, so `publicOnlyLookup` never sees one:
 * a client that relies on it must check literals with this.
 */
export function literalAddressProblem(hostname: string): string | null {
  const host = unbracketed(hostname);
  return isIP(host) !== 0 && !isPublicAddress(host) ? NOT_PUBLIC : null;
}

/** Why `hostname` (a name or an IP literal, IPv6 in brackets or not) is not public, or null. */
async function hostAddressProblem(hostname: string): Promise<string | null> {
  const host = unbracketed(hostname);
  if (isIP(host) !== 0) return literalAddressProblem(host);
  let addresses: LookupAddress[];
  try {
    addresses = await hostLookup.publicAddresses(host);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ETIMEOUT' ? (e as Error).message : `host "${host}" does not resolve`;
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) return NOT_PUBLIC;
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses non-public addresses (unless allowed). `what` names
 * the target in the error. Public targets are looked up in DNS, others with the system resolver
 * (host-lookup.ts), `lookups` (default: the process's) either way; one not answered in time fails
 * the connection with ETIMEOUT.
 */
export function publicOnlyLookup(allowPrivate: boolean, what = 'webhook target', lookups: HostLookup = hostLookup) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0) || 0;
    (allowPrivate ? lookups.systemAddresses(hostname, family) : lookups.publicAddresses(hostname, family)).then((list) => {
      if (list.length === 0) return callback(dnsError('ENOTFOUND', `${what} ${hostname} has no address`), []);
      const bad = !allowPrivate && list.find((a) => !isPublicAddress(a.address));
      if (bad) return callback(dnsError('EPRIVATE', `${what} ${hostname} resolves to a non-public address (${bad.address})`), []);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    }, (err: NodeJS.ErrnoException) => callback(err, []));
  };
}
