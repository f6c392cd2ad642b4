/**
 * Stored assets: images a team uploads once (POST /v1/assets) and uses in any template as
 * `asset:<id>`. The row (db `assets`) says whose an asset is; the bytes are in a blob store (the
 * data dir's `assets` folder, or the `assets/` prefix of the PLATEN_STORAGE_URL bucket), named
 * `<id>.<png|jpg|svg>`. Every query filters by team: another team's id is the same as none.
 * The media type is taken from the bytes (PNG, JPEG or SVG only), never from the upload. An upload
 * is checked by the engine's own decoding with the render limits (checkImageBytes): what could
 * never be drawn (a file cut short, an SVG with entities or an absurd size, an image past
 * PLATEN_MAX_IMAGE_PIXELS or PLATEN_MAX_SVG_ELEMENTS) is refused, not stored.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { and, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { checkImageBytes, DEFAULT_LIMITS, RenderError, type CheckedImage, type ImageLimits, type RenderErrorCode } from '../../engine/index.ts';
import type { RenderPool } from '../render/pool.ts';
import { stoppedCheck } from './definition-check.ts';
import { DEFAULT_MAX_TEAM_STORAGE_BYTES, type Config } from '../config.ts';
import { ApiError, validationError } from '../errors.ts';
import { LocalStore, openStore, type BlobStore } from '../storage/index.ts';
import { checkTeamStorage } from './team-storage.ts';

/** An asset as the API shows it. */
export interface AssetJson {
  id: string;
  filename: string;
  content_type: string;
  bytes: number;
  created_at: string;
}

type AssetRow = Db['t']['assets']['$inferSelect'];

/** Unix seconds far in the future: assets do not expire (the store's metadata wants a date). */
const NEVER = 253_402_300_799;

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg' };
const MEDIA_TYPES = { png: 'image/png', jpeg: 'image/jpeg', svg: 'image/svg+xml' } as const;

/** The blob store of assets: `<data dir>/assets`, or the configured bucket under the `assets` prefix. */
export function openAssetStore(config: Pick<Config, 'dataDir' | 'storage' | 'storageTimeoutMs'>): BlobStore {
  const s = config.storage;
  if (s.kind === 'local') return new LocalStore(join(config.dataDir, 'assets'));
  return openStore({ ...config, storage: { ...s, prefix: s.prefix ? `${s.prefix}/assets` : 'assets' } });
}

/** An asset id as `asset:<id>` names it: 32 hexadecimal digits. */
export const ASSET_ID = /^[0-9a-f]{32}$/;

const blobName = (row: Pick<AssetRow, 'id' | 'contentType'>) => `${row.id}.${EXTENSIONS[row.contentType] ?? 'bin'}`;

export function toAssetJson(row: AssetRow): AssetJson {
  return { id: row.id, filename: row.filename, content_type: row.contentType, bytes: row.bytes, created_at: row.createdAt };
}

/**
 * Store an uploaded image for `teamId`. The bytes go to the store first, then the row: an asset
 * listed always has its bytes.
 * @param imageLimits the render limits the image is checked against (the service's engine limits).
 * @param pool where a large SVG is checked (none: on this thread).
 * @throws ApiError 400 VALIDATION_ERROR (path `file`) when it is empty, larger than `maxBytes`,
 *   not a PNG, JPEG or SVG, one a render could not draw (the engine's message), or would take the
 *   team's storage past `maxTeamStorageBytes`; StorageFailure when the store cannot be written.
 */
export async function createAsset(
  db: Db,
  store: BlobStore,
  teamId: string,
  upload: { filename: string; bytes: Buffer },
  maxBytes: number,
  maxTeamStorageBytes = DEFAULT_MAX_TEAM_STORAGE_BYTES,
  imageLimits: ImageLimits = DEFAULT_LIMITS,
  pool?: RenderPool,
): Promise<AssetRow> {
  if (upload.bytes.length === 0) throw validationError([{ path: 'file', message: 'the file is empty' }]);
  if (upload.bytes.length > maxBytes) throw validationError([{ path: 'file', message: `the file is larger than ${maxBytes} bytes (PLATEN_ASSET_MAX_BYTES)` }]);
  const contentType = MEDIA_TYPES[await checkedImageType(upload.bytes, imageLimits, teamId, pool)];
  await checkTeamStorage(db, teamId, upload.bytes.length, maxTeamStorageBytes, 'file');
  const row: AssetRow = {
    id: randomBytes(16).toString('hex'),
    teamId,
    filename: cleanFilename(upload.filename),
    contentType,
    bytes: upload.bytes.length,
    createdAt: new Date().toISOString(),
  };
  await store.put(blobName(row), upload.bytes, { contentType, expiresAt: NEVER, teamId });
  await db.orm.insert(db.t.assets).values(row);
  return row;
}

/**
 * The type of an upload a render can draw (png, jpeg, svg). PNG and JPEG headers are read here;
 * anything else longer than the pool's PLATEN_CHECK_IN_THREAD_BYTES (an SVG: parsing 5 MB of it
 * took 100-145 ms) is checked on a render thread in the team's fair share.
 * @throws ApiError 400 VALIDATION_ERROR (path `file`) with the engine's reason it cannot be drawn.
 */
async function checkedImageType(bytes: Buffer, limits: ImageLimits, teamId: string, pool: RenderPool | undefined): Promise<CheckedImage['type']> {
  const rasterHeader = bytes[0] === 0x89 || (bytes[0] === 0xff && bytes[1] === 0xd8);
  if (pool && !rasterHeader && bytes.length > pool.limits.checkInThreadBytes) {
    let out;
    try {
      out = await pool.checkImage({ bytes, limits }, teamId);
    } catch (e) {
      throw stoppedCheck(e, 'file', 'send a simpler image');
    }
    if (out.ok) return out.type;
    throw validationError([{ path: 'file', message: uploadFault(new RenderError(out.code as RenderErrorCode, out.message)) }]);
  }
  try {
    return (await checkImageBytes(bytes, limits)).type;
  } catch (e) {
    if (!(e instanceof RenderError)) throw e;
    throw validationError([{ path: 'file', message: uploadFault(e) }]);
  }
}

/** The engine's reason an upload cannot be drawn, as the answer says it (with the variable of a limit). */
function uploadFault(e: RenderError): string {
  const other = /^image data is not a PNG, JPEG or SVG \(detected (\w+)\)/.exec(e.message);
  if (other) return `the file is not a PNG, JPEG or SVG image${other[1] === 'nothing' ? '' : ` (it looks like ${other[1].toUpperCase()})`}`;
  if (e.message === 'image data could not be decoded') return 'the file is not a PNG, JPEG or SVG image a render can decode';
  if (/pixels, more than/.test(e.message)) return `${e.message} (PLATEN_MAX_IMAGE_PIXELS)`;
  if (/more than \d+ elements/.test(e.message)) return `${e.message} (PLATEN_MAX_SVG_ELEMENTS)`;
  return e.message;
}

/** A file name fit to show back: the last path segment, control characters removed, at most 200 characters. */
function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  return clean || 'upload';
}

/** A page of the team's assets, newest first. */
export async function listAssets(db: Db, teamId: string, limit: number, offset: number): Promise<{ assets: AssetJson[]; total: number; limit: number; offset: number }> {
  const { orm, t } = db;
  const rows = await orm.select().from(t.assets).where(eq(t.assets.teamId, teamId)).orderBy(desc(t.assets.createdAt), desc(t.assets.id)).limit(limit).offset(offset);
  const [{ n }] = await orm.select({ n: count() }).from(t.assets).where(eq(t.assets.teamId, teamId));
  return { assets: rows.map(toAssetJson), total: Number(n), limit, offset };
}

/** The team's asset `id`, or null (unknown, deleted, or another team's). */
export async function findAsset(db: Db, teamId: string, id: string): Promise<AssetRow | null> {
  if (!ASSET_ID.test(id)) return null;
  const [row] = await db.orm.select().from(db.t.assets).where(and(eq(db.t.assets.id, id), eq(db.t.assets.teamId, teamId)));
  return row ?? null;
}

/**
 * Delete the team's asset `id`: the row, then the bytes. Templates that use it fail to render
 * from then on, naming it.
 * @throws ApiError 404 ASSET_NOT_FOUND.
 */
export async function deleteAsset(db: Db, store: BlobStore, teamId: string, id: string): Promise<void> {
  const row = await findAsset(db, teamId, id);
  if (!row) throw assetNotFound(id);
  await db.orm.delete(db.t.assets).where(and(eq(db.t.assets.id, id), eq(db.t.assets.teamId, teamId)));
  await store.delete(blobName(row));
}

/** The bytes of the team's asset `id`, or null when there is no such asset (or its bytes are gone). */
export async function assetBytes(db: Db, store: BlobStore, teamId: string, id: string): Promise<Buffer | null> {
  const row = await findAsset(db, teamId, id);
  if (!row) return null;
  const obj = await store.get(blobName(row));
  if (!obj) return null;
  const chunks: Buffer[] = [];
  for await (const c of obj.body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export function assetNotFound(id: string): ApiError {
  return new ApiError(404, 'ASSET_NOT_FOUND', `asset ${id} does not exist (or belongs to another team)`);
}
