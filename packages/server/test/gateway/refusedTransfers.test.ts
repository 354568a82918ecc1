import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeTransferReference } from '../../src/chains/evm/nativeTransfer.ts';
import type { NetworkInfo } from '../../src/chains/registry.ts';
import { buyersAccount } from '../../src/ledger/ledger.ts';
import { setMerchantStatus } from '../../src/merchants/merchantStatus.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { call, expectErrorBody } from '../support/testServer.ts';
import { type GatewayTestbed, sendTransactionAsWallet, startGatewayTestbed } from './support/gatewayTestbed.ts';

/**
 * Coins a buyer sent to the collector that a confirm refused (another sender than the option's, no reference) are
 * still that sender's money: once final they are the payment's `refused` exception, held for the sender in the ledger,
 * and the merchant can send them back. Nothing is held twice, and a transfer made for another payment stays that
 * payment's.
 */
describe('transfers to the collector a confirm refused', () => {
  let bed: GatewayTestbed;

  beforeAll(async () => {
    bed = await startGatewayTestbed();
  }, 180_000);
  afterAll(() => bed?.close());

  const evmChain = () => ({ chainId: bed.devnet.manifest.evm[0]!.chainId, rpcUrl: bed.devnet.manifest.evm[0]!.rpcUrl });
  const network = () => bed.chains.network(bed.evmChain()) as NetworkInfo;
  const client = () => bed.services.evm.clients.for(network());
  const ether = () => network().tokens.find((token) => token.method === 'native')!;
  const headers = () => ({ 'api-key': bed.partner.apiKey, 'merchant-id': bed.merchantId });

  async function ethOption(paymentId: string, buyerName: string) {
    const response = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount(buyerName)] });
    expect(response.status, response.text).toBe(200);
    const option = response.body.options.find((candidate: any) => candidate.amount.display.assetSymbol === 'ETH');
    expect(option).toBeDefined();
    return option;
  }

  /** A coin transfer to the collector sent by `buyerName`, mined. */
  async function sendCoins(buyerName: string, value: string, data?: Hex): Promise<Hex> {
    const buyer = bed.buyer(buyerName);
    const transaction = {
      from: buyer.evmAddress,
      to: bed.services.evm.collector,
      value: `0x${BigInt(value).toString(16)}`,
      ...(data ? { data } : {}),
    };
    const hash = (await sendTransactionAsWallet(buyer.evmPrivateKey, evmChain(), JSON.stringify([transaction]))) as Hex;
    await client().waitForTransactionReceipt({ hash, pollingInterval: 200 });
    return hash;
  }

  const confirm = (paymentId: string, optionId: string, hash: string) =>
    bed.gateway(paymentId, '/confirm', { optionId, results: [{ type: 'walletRpc', data: [hash] }] });

  async function refusedReason(paymentId: string, optionId: string, hash: string) {
    const response = await confirm(paymentId, optionId, hash);
    expect(response.status, response.text).toBe(400);
    expect(expectErrorBody(response).code).toBe('invalid_params');
    return response.body.details?.reason;
  }

  const paymentOf = async (paymentId: string) =>
    (await call(bed.server, `/v1/payments/${paymentId}`, { headers: headers() })).body;

  async function heldExceptions(paymentId: string, count: number) {
    await expect
      .poll(async () => (await paymentOf(paymentId)).exceptions?.length ?? 0, { timeout: 30_000, interval: 200 })
      .toBe(count);
    return (await paymentOf(paymentId)).exceptions;
  }

  const buyersBalance = () => ledgerBalanceOf(bed.server.db, buyersAccount(bed.merchantId), ether().caip19);

  it('holds coins sent with the option’s reference from another sender for that sender, and sends them back', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await ethOption(paymentId, 'bob');
    const heldBefore = await buyersBalance();
    const hash = await sendCoins('carol', option.amount.value, nativeTransferReference(option.id));
    expect(await refusedReason(paymentId, option.id, hash)).toBe('payer_mismatch');
    // Asked again, it is still noted once.
    expect(await refusedReason(paymentId, option.id, hash)).toBe('payer_mismatch');

    const [held] = await heldExceptions(paymentId, 1);
    expect(held).toMatchObject({
      type: 'refused',
      transaction: { hash: hash.toLowerCase() },
      fromAccountCaip10: `${bed.evmChain()}:${bed.buyer('carol').evmAddress}`,
      amount: { unit: `caip19/${ether().caip19}`, value: option.amount.value },
    });
    expect((await paymentOf(paymentId)).status).toBe('requires_action');
    expect((await buyersBalance()) - heldBefore).toBe(BigInt(option.amount.value));

    const carol = bed.buyer('carol').evmAddress as Hex;
    const before = await client().getBalance({ address: carol });
    const made = await call(bed.server, '/v1/refunds', {
      method: 'POST',
      headers: headers(),
      body: { paymentId, exceptionId: held.id },
    });
    expect(made.status, made.text).toBe(200);
    const refunds = new RefundWorker({
      db: bed.server.db,
      chains: bed.chains,
      services: bed.services,
      clock: bed.clock,
    });
    await expect
      .poll(
        async () => {
          await refunds.runOnce();
          return (await call(bed.server, `/v1/refunds/${made.body.id}`, { headers: headers() })).body.status;
        },
        { timeout: 30_000, interval: 300 },
      )
      .toBe('succeeded');
    expect((await client().getBalance({ address: carol })) - before).toBe(BigInt(option.amount.value));
    expect(await buyersBalance()).toBe(heldBefore);
  });

  it('holds a plain transfer without a reference for its sender, once, whatever payment it is then named for', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await ethOption(paymentId, 'bob');
    // The amount asked, as a wallet that drops the calldata sends it.
    const hash = await sendCoins('bob', option.amount.value);
    expect(await refusedReason(paymentId, option.id, hash)).toBe('reference_mismatch');
    const [held] = await heldExceptions(paymentId, 1);
    expect(held).toMatchObject({ type: 'refused', amount: { value: option.amount.value } });
    const other = await bed.newPayment();
    const otherOption = await ethOption(other.paymentId, 'bob');
    expect(await refusedReason(other.paymentId, otherOption.id, hash)).toBe('reference_mismatch');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await paymentOf(other.paymentId)).exceptions).toBeUndefined();
  });

  it('leaves a transfer made for another payment to that payment, which it still pays', async () => {
    const first = await bed.newPayment();
    const firstOption = await ethOption(first.paymentId, 'bob');
    const hash = await sendCoins('bob', firstOption.amount.value, nativeTransferReference(firstOption.id));
    const second = await bed.newPayment();
    const secondOption = await ethOption(second.paymentId, 'bob');
    expect(await refusedReason(second.paymentId, secondOption.id, hash)).toBe('reference_mismatch');
    const paid = await bed.gateway(first.paymentId, '/confirm?maxPollMs=30000', {
      optionId: firstOption.id,
      results: [{ type: 'walletRpc', data: [hash] }],
    });
    expect([paid.status, paid.body.status]).toEqual([200, 'succeeded']);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await paymentOf(second.paymentId)).exceptions).toBeUndefined();
    expect((await paymentOf(first.paymentId)).exceptions).toBeUndefined();
  });

  it('holds the transfer a confirm refused while the merchant was suspended, which cannot pay once it is active again', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await ethOption(paymentId, 'bob');
    const hash = await sendCoins('bob', option.amount.value, nativeTransferReference(option.id));
    expect(await setMerchantStatus(bed.server.db, bed.merchantId, 'suspended')).toBe(true);
    try {
      await expect
        .poll(async () => expectErrorBody(await confirm(paymentId, option.id, hash)).code, { timeout: 10_000 })
        .toBe('merchant_not_active');
      const [held] = await heldExceptions(paymentId, 1);
      expect(held).toMatchObject({ type: 'refused', amount: { value: option.amount.value } });
    } finally {
      await setMerchantStatus(bed.server.db, bed.merchantId, 'active');
    }
    await expect
      .poll(async () => (await confirm(paymentId, option.id, hash)).body.details?.reason, { timeout: 10_000 })
      .toBe('transfer_already_used');
    expect((await paymentOf(paymentId)).status).toBe('requires_action');
  });
});
