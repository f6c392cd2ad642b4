/**
 * API keys (spec §5): `pk_` + 32 random bytes (base64url). Only the SHA-256 hash and a display
 * prefix are stored; the key itself is shown once, when it is created.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, isNull, like } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { apiKeys, teams } from '../../db/schema.ts';

const PREFIX_LENGTH = 11;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Create a key for a team. @returns the key (shown once) and its display prefix. */
export function createApiKey(db: Db, teamId: string): { apiKey: string; prefix: string } {
  const apiKey = `pk_${randomBytes(32).toString('base64url')}`;
  const prefix = apiKey.slice(0, PREFIX_LENGTH);
  db.insert(apiKeys).values({ id: randomUUID(), teamId, keyHash: hashKey(apiKey), prefix, createdAt: new Date().toISOString() }).run();
  return { apiKey, prefix };
}

/** The team of a valid (not revoked) key, or undefined. The lookup is by hash: no timing oracle on the key. */
export function teamOfKey(db: Db, apiKey: string): { teamId: string; keyId: string } | undefined {
  const row = db
    .select({ teamId: apiKeys.teamId, keyId: apiKeys.id })
    .from(apiKeys)
    .innerJoin(teams, eq(teams.id, apiKeys.teamId))
    .where(and(eq(apiKeys.keyHash, hashKey(apiKey)), isNull(apiKeys.revokedAt)))
    .get();
  return row;
}

/**
 * Revoke every active key whose display prefix starts with `prefix` (at least 8 characters).
 * @returns how many keys were revoked.
 */
export function revokeApiKeys(db: Db, prefix: string): number {
  if (prefix.length < 8) throw new Error('give at least 8 characters of the key prefix');
  const escaped = prefix.replace(/[\\%_]/g, (m) => `\\${m}`);
  return db
    .update(apiKeys)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(like(apiKeys.prefix, `${escaped}%`), isNull(apiKeys.revokedAt)))
    .run().changes;
}
