/**
 * Host name lookups for the service's outbound connections (webhooks, images by URL, S3
 * integrations), each with a deadline, so that a name server that never answers holds up neither
 * the request nor anyone else's.
 *
 * Two ways to look a name up:
 *  - `publicAddresses`: for targets that must be public (the default for every outbound target).
 *    Asks DNS directly (c-ares: the servers of /etc/resolv.conf, or PLATEN_DNS_SERVERS) off libuv's
 *    thread pool, and cancels the queries at the deadline: a hostile name costs a socket for
 *    `timeoutMs` and nothing else. `localhost` and `*.localhost` are loopback (RFC 6761) without
 *    a query; /etc/hosts is not read (a public target is in DNS).
 *  - `systemAddresses`: for targets allowed on private networks (PLATEN_*_ALLOW_PRIVATE: LAN names,
 *    /etc/hosts, mDNS). The system resolver (getaddrinfo) runs on a thread of libuv's pool (4
 *    unless UV_THREADPOOL_SIZE) and holds it until it answers, however long: those threads also do
 *    file I/O and zlib, so at most `concurrency` such lookups run at once and the others wait. One
 *    past its deadline keeps its place until getaddrinfo returns, since only then is the thread free.
 */
import { lookup, Resolver, type LookupAddress } from 'node:dns';

/** The limits, from PLATEN_DNS_TIMEOUT_MS, PLATEN_DNS_CONCURRENCY and PLATEN_DNS_SERVERS. */
export interface HostLookupLimits {
  /** Deadline of one lookup, time spent waiting for a place included, in milliseconds. */
  timeoutMs: number;
  /** System-resolver lookups running at once in this process; keep it below libuv's pool size (4 by default). */
  concurrency: number;
  /** DNS servers for public lookups ("1.1.1.1", "[2606:4700::1111]:53", "127.0.0.1:5353"); empty: /etc/resolv.conf's. */
  servers: string[];
}

/** Defaults of PLATEN_DNS_TIMEOUT_MS, PLATEN_DNS_CONCURRENCY and PLATEN_DNS_SERVERS. */
export const DEFAULT_HOST_LOOKUP_LIMITS: HostLookupLimits = { timeoutMs: 5000, concurrency: 2, servers: [] };

/** Every address of a host name; `family` 0 for both, 4 or 6. */
export type ResolveAll = (host: string, family: number) => Promise<LookupAddress[]>;

const systemResolver: ResolveAll = (host, family) =>
  new Promise((resolve, reject) => lookup(host, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** An error with a DNS-style `code` (ETIMEOUT, ENOTFOUND, EPRIVATE), as a `lookup` callback passes it. */
export function dnsError(code: string, message: string): NodeJS.ErrnoException {
  const e = new Error(message) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

const timeoutError = (host: string, ms: number) => dnsError('ETIMEOUT', `host "${host}" did not resolve within ${ms} ms`);

/** RFC 6761: `localhost` and names under it are the loopback addresses, never asked of DNS. */
const LOCALHOST = /^(?:[^.]+\.)*localhost\.?$/i;

/** Host name lookups with deadlines (see the file's comment). One per process: {@link hostLookup}. */
export class HostLookup {
  private running = 0;
  /** System lookups waiting for a place, first come first served (one past its deadline leaves the line). */
  private readonly waiting: Array<() => void> = [];

  /** `resolveSystem` is getaddrinfo unless a test gives another. */
  constructor(
    private limits: HostLookupLimits,
    private readonly resolveSystem: ResolveAll = systemResolver,
  ) {}

  /** Sets the limits (at server start, from the configuration). */
  configure(limits: HostLookupLimits): void {
    this.limits = limits;
    this.startWaiting();
  }

  /** System-resolver lookups working now (ones past their deadline included). */
  get inFlight(): number {
    return this.running;
  }

  /**
   * Every address `host` has in DNS (`family` 0: A and AAAA records), for a target that must be
   * public. Rejects with ENOTFOUND (no such name, or no address), the DNS error, or ETIMEOUT at
   * the deadline.
   */
  publicAddresses(host: string, family = 0): Promise<LookupAddress[]> {
    if (LOCALHOST.test(host)) {
      const loopback: LookupAddress[] = [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
      return Promise.resolve(loopback.filter((a) => family === 0 || a.family === family));
    }
    const ms = this.limits.timeoutMs;
    // c-ares retries a silent server itself; the timer below is the hard deadline.
    const resolver = new Resolver({ timeout: Math.max(100, Math.ceil(ms / 3)), tries: 2 });
    try {
      if (this.limits.servers.length > 0) resolver.setServers(this.limits.servers);
    } catch (e) {
      return Promise.reject(e as Error); // the configuration checks the servers; a rejection, never a throw, whatever comes
    }
    const ask = (rrtype: 'A' | 'AAAA'): Promise<LookupAddress[]> =>
      new Promise((resolve, reject) =>
        resolver.resolve(host, rrtype, (err, records) => (err ? reject(err) : resolve((records as string[]).map((address) => ({ address, family: rrtype === 'A' ? 4 : 6 }))))),
      );
    const asked = family === 4 ? [ask('A')] : family === 6 ? [ask('AAAA')] : [ask('A'), ask('AAAA')];
    const answers = Promise.allSettled(asked).then((results) => {
      const addresses = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      if (addresses.length > 0) return addresses;
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      const code = (failed?.reason as NodeJS.ErrnoException | undefined)?.code;
      // No such name, or a name without addresses (ENODATA): both "does not resolve".
      throw code === undefined || code === 'ENODATA' || code === 'ENOTFOUND' ? dnsError('ENOTFOUND', `host "${host}" has no address`) : failed!.reason;
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        resolver.cancel();
        reject(timeoutError(host, ms));
      }, ms);
      answers.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  /**
   * Every address of `host` from the system resolver (getaddrinfo: /etc/hosts, DNS, mDNS), for a
   * target allowed on private networks; at most `concurrency` at once. Rejects with the resolver's
   * error (ENOTFOUND, ...) or with ETIMEOUT at the deadline.
   */
  systemAddresses(host: string, family = 0): Promise<LookupAddress[]> {
    const ms = this.limits.timeoutMs;
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        const queued = this.waiting.indexOf(start);
        if (queued >= 0) this.waiting.splice(queued, 1);
        reject(timeoutError(host, ms));
      }, ms);
      const start = (): void => {
        this.running++;
        this.resolveSystem(host, family)
          .then(
            (addresses) => {
              if (!settled) resolve(addresses);
            },
            (err) => {
              if (!settled) reject(err);
            },
          )
          .finally(() => {
            settled = true;
            clearTimeout(timer);
            this.running--;
            this.startWaiting();
          });
      };
      if (this.running < this.limits.concurrency) start();
      else this.waiting.push(start);
    });
  }

  private startWaiting(): void {
    while (this.running < this.limits.concurrency && this.waiting.length > 0) this.waiting.shift()!();
  }
}

/** The process's host lookups: libuv's pool is the process's, so is the bound. */
export const hostLookup = new HostLookup(DEFAULT_HOST_LOOKUP_LIMITS);
