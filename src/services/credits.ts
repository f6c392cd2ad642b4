/**
 * The credit ledger (spec §1, §8): one credit per generation, taken before rendering and given
 * back when rendering fails. Each change is one transaction that updates the balance and writes
 * the ledger row with the balance after it, so the two never disagree and the balance never goes
 * below zero (a guarded UPDATE, plus a CHECK constraint).
 */
import { and, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { perDatabase } from '../../db/prepared.ts';
import { creditTransactions, teams } from '../../db/schema.ts';
import { ApiError } from '../errors.ts';

export type CreditReason = 'generation' | 'refund' | 'grant';

const statements = perDatabase((db) => {
  // credits > floor keeps a debit from going below zero; floor -1 lets any grant or refund through.
  const apply = db
    .update(teams)
    .set({ credits: sql`${teams.credits} + ${sql.placeholder('delta')}` })
    .where(and(eq(teams.id, sql.placeholder('teamId')), gt(teams.credits, sql.placeholder('floor'))))
    .returning({ credits: teams.credits })
    .prepare();
  const record = db
    .insert(creditTransactions)
    .values({
      teamId: sql.placeholder('teamId'),
      delta: sql.placeholder('delta'),
      reason: sql.placeholder('reason'),
      jobId: sql.placeholder('jobId'),
      balanceAfter: sql.placeholder('balanceAfter'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare();
  // better-sqlite3's own transaction wrapper: BEGIN and COMMIT are prepared once, too.
  return db.$client.transaction((teamId: string, delta: number, reason: CreditReason, jobId: string | null): number | null => {
    const row = apply.get({ teamId, delta, floor: delta < 0 ? -delta - 1 : -1 });
    if (!row) return null;
    record.run({ teamId, delta, reason, jobId, balanceAfter: row.credits, createdAt: new Date().toISOString() });
    return row.credits;
  });
});

function change(db: Db, teamId: string, delta: number, reason: CreditReason, jobId: string | null): number | null {
  return statements(db)(teamId, delta, reason, jobId);
}

/**
 * Take one credit for a generation.
 * @returns the balance after.
 * @throws ApiError 402 INSUFFICIENT_CREDITS when the balance is 0.
 */
export function debitCredit(db: Db, teamId: string, jobId: string | null = null): number {
  const balance = change(db, teamId, -1, 'generation', jobId);
  if (balance === null) throw new ApiError(402, 'INSUFFICIENT_CREDITS', 'the team has no credits left');
  return balance;
}

/** Give back the credit of a failed generation. @returns the balance after. */
export function refundCredit(db: Db, teamId: string, jobId: string | null = null): number {
  return change(db, teamId, 1, 'refund', jobId)!;
}

/** Add credits (CLI, seed). @returns the balance after. */
export function grantCredits(db: Db, teamId: string, amount: number): number {
  if (!Number.isInteger(amount) || amount <= 0) throw new Error('amount must be a positive whole number');
  const balance = change(db, teamId, amount, 'grant', null);
  if (balance === null) throw new Error(`no team ${teamId}`);
  return balance;
}

/** A page of the team's ledger, newest first. */
export function listTransactions(db: Db, teamId: string, limit: number, offset: number) {
  const rows = db
    .select()
    .from(creditTransactions)
    .where(eq(creditTransactions.teamId, teamId))
    .orderBy(desc(creditTransactions.id))
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: sql<number>`count(*)` }).from(creditTransactions).where(eq(creditTransactions.teamId, teamId)).get()!.n;
  return {
    transactions: rows.map((r) => ({ id: r.id, delta: r.delta, reason: r.reason, job_id: r.jobId, balance_after: r.balanceAfter, created_at: r.createdAt })),
    total,
  };
}
