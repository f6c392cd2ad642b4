/**
 * Host name lookups for the service's outbound connections (webhooks, images by URL, S3
 * integrations), with a deadline and a bound on how many run at once.
 *
 * Why: `dns.lookup` (the system resolver, getaddrinfo) runs on a thread of libuv's pool (4 threads
 * unless UV_THREADPOOL_SIZE says otherwise) and holds it until the resolver answers or gives up:
 * tens of seconds for a name whose name server never answers. The same threads do the service's
 * file reads and writes and its zlib work, so a few requests naming such hosts would stall every
 * render's file write. Hence:
 *  - at most `concurrency` lookups run at once (PLATEN_DNS_CONCURRENCY); the others wait;
 *  - a lookup not answered within `timeoutMs` (PLATEN_DNS_TIMEOUT_MS), waiting included, fails
 *    with `ETIMEOUT`. Its place is given back only when the system resolver returns, since only
 *    then is the pool's thread free.
 */
import { lookup, type LookupAddress } from 'node:dns';

/** The two limits, from PLATEN_DNS_CONCURRENCY and PLATEN_DNS_TIMEOUT_MS. */
export interface HostLookupLimits {
  /** Lookups running at once in this process; keep it below libuv's pool size (4 by default). */
  concurrency: number;
  /** Deadline of one lookup, time spent waiting for a place included, in milliseconds. */
  timeoutMs: number;
}

/** Defaults of PLATEN_DNS_CONCURRENCY and PLATEN_DNS_TIMEOUT_MS: half of libuv's default pool; 5 s. */
export const DEFAULT_HOST_LOOKUP_LIMITS: HostLookupLimits = { concurrency: 2, timeoutMs: 5000 };

/** Every address of a host name; `family` 0 for both, 4 or 6. */
export type ResolveAll = (host: string, family: number) => Promise<LookupAddress[]>;

const systemResolver: ResolveAll = (host, family) =>
  new Promise((resolve, reject) => lookup(host, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** The error of a lookup past its deadline: code ETIMEOUT, the host and the deadline in its message. */
function timeoutError(host: string, ms: number): NodeJS.ErrnoException {
  const e = new Error(`host "${host}" did not resolve within ${ms} ms`) as NodeJS.ErrnoException;
  e.code = 'ETIMEOUT';
  return e;
}

/** Bounded, deadlined host name lookups (see the file's comment). One per process: {@link hostLookup}. */
export class HostLookup {
  private running = 0;
  /** Lookups waiting for a place, first come first served (one past its deadline leaves the line). */
  private readonly waiting: Array<() => void> = [];

  /** `resolve` is the system resolver unless a test gives another. */
  constructor(
    private limits: HostLookupLimits,
    private readonly resolve: ResolveAll = systemResolver,
  ) {}

  /** Sets the limits (at server start, from the configuration). */
  configure(limits: HostLookupLimits): void {
    this.limits = limits;
    this.startWaiting();
  }

  /** Lookups the system resolver is working on now (ones past their deadline included). */
  get inFlight(): number {
    return this.running;
  }

  /**
   * Every address `host` resolves to (`family` 0: IPv4 and IPv6). Rejects with the resolver's
   * error (ENOTFOUND, ...) or with ETIMEOUT once `timeoutMs` has passed.
   */
  all(host: string, family = 0): Promise<LookupAddress[]> {
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
        this.resolve(host, family)
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
