import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPaymentStats } from '../../src/payments/paymentStatsFold.ts';
import { createMerchant } from '../support/fixtures.ts';
import { newPartner, startTestServer, type TestServer } from '../support/testServer.ts';

const STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'] as const;
const BUYERS = [null, 'eip155:1:0xaa', 'eip155:1:0xbb', 'solana:x:Cc'] as const;
const TOKENS = [
  [null, null],
  ['USDC', 'eip155:8453'],
  ['usdt', 'eip155:1'],
] as const;

/** One update of a payment's counted columns, as the service's state changes (or an operator's fix) make them. */
const change = fc.record({
  payment: fc.nat({ max: 5 }),
  status: fc.constantFrom(...STATUSES),
  buyer: fc.constantFrom(...BUYERS),
  token: fc.constantFrom(...TOKENS),
});

describe('the statistics trigger keeps daily totals and buyer counts equal to the payments they count', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('after any sequence of updates, inserts and deletes, the kept tables equal a count over the payments themselves', async () => {
    const partner = await newPartner(server.db);
    const merchants = [
      (await createMerchant(server, partner.apiKey)).id,
      (await createMerchant(server, partner.apiKey)).id,
    ];
    const kept = async () => {
      await foldPaymentStats(server.db);
      const rows = await sql<{ kind: string; key: string; count: string }>`
        SELECT 'daily' AS kind, concat_ws('|', merchant_id, day, status, fiat_currency, token_symbol, network) AS key,
               payments || '/' || fiat_total AS count
        FROM payment_daily_stats WHERE merchant_id = ANY(${merchants}) AND payments <> 0
        UNION ALL
        SELECT 'merchant', concat_ws('|', merchant_id, buyer_account), payments::text
        FROM merchant_buyers WHERE merchant_id = ANY(${merchants})
        UNION ALL
        SELECT 'group', concat_ws('|', merchant_id, token_symbol, network, status, buyer_account), payments::text
        FROM payment_buyers WHERE merchant_id = ANY(${merchants})
        ORDER BY 1, 2`.execute(server.db);
      return rows.rows;
    };
    const counted = async () => {
      const rows = await sql<{ kind: string; key: string; count: string }>`
        SELECT 'daily' AS kind, concat_ws('|', merchant_id, (created_at AT TIME ZONE 'UTC')::date, status, fiat_currency,
               coalesce(upper(token_symbol), ''), coalesce(network, '')) AS key, count(*) || '/' || sum(fiat_value) AS count
        FROM payments WHERE merchant_id = ANY(${merchants}) GROUP BY 1, 2
        UNION ALL
        SELECT 'merchant', concat_ws('|', merchant_id, buyer_account), count(*)::text
        FROM payments WHERE merchant_id = ANY(${merchants}) AND buyer_account IS NOT NULL GROUP BY 1, 2
        UNION ALL
        SELECT 'group', concat_ws('|', merchant_id, coalesce(upper(token_symbol), ''), coalesce(network, ''), status, buyer_account),
               count(*)::text
        FROM payments WHERE merchant_id = ANY(${merchants}) AND buyer_account IS NOT NULL GROUP BY 1, 2
        ORDER BY 1, 2`.execute(server.db);
      return rows.rows;
    };

    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 25 }), async (changes) => {
        round += 1;
        const ids = Array.from({ length: 6 }, (_, index) => `pay_trigger_${partner.partnerId}_${round}_${index}`);
        await server.db
          .insertInto('payments')
          .values(
            ids.map((id, index) => ({
              id,
              partner_id: partner.partnerId,
              merchant_id: merchants[index % 2] as string,
              reference_id: id,
              fiat_currency: 'USD',
              fiat_value: String(100 + index),
              expires_at: new Date(Date.now() + 600_000),
            })),
          )
          .execute();
        for (const { payment, status, buyer, token } of changes) {
          await server.db
            .updateTable('payments')
            .set({ status, buyer_account: buyer, token_symbol: token[0], network: token[1] })
            .where('id', '=', ids[payment] as string)
            .execute();
        }
        await server.db
          .deleteFrom('payments')
          .where('id', '=', ids[0] as string)
          .execute();
        expect(await kept()).toEqual(await counted());
      }),
      { numRuns: 30, seed: 20261125 },
    );
  });
});
