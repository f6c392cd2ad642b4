/**
 * The credit ledger (spec §1, §8): one credit per generation, taken before rendering and given
 * back when rendering fails. Each change is one transaction that updates the balance and writes
 * the ledger row with the balance after it, so the two never disagree and the balance never goes
 * below zero (a conditional UPDATE, plus a CHECK constraint). This holds across any number of
 * processes on one PostgreSQL database: the UPDATE locks the team's row until the transaction ends,
 * so concurrent debits queue on it and each sees the balance the previous one left.
 *
 * A refund names what it gives back: the job (job_id) or the synchronous request (request_id).
 * The ledger allows one refund per job and per request (unique indexes), and a refund is written
 * first with ON CONFLICT DO NOTHING: a second one finds the first and changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { ApiError } from '../errors.ts';

export type CreditReason = 'generation' | 'refund' | 'grant';

/** What a ledger row belongs to: a job, a synchronous request, or neither (grants). */
export interface CreditKey {
  jobId?: string | null;
  requestId?: string | null;
}

/**
 * One ledger change inside transaction `tx`.
 * @returns the balance after and the ledger row's id; null when a debit found no credit, or when
 *   the refund was applied already.
 */
async function applyChange(tx: Db, teamId: string, delta: number, reason: CreditReason, key: CreditKey): Promise<{ balance: number; transactionId: number } | null> {
  const { orm, t } = tx;
  const entry = { teamId, delta, reason, jobId: key.jobId ?? null, requestId: key.requestId ?? null, createdAt: new Date().toISOString() };
  if (reason === 'refund') {
    // The ledger row first: its unique key (job or request, reason) lets one refund through.
    const [row] = await orm.insert(t.creditTransactions).values({ ...entry, balanceAfter: 0 }).onConflictDoNothing().returning({ id: t.creditTransactions.id });
    if (!row) return null;
    const [team] = await orm.update(t.teams).set({ credits: sql`${t.teams.credits} + ${delta}` }).where(eq(t.teams.id, teamId)).returning({ credits: t.teams.credits });
    if (!team) throw new Error(`no team ${teamId}`);
    await orm.update(t.creditTransactions).set({ balanceAfter: team.credits }).where(eq(t.creditTransactions.id, row.id));
    return { balance: team.credits, transactionId: row.id };
  }
  // credits > floor keeps a debit from going below zero; floor -1 lets any grant through.
  const floor = delta < 0 ? -delta - 1 : -1;
  const [team] = await orm
    .update(t.teams)
    .set({ credits: sql`${t.teams.credits} + ${delta}` })
    .where(and(eq(t.teams.id, teamId), gt(t.teams.credits, floor)))
    .returning({ credits: t.teams.credits });
  if (!team) return null;
  const [row] = await orm.insert(t.creditTransactions).values({ ...entry, balanceAfter: team.credits }).returning({ id: t.creditTransactions.id });
  return { balance: team.credits, transactionId: row.id };
}

async function change(db: Db, teamId: string, delta: number, reason: CreditReason, key: CreditKey): Promise<number | null> {
  return (await db.transaction((tx) => applyChange(tx, teamId, delta, reason, key)))?.balance ?? null;
}

/**
 * Take one credit for a generation (inside the caller's transaction when `db` is one).
 * @returns the balance after.
 * @throws ApiError 402 INSUFFICIENT_CREDITS when the balance is 0.
 */
export async function debitCredit(db: Db, teamId: string, jobId: string | null = null): Promise<number> {
  const balance = await change(db, teamId, -1, 'generation', { jobId });
  if (balance === null) throw new ApiError(402, 'INSUFFICIENT_CREDITS', 'the team has no credits left');
  return balance;
}

/**
 * Give back the credit of job `jobId`'s generation (inside the caller's transaction when `db` is
 * one). @returns the balance after, or null when the job's credit was refunded already.
 */
export async function refundCredit(db: Db, teamId: string, jobId: string): Promise<number | null> {
  return change(db, teamId, 1, 'refund', { jobId });
}

/**
 * Take one credit for a synchronous generation and note it as pending until the request settles
 * (settleSyncGeneration or refundSyncGeneration), in one transaction, so that a debit whose
 * request never ended (the process died) can be refunded later (refundUnsettledSyncGenerations).
 * @returns the balance after, and the pending debit's id.
 * @throws ApiError 402 INSUFFICIENT_CREDITS when the balance is 0.
 */
export async function debitSyncGeneration(db: Db, teamId: string): Promise<{ balance: number; pendingId: number }> {
  const debit = await db.transaction(async (tx) => {
    const change = await applyChange(tx, teamId, -1, 'generation', { requestId: randomUUID() });
    if (!change) return null;
    const { orm, t } = tx;
    const [pending] = await orm
      .insert(t.pendingSyncDebits)
      .values({ teamId, transactionId: change.transactionId, createdAt: new Date().toISOString() })
      .returning({ id: t.pendingSyncDebits.id });
    return { balance: change.balance, pendingId: pending.id };
  });
  if (!debit) throw new ApiError(402, 'INSUFFICIENT_CREDITS', 'the team has no credits left');
  return debit;
}

/** The synchronous generation `pendingId` succeeded: its debit stands. */
export async function settleSyncGeneration(db: Db, pendingId: number): Promise<void> {
  const { orm, t } = db;
  await orm.delete(t.pendingSyncDebits).where(eq(t.pendingSyncDebits.id, pendingId));
}

/**
 * The synchronous generation `pendingId` failed: give its credit back, in the transaction that
 * closes the pending debit, keyed on the request, so it is refunded once even if this runs twice
 * (on any number of nodes).
 * @returns the balance after, or null if the debit was settled or refunded already.
 */
export async function refundSyncGeneration(db: Db, teamId: string, pendingId: number): Promise<number | null> {
  return db.transaction(async (tx) => {
    const { orm, t } = tx;
    const [pending] = await orm.delete(t.pendingSyncDebits).where(eq(t.pendingSyncDebits.id, pendingId)).returning({ transactionId: t.pendingSyncDebits.transactionId });
    if (!pending) return null;
    const [debit] = await orm.select({ requestId: t.creditTransactions.requestId }).from(t.creditTransactions).where(eq(t.creditTransactions.id, pending.transactionId));
    // A debit written before request ids existed is keyed on its own ledger id.
    const requestId = debit?.requestId ?? `ledger:${pending.transactionId}`;
    return (await applyChange(tx, teamId, 1, 'refund', { requestId }))?.balance ?? null;
  });
}

/**
 * Refund every synchronous generation left unsettled (its process died while rendering), each in
 * its own transaction with the removal of its pending row. `olderThan`: only those debited before
 * it (several processes share the database: a younger one may still be rendering); default: all
 * (at the start of the only process of a SQLite database).
 * @returns how many were refunded.
 */
export async function refundUnsettledSyncGenerations(db: Db, olderThan?: Date): Promise<number> {
  const { orm, t } = db;
  const rows = await orm
    .select({ id: t.pendingSyncDebits.id, teamId: t.pendingSyncDebits.teamId })
    .from(t.pendingSyncDebits)
    .where(olderThan ? lt(t.pendingSyncDebits.createdAt, olderThan.toISOString()) : undefined)
    .orderBy(t.pendingSyncDebits.id);
  let refunded = 0;
  for (const row of rows) if ((await refundSyncGeneration(db, row.teamId, row.id)) !== null) refunded++;
  return refunded;
}

/** Add credits (CLI, seed). @returns the balance after. */
export async function grantCredits(db: Db, teamId: string, amount: number): Promise<number> {
  if (!Number.isInteger(amount) || amount <= 0) throw new Error('amount must be a positive whole number');
  const balance = await change(db, teamId, amount, 'grant', {});
  if (balance === null) throw new Error(`no team ${teamId}`);
  return balance;
}

/** A page of the team's ledger, newest first. */
export async function listTransactions(db: Db, teamId: string, limit: number, offset: number) {
  const { orm, t } = db;
  const rows = await orm
    .select()
    .from(t.creditTransactions)
    .where(eq(t.creditTransactions.teamId, teamId))
    .orderBy(desc(t.creditTransactions.id))
    .limit(limit)
    .offset(offset);
  const [{ n: total }] = await orm.select({ n: count() }).from(t.creditTransactions).where(eq(t.creditTransactions.teamId, teamId));
  return {
    transactions: rows.map((r) => ({ id: r.id, delta: r.delta, reason: r.reason, job_id: r.jobId, balance_after: r.balanceAfter, created_at: r.createdAt })),
    total,
  };
}
