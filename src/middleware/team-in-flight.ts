/**
 * The memory one team's request bodies may hold at once in this process
 * (PLATEN_MAX_TEAM_IN_FLIGHT_BYTES). A synchronous render waits for a thread with its parsed body in
 * memory, and the rate limit counts requests, not bytes: 40 concurrent creates of 8 MB each took the
 * process from 0.5 to 1.2 GB, and a minute of them (600) would take it past any heap.
 *
 * A request is counted from authentication until it is answered, by what its body weighs
 * (body-weight.ts): before the body is read, the least a body of its Content-Length can weigh (a
 * chunked or compressed body: as if it were as large as the body limit); once read, what it weighs
 * parsed, which for many small values is far more than its bytes (10 MB of `{},{},...` holds about
 * 570 MB). A request that would take its team past the budget is refused with 429, before its body
 * is read when its Content-Length alone says so; one is taken when nothing else of the team is in
 * flight. A body heavier than MAX_WEIGHT_PER_BODY_BYTE times the body limit is refused with 413
 * whatever else is in flight.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../app.ts';
import { contentCodings } from './body-encoding.ts';
import { jsonBodyWeight, MAX_WEIGHT_PER_BODY_BYTE, MIN_WEIGHT_PER_BYTE } from './body-weight.ts';

const mib = (n: number) => `${Math.ceil(n / (1024 * 1024))} MiB`;

/** Memory of request bodies per team in flight, shared by the routes it guards. */
export class TeamInFlight {
  private readonly held = new Map<string, number>();
  /** The most one body may weigh. */
  readonly maxBodyWeight: number;

  /**
   * @param limit bytes of memory one team's bodies may hold at once.
   * @param maxBodyBytes the body limit: what a body without Content-Length may be, and a compressed one once inflated.
   */
  constructor(
    readonly limit: number,
    private readonly maxBodyBytes: number,
  ) {
    this.maxBodyWeight = MAX_WEIGHT_PER_BODY_BYTE * maxBodyBytes;
  }

  /** The middleware, after authentication (it reads `teamId`). @throws ApiError 429 RATE_LIMIT_EXCEEDED past the budget. */
  middleware() {
    return createMiddleware<AppEnv>(async (c, next) => {
      const weight = MIN_WEIGHT_PER_BYTE * this.sizeOf(c.req.header('content-length'), c.req.header('transfer-encoding'), c.req.header('content-encoding'));
      if (weight === 0) return next();
      const team = c.get('teamId');
      this.take(c, team, weight, 0);
      try {
        await next();
      } finally {
        this.give(team, weight);
      }
    });
  }

  /**
   * The middleware that weighs a body once it is read (after the body limit and decoding; a
   * multipart upload is not weighed): what it weighs past what {@link middleware} counted is added
   * to the team's bodies in flight until the request is answered.
   * @throws ApiError 413 PAYLOAD_TOO_LARGE for a body heavier than {@link maxBodyWeight}; 429
   *   RATE_LIMIT_EXCEEDED when its weight and the team's other bodies in flight pass the budget.
   */
  weigh() {
    return createMiddleware<AppEnv>(async (c, next) => {
      const size = this.sizeOf(c.req.header('content-length'), c.req.header('transfer-encoding'), c.req.header('content-encoding'));
      if (size === 0 || /^multipart\//i.test(c.req.header('content-type') ?? '')) return next();
      // Every body: 400 small bodies of {} weigh as much as one 10 MB one (one pass, ~1 ms a MB).
      const w = jsonBodyWeight(new Uint8Array(await c.req.arrayBuffer()));
      if (w.weight > this.maxBodyWeight) {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body would take about ${mib(w.weight)} of memory once parsed (${w.containers} objects and arrays in ${w.bytes} bytes), more than the ${mib(this.maxBodyWeight)} one body may take (${MAX_WEIGHT_PER_BODY_BYTE} x PLATEN_MAX_BODY_BYTES); send fewer, larger values`);
      }
      const extra = w.weight - MIN_WEIGHT_PER_BYTE * size;
      if (extra <= 0) return next();
      const team = c.get('teamId');
      this.take(c, team, extra, MIN_WEIGHT_PER_BYTE * size);
      try {
        await next();
      } finally {
        this.give(team, extra);
      }
    });
  }

  /** Count `weight` more for `team`, of whose bodies in flight `own` is this request's. @throws ApiError 429 past the budget, unless the team has nothing else in flight. */
  private take(c: Context<AppEnv>, team: string, weight: number, own: number): void {
    const held = this.held.get(team) ?? 0;
    if (held > own && held + weight > this.limit) {
      c.header('Retry-After', '1');
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `your team's requests in flight already hold about ${mib(held - own)} of memory of a budget of ${mib(this.limit)} (PLATEN_MAX_TEAM_IN_FLIGHT_BYTES), and this one would take about ${mib(own + weight)} more; send it when one of them has been answered`);
    }
    this.held.set(team, held + weight);
  }

  private give(team: string, weight: number): void {
    const left = (this.held.get(team) ?? weight) - weight;
    if (left > 0) this.held.set(team, left);
    else this.held.delete(team);
  }

  /** Bytes a body may be: its Content-Length, or the body limit when chunked or compressed; 0 without a body. */
  private sizeOf(length: string | undefined, transferEncoding: string | undefined, contentEncoding: string | undefined): number {
    if (transferEncoding !== undefined) return this.maxBodyBytes;
    const n = Number(length ?? 0);
    if (!(Number.isFinite(n) && n > 0)) return 0;
    // A gzip or deflate body may inflate up to the body limit (body-encoding.ts).
    return contentCodings(contentEncoding).length > 0 ? Math.max(n, this.maxBodyBytes) : n;
  }
}
