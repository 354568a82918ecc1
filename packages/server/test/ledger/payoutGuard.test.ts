import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db, inTransaction } from '../../src/db/database.ts';
import {
  COLLECTOR,
  InsufficientBalanceError,
  merchantAccount,
  ownerBalance,
  postLedgerEntry,
  postPayoutDecided,
  postPayoutSent,
  postPayoutVoided,
} from '../../src/ledger/ledger.ts';

const ASSET = 'eip155:31337/erc20:0x00000000000000000000000000000000000000aa';

type Step =
  | { kind: 'paid'; merchant: number; amount: bigint }
  /** Several payouts of one merchant decided at once, each in its own transaction. */
  | { kind: 'payouts'; merchant: number; amounts: bigint[] }
  | { kind: 'ended'; pick: number; landed: boolean };

const amount = fc.bigInt({ min: 1n, max: 1_000n });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('paid' as const), merchant: fc.nat(2), amount }),
  fc.record({
    kind: fc.constant('payouts' as const),
    merchant: fc.nat(2),
    amounts: fc.array(amount, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('ended' as const), pick: fc.nat(), landed: fc.boolean() }),
);

/**
 * Random sequences of payments, payouts decided at once in racing transactions (a settlement batch beside refunds),
 * and payouts that land or fail, over three merchants of one asset, on the real database: no merchant's account ever
 * goes below zero, every refusal was for a payout its merchant could not cover, and at the end each merchant's
 * balance and the collector's are exactly what was paid in less what was decided and landed.
 */
describe('payouts decided against the owner’s ledger account', () => {
  let db: Db;

  beforeAll(() => {
    db = connect(inject('databaseUrl'), 6);
  });
  afterAll(() => db?.destroy());

  it('never takes an account below zero, whatever the order and the races', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const run = randomUUID().slice(0, 8);
        const merchants = [0, 1, 2].map((index) => merchantAccount(`mrch_guard_${run}_${index}`));
        const balance = (account: string) => inTransaction(db, (trx) => ownerBalance(trx, account, ASSET));
        const model = merchants.map(() => 0n);
        let collector = 0n;
        const open: { entry: string; merchant: number; amount: bigint }[] = [];
        let sequence = 0;
        for (const current of steps) {
          sequence += 1;
          if (current.kind === 'paid') {
            const account = merchants[current.merchant] as string;
            await inTransaction(db, (trx) =>
              postLedgerEntry(trx, `payment:guard_${run}_${sequence}`, [
                { account: COLLECTOR, asset: ASSET, amount: current.amount },
                { account, asset: ASSET, amount: -current.amount },
              ]),
            );
            model[current.merchant] = (model[current.merchant] as bigint) + current.amount;
            collector += current.amount;
          } else if (current.kind === 'payouts') {
            const owner = merchants[current.merchant] as string;
            const before = model[current.merchant] as bigint;
            const outcomes = await Promise.all(
              current.amounts.map((value, index) => {
                const entry = `payout:guard_${run}_${sequence}_${index}`;
                return inTransaction(db, (trx) => postPayoutDecided(trx, entry, { owner, asset: ASSET, amount: value }))
                  .then(() => ({ entry, value, decided: true }))
                  .catch((error: unknown) => {
                    if (!(error instanceof InsufficientBalanceError)) throw error;
                    expect(error.balance).toBeLessThan(value);
                    return { entry, value, decided: false };
                  });
              }),
            );
            const decided = outcomes.filter((outcome) => outcome.decided);
            const taken = decided.reduce((sum, outcome) => sum + outcome.value, 0n);
            expect(taken).toBeLessThanOrEqual(before);
            // A payout is refused only when what was left after the others it raced could not cover it.
            for (const refused of outcomes.filter((outcome) => !outcome.decided)) {
              expect(before - taken).toBeLessThan(refused.value);
            }
            for (const outcome of decided)
              open.push({ entry: outcome.entry, merchant: current.merchant, amount: outcome.value });
            model[current.merchant] = before - taken;
          } else if (open.length) {
            const [ended] = open.splice(current.pick % open.length, 1);
            if (!ended) continue;
            const payout = { owner: merchants[ended.merchant] as string, asset: ASSET, amount: ended.amount };
            await inTransaction(db, (trx) =>
              current.landed
                ? postPayoutSent(trx, `${ended.entry}:sent`, payout)
                : postPayoutVoided(trx, `${ended.entry}:voided`, payout),
            );
            if (current.landed) collector -= ended.amount;
            else model[ended.merchant] = (model[ended.merchant] as bigint) + ended.amount;
          }
          for (const [index, account] of merchants.entries()) {
            const held = await balance(account);
            expect(held).toBeGreaterThanOrEqual(0n);
            expect(held).toBe(model[index]);
          }
        }
        const { sum } = await db
          .selectFrom('ledger_entries')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount'), eb.val('0')).as('sum'))
          .where('account', '=', COLLECTOR)
          .where('asset', '=', ASSET)
          .where('entry', 'like', `%guard_${run}_%`)
          .executeTakeFirstOrThrow();
        expect(BigInt(sum)).toBe(collector);
      }),
      { numRuns: 25 },
    );
  });
});
