/**
 * Image sources resolved before a render: the engine lists the sources a definition bound with
 * its data needs from outside (`https://...` URLs and `asset:<id>`), and this fetches their bytes
 * (image-fetch.ts; the team's assets from the asset store) so the render thread gets them with
 * the task. A source that cannot be had fails the request with IMAGE_FETCH_FAILED, naming the
 * source and the template path that uses it, before any credit moves (synchronous requests) or
 * as the job's error (async jobs, whose images are fetched when the job runs).
 */
import type { Db } from '../../db/database.ts';
import type { ImageSourceUse } from '../../engine/index.ts';
import { ApiError } from '../errors.ts';
import type { RenderOnThread, RenderPool } from '../render/pool.ts';
import { checkDefinition } from './definition-check.ts';
import type { BlobStore } from '../storage/index.ts';
import { StorageFailure } from '../storage/store.ts';
import { assetBytes } from './assets.ts';
import { ImageFetchError, type ImageFetcher } from './image-fetch.ts';
import { TeamSlots } from './team-slots.ts';

/** A source that could not be fetched: `message` names it and the path; `url` and `path` apart. */
export class ImageSourceFailure extends Error {
  readonly code = 'IMAGE_FETCH_FAILED';
  constructor(
    message: string,
    readonly url: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ImageSourceFailure';
  }
}

/** What resolving needs. */
export interface ImageResolverOptions {
  /** Distinct URL and asset sources one render may use. */
  maxSources: number;
  /** Bytes of all of one render's URL and asset images together (default: no budget). */
  maxTotalBytes?: number;
  /** Fetches running at once for one render. */
  concurrency?: number;
  /** Fetches (and asset reads) running at once for one team in this process (default 8). */
  teamConcurrency?: number;
  /** Longest wait for one of the team's slots, ms (default 10,000). */
  teamWaitMs?: number;
  /** The renders' binding limits (PLATEN_MAX_NODES, PLATEN_MAX_DATA_SCAN): finding the images binds as a render does. */
  bindLimits?: { maxNodes: number; maxDataScan: number };
  /** Where the sources of a large definition are found (binding it costs a render's CPU time); none: on this thread. */
  pool?: RenderPool;
}

/** Whether a definition (JSON text) may have image sources to fetch: a URL, an asset, or a placeholder ({{x}} or <<x>>) that could bind to one. */
export function mayNeedSources(definitionJson: string): boolean {
  return /asset:|https?:|\{\{|<</i.test(definitionJson);
}

/** Resolves the external image sources of renders (one per process). */
export class ImageResolver {
  private readonly slots: TeamSlots;

  constructor(
    private readonly db: Db,
    private readonly fetcher: ImageFetcher,
    private readonly assets: BlobStore,
    private readonly opts: ImageResolverOptions,
  ) {
    this.slots = new TeamSlots(opts.teamConcurrency ?? 8);
  }

  /**
   * The bytes of every URL and asset image of `definitionJson` bound with `data`, by source; null
   * when it has none (the common case: nothing is fetched).
   * @throws ImageSourceFailure (IMAGE_FETCH_FAILED) for the first source that cannot be had.
   */
  async resolve(teamId: string, definitionJson: string, data: unknown, now = new Date(), onThread?: RenderOnThread): Promise<Map<string, Uint8Array> | null> {
    // Cheap test first: a definition without those sources needs no binding pass.
    if (!mayNeedSources(definitionJson)) return null;
    // Bound as a render binds, on a render thread for a large definition (services/definition-check.ts);
    // null for an invalid definition or a failed binding: the render says what is wrong.
    const found = await checkDefinition(this.opts.pool, teamId, definitionJson, { data, sources: { now: now.getTime(), ...this.opts.bindLimits }, onThread });
    let uses = found.sources;
    if (uses === null) return null;
    // Anything else (not a data: URI, not a URL, not an asset) is the engine's to refuse (IMAGE_INVALID).
    uses = uses.filter((u) => /^(https?:|asset:)/i.test(u.src));
    if (uses.length === 0) return null;
    if (uses.length > this.opts.maxSources) {
      const u = uses[this.opts.maxSources];
      throw new ImageSourceFailure(`${u.path}: more than ${this.opts.maxSources} distinct image URLs and assets in one document (PLATEN_IMAGE_FETCH_MAX_SOURCES)`, u.src, u.path);
    }
    const out = new Map<string, Uint8Array>();
    let next = 0;
    let total = 0;
    const budget = this.opts.maxTotalBytes ?? Infinity;
    // A failed source fails the render: the other workers take no more, and those waiting for a slot fetch nothing.
    const render = { failed: false };
    const worker = async () => {
      while (!render.failed && next < uses.length && total <= budget) {
        const use = uses[next++];
        const bytes = await this.one(teamId, use, render);
        total += bytes.length;
        // Held in memory until the render is done (and copied to its thread): one budget for all.
        if (total > budget) throw new ImageSourceFailure(`${use.path}: the images of one document are more than ${budget} bytes together (PLATEN_IMAGE_FETCH_MAX_TOTAL_BYTES)`, use.src, use.path);
        out.set(use.src, bytes);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 4, uses.length) }, worker));
    return out;
  }

  /** One source's bytes, in one of the team's slots. */
  private one(teamId: string, use: ImageSourceUse, render: { failed: boolean }): Promise<Buffer> {
    // A fresh cached image needs no request, so no slot.
    const cached = /^https?:/i.test(use.src) ? this.fetcher.fresh(use.src) : null;
    if (cached) return Promise.resolve(cached);
    const waitMs = this.opts.teamWaitMs ?? 10_000;
    const busy = () => new ImageSourceFailure(`${use.path}: your team's renders are fetching ${this.slots.limit} images at once, and none of them finished within ${waitMs} ms (PLATEN_IMAGE_FETCH_TEAM_CONCURRENCY); send fewer documents with images at once`, use.src, use.path);
    const fail = (e: unknown): never => {
      render.failed = true; // before the slot passes on
      throw e;
    };
    return this.slots
      .run(teamId, waitMs, busy, () => (render.failed ? Promise.resolve(Buffer.alloc(0)) : this.fetchOne(teamId, use).catch(fail)))
      .catch(fail);
  }

  private async fetchOne(teamId: string, { src, path }: ImageSourceUse): Promise<Buffer> {
    const shown = src.length > 200 ? `${src.slice(0, 200)}...` : src;
    if (/^asset:/i.test(src)) {
      const id = src.slice('asset:'.length);
      let bytes: Buffer | null;
      try {
        bytes = await assetBytes(this.db, this.assets, teamId, id);
      } catch (e) {
        if (e instanceof StorageFailure) throw new ImageSourceFailure(`${path}: asset ${id} could not be read: ${e.message}`, src, path);
        throw e;
      }
      if (!bytes) throw new ImageSourceFailure(`${path}: asset ${id} does not exist (it was deleted, or belongs to another team); upload it with POST /v1/assets`, src, path);
      return bytes;
    }
    try {
      return await this.fetcher.fetch(src);
    } catch (e) {
      if (e instanceof ImageFetchError) throw new ImageSourceFailure(`${path}: image ${shown} could not be fetched: ${e.message}`, src, path);
      throw e;
    }
  }
}

/**
 * The images of a synchronous request, fetched before its credit is taken; undefined without
 * any (or without a resolver).
 * @throws ApiError 422 IMAGE_FETCH_FAILED with `url` and `path`.
 */
export async function resolveImages(resolver: ImageResolver | undefined, teamId: string, definitionJson: string, data: unknown): Promise<Map<string, Uint8Array> | undefined> {
  if (!resolver) return undefined;
  try {
    return (await resolver.resolve(teamId, definitionJson, data)) ?? undefined;
  } catch (e) {
    if (e instanceof ImageSourceFailure) throw new ApiError(422, 'IMAGE_FETCH_FAILED', e.message, { url: e.url, path: e.path });
    throw e;
  }
}
