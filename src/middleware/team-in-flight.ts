/**
 * Request bodies one team may have in flight at once in this process (PLATEN_MAX_TEAM_IN_FLIGHT_BYTES).
 * A synchronous render waits for a thread with its parsed body in memory, and the rate limit counts
 * requests, not bytes: 40 concurrent creates of 8 MB each took the process from 0.5 to 1.2 GB, and
 * a minute of them (600) would take it past any heap. A request is counted by its Content-Length (a
 * chunked or compressed body by the body limit, its largest size in memory) from authentication until it is answered; one
 * that would pass the team's budget is refused with 429 before its body is read. A body alone
 * larger than the budget is let through when nothing else of the team is in flight.
 */
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../app.ts';
import { contentCodings } from './body-encoding.ts';

/** Bytes of request bodies per team in flight, shared by the routes it guards. */
export class TeamInFlight {
  private readonly bytes = new Map<string, number>();

  /**
   * @param limit bytes of bodies one team may have in flight at once.
   * @param chunkedBytes what a body without Content-Length counts (the body limit), and a compressed one at least.
   */
  constructor(
    readonly limit: number,
    private readonly chunkedBytes: number,
  ) {}

  /** The middleware, after authentication (it reads `teamId`). @throws ApiError 429 RATE_LIMIT_EXCEEDED past the budget. */
  middleware() {
    return createMiddleware<AppEnv>(async (c, next) => {
      const size = this.sizeOf(c.req.header('content-length'), c.req.header('transfer-encoding'), c.req.header('content-encoding'));
      if (size === 0) return next();
      const team = c.get('teamId');
      const held = this.bytes.get(team) ?? 0;
      if (held > 0 && held + size > this.limit) {
        c.header('Retry-After', '1');
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `your team's requests in flight already carry ${held} bytes of a budget of ${this.limit} (PLATEN_MAX_TEAM_IN_FLIGHT_BYTES); send this one when one of them has been answered`);
      }
      this.bytes.set(team, held + size);
      try {
        await next();
      } finally {
        const left = (this.bytes.get(team) ?? size) - size;
        if (left > 0) this.bytes.set(team, left);
        else this.bytes.delete(team);
      }
    });
  }

  private sizeOf(length: string | undefined, transferEncoding: string | undefined, contentEncoding: string | undefined): number {
    if (transferEncoding !== undefined) return this.chunkedBytes;
    const n = Number(length ?? 0);
    if (!(Number.isFinite(n) && n > 0)) return 0;
    // A gzip or deflate body may inflate up to the body limit (body-encoding.ts).
    return contentCodings(contentEncoding).length > 0 ? Math.max(n, this.chunkedBytes) : n;
  }
}
