import { describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { inTransaction } from '../../src/db/database.ts';
import { paymentTransferOutcomes } from '../../src/gateway/transferOutcomes.ts';
import { auditUnattributed } from '../../src/ledger/audit.ts';
import { silentLogger } from '../../src/log.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';
import { newPartner } from '../support/testServer.ts';

const USDC = 'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3';

describe("a payment's transfer that lands after the payment is final", () => {
  it('is held by the collector as unattributed for the merchant, once, and the audit shows it', async () => {
    const { db } = await isolatedTestDatabase();
    const partner = await newPartner(db);
    await db
      .insertInto('merchants')
      .values({ id: 'mrch_late', partner_id: partner.partnerId, name: 'Late Shop', email: 'late@shop.example' })
      .execute();
    // The submission gave up and failed the payment; its EIP-3009 transfer then confirmed on chain.
    await db
      .insertInto('payments')
      .values({
        id: 'pay_late_transfer',
        partner_id: partner.partnerId,
        merchant_id: 'mrch_late',
        reference_id: 'late',
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() + 600_000),
        status: 'failed',
        failure_code: 'transfer_not_mined',
        token_asset: USDC,
        token_value: '10000000',
      })
      .execute();
    const outcome = paymentTransferOutcomes({
      chains: new ChainRegistry([]),
      baseUrl: () => 'http://localhost',
      clock: { now: () => new Date() },
      log: silentLogger,
    });
    const landed = {
      chain: 'eip155:31337',
      purpose: 'eip3009_receive',
      reference: 'pay_late_transfer',
      status: 'confirmed' as const,
      hash: `0x${'5a'.repeat(32)}`,
      nonce: '7',
      reason: null,
    };
    await inTransaction(db, (trx) => outcome(trx, landed));
    await inTransaction(db, (trx) => outcome(trx, landed));

    const payment = await db
      .selectFrom('payments')
      .select('status')
      .where('id', '=', 'pay_late_transfer')
      .executeTakeFirst();
    expect(payment?.status).toBe('failed');
    expect(
      await db.selectFrom('ledger_entries').select(['entry', 'account', 'amount']).orderBy('account').execute(),
    ).toEqual([
      { entry: `late_transfer:${landed.hash}`, account: 'collector', amount: '10000000' },
      { entry: `late_transfer:${landed.hash}`, account: 'unattributed:mrch_late', amount: '-10000000' },
    ]);
    expect(await auditUnattributed(db)).toEqual([
      { merchantId: 'mrch_late', asset: USDC, ledger: '10000000', records: '0', difference: '10000000' },
    ]);
  });
});
