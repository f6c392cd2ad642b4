/**
 * API keys (spec §5): `pk_` + 32 random bytes (base64url). Only the SHA-256 hash and a display
 * prefix are stored; the key itself is shown once, when it is created.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { perDatabase } from '../../db/prepared.ts';

const PREFIX_LENGTH = 11;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Create a key for a team. @returns the key (shown once) and its display prefix. */
export async function createApiKey(db: Db, teamId: string): Promise<{ apiKey: string; prefix: string }> {
  const apiKey = `pk_${randomBytes(32).toString('base64url')}`;
  const prefix = apiKey.slice(0, PREFIX_LENGTH);
  await db.orm.insert(db.t.apiKeys).values({ id: randomUUID(), teamId, keyHash: hashKey(apiKey), prefix, createdAt: new Date().toISOString() });
  return { apiKey, prefix };
}

/** The team of a valid (not revoked) key, or undefined. The lookup is by hash: no timing oracle on the key. */
export async function teamOfKey(db: Db, apiKey: string): Promise<{ teamId: string; keyId: string } | undefined> {
  const [row] = await keyLookup(db).execute({ keyHash: hashKey(apiKey) });
  return row;
}

const keyLookup = perDatabase(({ orm, t: { apiKeys, teams } }) =>
  orm
    .select({ teamId: apiKeys.teamId, keyId: apiKeys.id })
    .from(apiKeys)
    .innerJoin(teams, eq(teams.id, apiKeys.teamId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt)))
    .prepare('platen_key_lookup'),
);

/**
 * Revoke keys: the key itself, or every active key whose display prefix (its first 11
 * characters) starts with `prefix` (at least 8 characters; longer input is cut to 11).
 * @returns how many keys were revoked.
 */
export async function revokeApiKeys(db: Db, prefix: string): Promise<number> {
  if (prefix.length < 8) throw new Error('give at least 8 characters of the key');
  const { orm, t: { apiKeys } } = db;
  const now = new Date().toISOString();
  const exact = await orm.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.keyHash, hashKey(prefix)), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id });
  if (exact.length > 0) return exact.length;
  const escaped = prefix.slice(0, PREFIX_LENGTH).replace(/[\\%_]/g, (m) => `\\${m}`);
  const revoked = await orm
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(sql`${apiKeys.prefix} LIKE ${`${escaped}%`} ESCAPE '\\'`, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return revoked.length;
}
