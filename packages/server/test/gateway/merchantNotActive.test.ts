import type { Updateable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantsTable } from '../../src/db/schema.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { expectErrorBody } from '../support/testServer.ts';
import { type GatewayTestbed, signTypedDataAsWallet, startGatewayTestbed } from './support/gatewayTestbed.ts';

describe('the payment links of a merchant that is not active', () => {
  let bed: GatewayTestbed;

  beforeAll(async () => {
    bed = await startGatewayTestbed();
  }, 180_000);
  afterAll(async () => {
    await bed?.close();
  });

  /** As an operator's command or the partner's delete would: the row changes, and this process drops its copy. */
  async function changeMerchant(merchantId: string, changes: Updateable<MerchantsTable>): Promise<void> {
    await bed.server.db.updateTable('merchants').set(changes).where('id', '=', merchantId).execute();
    bed.server.ctx.merchants.invalidate(merchantId);
  }

  /** A payment of a merchant of its own, with an EVM USDC option signed by the buyer and a Solana build option. */
  async function offeredPayment() {
    const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
    const { paymentId } = await createPayment(bed.server, bed.partner.apiKey, merchantId);
    const offered = await bed.gateway(paymentId, '/options', {
      accounts: [bed.evmAccount('alice'), bed.solanaAccount('erin')],
    });
    expect(offered.status, offered.text).toBe(200);
    const evm = offered.body.options.find(
      (option: any) => option.account === bed.evmAccount('alice') && option.amount.display.assetSymbol === 'USDC',
    );
    const solana = offered.body.options.find((option: any) => option.account === bed.solanaAccount('erin'));
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, evm.actions[0].data.params);
    return {
      merchantId,
      paymentId,
      options: () => bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] }),
      fetch: () => bed.gateway(paymentId, '/fetch', { optionId: solana.id, data: solana.actions[0].data.data }),
      confirm: (query = '') =>
        bed.gateway(paymentId, `/confirm${query}`, {
          optionId: evm.id,
          results: [{ type: 'walletRpc', data: [signature] }],
        }),
    };
  }

  async function expectRefused(payment: Awaited<ReturnType<typeof offeredPayment>>): Promise<void> {
    for (const [name, send] of [
      ['options', payment.options],
      ['fetch', payment.fetch],
      ['confirm', payment.confirm],
    ] as const) {
      const result = await send();
      expect([result.status, expectErrorBody(result).code], `${name}: ${result.text}`).toEqual([
        403,
        'merchant_not_active',
      ]);
    }
    // Still shown, and still payable once the merchant may take payments again: nothing was recorded.
    expect((await bed.gateway(payment.paymentId, '')).body.status).toBe('requires_action');
    expect(
      await bed.server.db
        .selectFrom('payment_confirmations')
        .select('payment_id')
        .where('payment_id', '=', payment.paymentId)
        .execute(),
    ).toEqual([]);
  }

  it.each(['inactive', 'suspended'] as const)(
    'refuses options, fetch and confirm while the merchant is %s (403 merchant_not_active), and takes them once it is active',
    async (status) => {
      const payment = await offeredPayment();
      await changeMerchant(payment.merchantId, { status });
      await expectRefused(payment);

      await changeMerchant(payment.merchantId, { status: 'active' });
      expect((await payment.options()).status).toBe(200);
      expect((await payment.fetch()).status).toBe(200);
      const confirmed = await payment.confirm();
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(await bed.finalStatus(payment.paymentId)).toMatchObject({ status: 'succeeded' });
    },
  );

  it('refuses options, fetch and confirm of a deleted merchant, whatever its status, and lets the buyer decline', async () => {
    const payment = await offeredPayment();
    await changeMerchant(payment.merchantId, { deleted_at: new Date() });
    await expectRefused(payment);
    const declined = await bed.gateway(payment.paymentId, '/cancel', {});
    expect(declined.body).toMatchObject({ status: 'cancelled', cancelledReason: 'cancelled_by_user' });
  });

  it('pays a confirmation accepted before the merchant was suspended: the buyer had already authorised it', async () => {
    const payment = await offeredPayment();
    const confirmed = await payment.confirm('?maxPollMs=0');
    expect(confirmed.status, confirmed.text).toBe(200);
    await changeMerchant(payment.merchantId, { status: 'suspended' });
    expect(await bed.finalStatus(payment.paymentId)).toMatchObject({ status: 'succeeded' });
  });
});
