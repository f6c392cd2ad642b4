/**
 * The credit ledger (spec §1, §8): one credit per generation, taken before rendering and given
 * back when rendering fails. Each change is one transaction that updates the balance and writes
 * the ledger row with the balance after it, so the two never disagree and the balance never goes
 * below zero (a guarded UPDATE, plus a CHECK constraint).
 */
import { and, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { creditTransactions, teams } from '../../db/schema.ts';
import { ApiError } from '../errors.ts';

export type CreditReason = 'generation' | 'refund' | 'grant';

function change(db: Db, teamId: string, delta: number, reason: CreditReason, jobId: string | null): number | null {
  return db.transaction((tx) => {
    const guard = delta < 0 ? and(eq(teams.id, teamId), gt(teams.credits, -delta - 1)) : eq(teams.id, teamId);
    const row = tx
      .update(teams)
      .set({ credits: sql`${teams.credits} + ${delta}` })
      .where(guard)
      .returning({ credits: teams.credits })
      .get();
    if (!row) return null;
    tx.insert(creditTransactions).values({ teamId, delta, reason, jobId, balanceAfter: row.credits, createdAt: new Date().toISOString() }).run();
    return row.credits;
  });
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

export function balanceOf(db: Db, teamId: string): number {
  return db.select({ credits: teams.credits }).from(teams).where(eq(teams.id, teamId)).get()?.credits ?? 0;
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
