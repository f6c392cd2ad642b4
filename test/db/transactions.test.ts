/**
 * Transactions on the one SQLite connection (db/sqlite.ts, db/transaction-gate.ts): while a
 * transaction's callback awaits, other callers' statements wait for it to end instead of running
 * inside it, so a rollback never takes them along and a commit never carries them early.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { openSqlite, type SqliteDb } from '../../db/sqlite.ts';
import { createTeam, getTeam } from '../../src/services/teams.ts';

let dir: string;
let db: SqliteDb;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'platen-tx-'));
  db = openSqlite(join(dir, 'platen.db'));
});
after(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insertTeam = (id: string) => db.orm.insert(db.t.teams).values({ id, name: id, credits: 0, createdAt: new Date().toISOString() });

test('a statement issued while a transaction awaits runs after it, outside it: the rollback keeps it', async () => {
  const events: string[] = [];
  let inside!: () => void;
  const begun = new Promise<void>((resolve) => (inside = resolve));
  const failing = db.transaction(async (tx) => {
    await tx.orm.insert(tx.t.teams).values({ id: 'rolled-back', name: 'x', credits: 0, createdAt: new Date().toISOString() });
    inside();
    await sleep(50); // a real wait: other callers' code runs meanwhile
    events.push('transaction body done');
    throw new Error('roll back');
  });
  await begun;
  const outside = insertTeam('kept').then(() => events.push('outside insert done'));
  await assert.rejects(failing, /roll back/);
  await outside;
  assert.deepEqual(events, ['transaction body done', 'outside insert done'], 'the outside statement waited for the transaction');
  assert.equal(await getTeam(db, 'rolled-back'), undefined, 'the transaction was rolled back');
  assert.ok(await getTeam(db, 'kept'), 'the outside insert was not rolled back with it');
});

test('the transaction does not see, and does not commit, a statement issued while it runs', async () => {
  await insertTeam('counted');
  let inside!: () => void;
  const begun = new Promise<void>((resolve) => (inside = resolve));
  const reads: number[] = [];
  const reading = db.transaction(async (tx) => {
    const read = async () => (await tx.orm.select().from(tx.t.teams).where(eq(tx.t.teams.id, 'counted')))[0].credits;
    reads.push(await read());
    inside();
    await sleep(50);
    reads.push(await read());
  });
  await begun;
  const update = db.orm.update(db.t.teams).set({ credits: 7 }).where(eq(db.t.teams.id, 'counted'));
  await reading;
  await update;
  assert.deepEqual(reads, [0, 0], 'the outside update ran after the transaction');
  assert.equal((await getTeam(db, 'counted'))?.credits, 7);
});

test('many transactions and plain statements at once: each transaction is all or nothing', async () => {
  const work = Array.from({ length: 40 }, (_, i) =>
    i % 2 === 0
      ? db.transaction(async (tx) => {
          await tx.orm.insert(tx.t.teams).values({ id: `tx-${i}`, name: 'a', credits: 0, createdAt: new Date().toISOString() });
          await sleep(1);
          if (i % 4 === 0) throw new Error('no');
          await tx.orm.update(tx.t.teams).set({ name: 'b' }).where(eq(tx.t.teams.id, `tx-${i}`));
        }).catch(() => undefined)
      : insertTeam(`plain-${i}`),
  );
  await Promise.all(work);
  for (let i = 0; i < 40; i++) {
    const team = await getTeam(db, i % 2 === 0 ? `tx-${i}` : `plain-${i}`);
    if (i % 2 === 1) assert.ok(team, `plain insert ${i} kept`);
    else if (i % 4 === 0) assert.equal(team, undefined, `transaction ${i} rolled back whole`);
    else assert.equal(team?.name, 'b', `transaction ${i} committed whole`);
  }
});

test('a transaction inside a transaction runs in it (one commit, one rollback)', async () => {
  await assert.rejects(
    db.transaction(async (tx) => {
      await createTeam(tx, 'Nested', 3); // opens its own transaction: joins this one
      throw new Error('outer fails');
    }),
    /outer fails/,
  );
  const [{ n }] = await db.client.prepare("select count(*) as n from teams where name = 'Nested'").raw(false).all() as { n: number }[];
  assert.equal(n, 0, 'the nested work was rolled back with the outer transaction');
});
