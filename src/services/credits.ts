/**
 * The credit ledger (spec §1, §8): one credit per generation, taken before rendering and given
 * back when rendering fails. Each change is one transaction that updates the balance and writes
 * the ledger row with the balance after it, so the two never disagree and the balance never goes
 * below zero (a guarded UPDATE, plus a CHECK constraint).
 */
import { and, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/open.ts';
import { perDatabase } from '../../db/prepared.ts';
import { creditTransactions, pendingSyncDebits, teams } from '../../db/schema.ts';
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
  const addPending = db
    .insert(pendingSyncDebits)
    .values({ teamId: sql.placeholder('teamId'), transactionId: sql.placeholder('transactionId'), createdAt: sql.placeholder('createdAt') })
    .prepare();
  const removePending = db.delete(pendingSyncDebits).where(eq(pendingSyncDebits.id, sql.placeholder('id'))).prepare();
  /** One ledger change; @returns the balance after and the ledger row's id, or null when a debit found no credit. */
  const changeRow = (teamId: string, delta: number, reason: CreditReason, jobId: string | null): { balance: number; transactionId: number } | null => {
    const row = apply.get({ teamId, delta, floor: delta < 0 ? -delta - 1 : -1 });
    if (!row) return null;
    const { lastInsertRowid } = record.run({ teamId, delta, reason, jobId, balanceAfter: row.credits, createdAt: new Date().toISOString() });
    return { balance: row.credits, transactionId: Number(lastInsertRowid) };
  };
  // better-sqlite3's own transaction wrapper: BEGIN and COMMIT are prepared once, too.
  const tx = db.$client.transaction.bind(db.$client);
  return {
    change: tx((teamId: string, delta: number, reason: CreditReason, jobId: string | null): number | null => changeRow(teamId, delta, reason, jobId)?.balance ?? null),
    debitSync: tx((teamId: string): { balance: number; pendingId: number } | null => {
      const debit = changeRow(teamId, -1, 'generation', null);
      if (!debit) return null;
      const { lastInsertRowid } = addPending.run({ teamId, transactionId: debit.transactionId, createdAt: new Date().toISOString() });
      return { balance: debit.balance, pendingId: Number(lastInsertRowid) };
    }),
    settleSync: (id: number): boolean => removePending.run({ id }).changes === 1,
    refundSync: tx((teamId: string, id: number): number | null => (removePending.run({ id }).changes === 1 ? changeRow(teamId, 1, 'refund', null)!.balance : null)),
  };
});

function change(db: Db, teamId: string, delta: number, reason: CreditReason, jobId: string | null): number | null {
  return statements(db).change(teamId, delta, reason, jobId);
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

/**
 * Take one credit for a synchronous generation and note it as pending until the request settles
 * (settleSyncDebit or refundSyncDebit), in one transaction, so that a debit whose request never
 * ended (the process died) can be refunded at the next start (refundUnsettledSyncDebits).
 * @returns the balance after, and the pending debit's id.
 * @throws ApiError 402 INSUFFICIENT_CREDITS when the balance is 0.
 */
export function debitSyncGeneration(db: Db, teamId: string): { balance: number; pendingId: number } {
  const debit = statements(db).debitSync(teamId);
  if (!debit) throw new ApiError(402, 'INSUFFICIENT_CREDITS', 'the team has no credits left');
  return debit;
}

/** The synchronous generation `pendingId` succeeded: its debit stands. */
export function settleSyncGeneration(db: Db, pendingId: number): void {
  statements(db).settleSync(pendingId);
}

/**
 * The synchronous generation `pendingId` failed: give its credit back, in the transaction that
 * closes the pending debit, so it is refunded once even if this runs twice.
 * @returns the balance after, or null if the debit was settled or refunded already.
 */
export function refundSyncGeneration(db: Db, teamId: string, pendingId: number): number | null {
  return statements(db).refundSync(teamId, pendingId);
}

/**
 * At start: refund every synchronous generation a previous process left unsettled (it died while
 * rendering), each in its own transaction with the removal of its pending row.
 * @returns how many were refunded.
 */
export function refundUnsettledSyncGenerations(db: Db): number {
  const rows = db.select({ id: pendingSyncDebits.id, teamId: pendingSyncDebits.teamId }).from(pendingSyncDebits).orderBy(pendingSyncDebits.id).all();
  let refunded = 0;
  for (const row of rows) if (refundSyncGeneration(db, row.teamId, row.id) !== null) refunded++;
  return refunded;
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
