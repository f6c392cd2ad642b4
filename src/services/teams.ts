/** Teams: creation (with a first API key and an opening grant of credits) and lookup. */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { grantCredits } from './credits.ts';
import { createApiKey } from './keys.ts';

/**
 * Create a team with `credits` credits and one API key, in one transaction: a failure leaves no
 * team behind (the grant runs in the same transaction). The key is returned once.
 */
export async function createTeam(db: Db, name: string, credits: number): Promise<{ teamId: string; apiKey: string }> {
  if (!name.trim()) throw new Error('a team needs a name');
  return db.transaction(async (tx) => {
    const teamId = randomUUID();
    await tx.orm.insert(tx.t.teams).values({ id: teamId, name, credits: 0, createdAt: new Date().toISOString() });
    if (credits > 0) await grantCredits(tx, teamId, credits);
    const { apiKey } = await createApiKey(tx, teamId);
    return { teamId, apiKey };
  });
}

/** The team `teamId`, or undefined. */
export async function getTeam(db: Db, teamId: string) {
  const [row] = await db.orm.select().from(db.t.teams).where(eq(db.t.teams.id, teamId));
  return row;
}
