import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { newId } from '../../src/ids.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { feeSchedule, feesReport, minimumAmountFor, setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import { computeFees, FeeScheduleError, parsePercentage } from '../../src/settlement/fees.ts';
import { BASE_EURC, BASE_USDC } from '../support/fixtures.ts';
import { newPartner } from '../support/testServer.ts';

/**
 * Fee schedules in PostgreSQL and fees fixed by the one state-change function: random schedules and payments go
 * through the real tables and `changePaymentStatus`, and what is stored and reported must equal the pure fee math.
 */
describe('fee schedules and fees fixed on success', () => {
  let db: Db;
  const chains = new ChainRegistry(MAINNET_NETWORKS);

  beforeAll(() => {
    db = connect(inject('databaseUrl'), 4);
  });
  afterAll(() => db?.destroy());

  async function newMerchant(partnerId: string): Promise<string> {
    const id = newId('mrch');
    await db
      .insertInto('merchants')
      .values({ id, partner_id: partnerId, name: 'Fee Shop', email: 'fees@shop.example' })
      .execute();
    return id;
  }

  /** A payment paid with `tokenValue` units of `asset`, made succeeded through the one state-change function. */
  async function succeeded(
    partnerId: string,
    merchantId: string,
    currency: string,
    fiatValue: bigint,
    asset: string,
    tokenValue: bigint,
  ) {
    const id = newId('pay');
    await db
      .insertInto('payments')
      .values({
        id,
        partner_id: partnerId,
        merchant_id: merchantId,
        reference_id: id,
        status: 'processing',
        fiat_currency: currency,
        fiat_value: fiatValue,
        expires_at: new Date(Date.now() + 60_000),
        token_asset: asset,
        token_symbol: chains.token(asset)?.symbol ?? null,
        network: 'eip155:8453',
        token_value: tokenValue.toString(),
      })
      .execute();
    const { payment } = await changePaymentStatus(
      { db, chains, baseUrl: 'http://localhost', now: new Date() },
      id,
      'succeeded',
      { tx_hash: `0x${'ab'.repeat(32)}` },
    );
    return payment;
  }

  it('replaces the whole schedule, refuses unknown partners and duplicate currencies, and derives the minimum per currency', async () => {
    const { partnerId } = await newPartner(db);
    expect(await feeSchedule(db, partnerId)).toEqual({ percentage: '0', fixed: [] });
    expect(await minimumAmountFor(db, partnerId, 'USD')).toBe(1n);
    await setFeeSchedule(db, partnerId, {
      percentage: '2',
      fixed: [
        { currency: 'USD', amount: 49n },
        { currency: 'JPY', amount: 40n },
      ],
    });
    // 49 * 100 / 98 = 50, so 51 cents; JPY 40 * 100 / 98 = 40.8..., so 41 yen; EUR has no fixed fee.
    expect(await minimumAmountFor(db, partnerId, 'USD')).toBe(51n);
    expect(await minimumAmountFor(db, partnerId, 'JPY')).toBe(41n);
    expect(await minimumAmountFor(db, partnerId, 'EUR')).toBe(1n);
    await setFeeSchedule(db, partnerId, { percentage: '1.25', fixed: [{ currency: 'EUR', amount: 25n }] });
    expect(await feeSchedule(db, partnerId)).toEqual({ percentage: '1.25', fixed: [{ currency: 'EUR', amount: 25n }] });
    expect(await minimumAmountFor(db, partnerId, 'USD')).toBe(1n);
    await expect(setFeeSchedule(db, 'ptr_missing', { percentage: '1', fixed: [] })).rejects.toThrow(FeeScheduleError);
    await expect(
      setFeeSchedule(db, partnerId, {
        percentage: '1',
        fixed: [
          { currency: 'USD', amount: 1n },
          { currency: 'USD', amount: 2n },
        ],
      }),
    ).rejects.toThrow(/one fixed fee per currency/);
  });

  it('stores on every succeeded payment exactly the fees the math gives, and the report sums them, for random schedules and amounts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          percentage: fc.constantFrom('0', '0.5', '1.5', '2.9', '3.75', '12.3456', '49.99'),
          fixedUsd: fc.bigInt({ min: 0n, max: 500n }),
          payments: fc.array(
            fc.record({
              extra: fc.bigInt({ min: 0n, max: 10n ** 8n }),
              // Token units per cent: 10,000 is a 6-decimal USD coin at par; others stand for priced tokens.
              rate: fc.bigInt({ min: 1n, max: 10n ** 13n }),
              asset: fc.constantFrom(BASE_USDC, BASE_EURC),
            }),
            { minLength: 1, maxLength: 6 },
          ),
        }),
        async ({ percentage, fixedUsd, payments }) => {
          const { partnerId } = await newPartner(db);
          const merchantId = await newMerchant(partnerId);
          await setFeeSchedule(db, partnerId, { percentage, fixed: [{ currency: 'USD', amount: fixedUsd }] });
          const minimum = await minimumAmountFor(db, partnerId, 'USD');
          const expected = new Map<string, bigint>();
          for (const { extra, rate, asset } of payments) {
            const fiatValue = minimum + extra;
            const tokenValue = fiatValue * rate;
            const stored = await succeeded(partnerId, merchantId, 'USD', fiatValue, asset, tokenValue);
            const fees = computeFees({
              tokenAmount: tokenValue,
              fiatAmount: fiatValue,
              fixedFiat: fixedUsd,
              percentage: parsePercentage(percentage).value,
            });
            expect(stored).toMatchObject({
              fee_total: fees.total.toString(),
              fee_fixed: fees.fixed.toString(),
              fee_percentage: percentage,
              settlement_amount: fees.net.toString(),
            });
            expect(fees.net > 0n).toBe(true);
            expected.set(asset, (expected.get(asset) ?? 0n) + fees.total);
          }
          const report = await feesReport(db, partnerId);
          expect(Object.fromEntries(report.fees.map((line) => [line.asset, line.total]))).toEqual(
            Object.fromEntries([...expected].map(([asset, total]) => [asset, total.toString()])),
          );
          expect(report.fees.every((line) => line.settled === '0' && line.unsettled === line.total)).toBe(true);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
