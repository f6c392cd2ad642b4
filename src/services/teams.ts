/** Teams: creation (with a first API key and an opening grant of credits) and lookup. */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { teams } from '../../db/schema.ts';
import { grantCredits } from './credits.ts';
import { createApiKey } from './keys.ts';

/**
 * Create a team with `credits` credits and one API key, in one transaction: a failure leaves no
 * team behind (the grant's own transaction nests as a savepoint). The key is returned once.
 */
export function createTeam(db: Db, name: string, credits: number): { teamId: string; apiKey: string } {
  if (!name.trim()) throw new Error('a team needs a name');
  return db.$client.transaction(() => {
    const teamId = randomUUID();
    db.insert(teams).values({ id: teamId, name, credits: 0, createdAt: new Date().toISOString() }).run();
    if (credits > 0) grantCredits(db, teamId, credits);
    const { apiKey } = createApiKey(db, teamId);
    return { teamId, apiKey };
  })();
}

export function getTeam(db: Db, teamId: string) {
  return db.select().from(teams).where(eq(teams.id, teamId)).get();
}
