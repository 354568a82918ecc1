import type { Devnet } from '@paygate/devnet';
import { type Address, createWalletClient, defineChain, erc20Abi, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddress } from '../../src/chains/evm/deposits/addresses.ts';
import { fixDepositQuotes } from '../../src/deposits/depositQuotes.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';

describe('EVM deposit addresses: transfers found by the network follower, on the devnet', () => {
  let service: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const chain = () => devnet.manifest.evm[0]!;
  const usdc = () => chain().tokens.find((token) => token.symbol === 'USDC')!;
  const collector = () => privateKeyToAccount(service.keys.evmPrivateKey).address;
  const wallet = (name: string) => {
    const buyer = devnet.manifest.buyers.find((candidate) => candidate.name === name)!;
    const network = chain();
    return createWalletClient({
      account: privateKeyToAccount(buyer.evmPrivateKey as Hex),
      chain: defineChain({
        id: network.chainId,
        name: network.name,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [network.rpcUrl] } },
      }),
      transport: http(network.rpcUrl),
    });
  };
  const paymentStatus = async (paymentId: string) =>
    (
      await call(server, `/v1/payments/${paymentId}`, {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      })
    ).body;
  const depositsOf = (paymentId: string) =>
    withDepositTables(server.db).selectFrom('evm_deposits').selectAll().where('payment_id', '=', paymentId).execute();
  /** Fixes the payment's deposit quote in USDC on the first chain, as the checkout page does when it shows it. */
  const quote = async (paymentId: string) => {
    const payment = await server.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    const [fixed] = await fixDepositQuotes(server.db, collector(), payment, [
      { chain: chain().caip2, asset: usdc().caip19, amount: 10_000_000n },
    ]);
    return fixed!.address;
  };
  const send = async (name: string, to: Address, amount: bigint) => {
    const hash = await wallet(name).writeContract({
      address: usdc().address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
    });
    return hash;
  };

  beforeAll(async () => {
    service = await startDevnetService({ prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' } });
    ({ devnet, server } = service);
    partner = await newPartner(server.db);
    merchantId = (
      await createMerchant(server, partner.apiKey, {
        merchantName: 'Corner Shop',
        merchantEmail: 'owner@corner-shop.com',
      })
    ).id;
  }, 180_000);

  afterAll(async () => {
    await service?.close();
  });

  it('credits only the payment whose address received the transfer; another payment stays payable', async () => {
    const first = await createPayment(server, partner.apiKey, merchantId);
    const second = await createPayment(server, partner.apiKey, merchantId);
    expect(await quote(first.paymentId)).toBe(depositAddress(collector(), first.paymentId));
    expect(await quote(second.paymentId)).toBe(depositAddress(collector(), second.paymentId));

    const hash = await send('bob', depositAddress(collector(), second.paymentId), 10_000_000n);
    await expect
      .poll(async () => (await paymentStatus(second.paymentId)).status, { timeout: 30_000 })
      .toBe('succeeded');
    expect((await paymentStatus(first.paymentId)).status).toBe('requires_action');
    expect(await depositsOf(first.paymentId)).toEqual([]);

    const bob = devnet.manifest.buyers.find((candidate) => candidate.name === 'bob')!;
    const paid = await paymentStatus(second.paymentId);
    expect(paid.buyer.accountCaip10.toLowerCase()).toBe(`${chain().caip2}:${bob.evmAddress}`.toLowerCase());
    const row = await server.db
      .selectFrom('payments')
      .select(['tx_hash', 'token_asset', 'token_value', 'network'])
      .where('id', '=', second.paymentId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      tx_hash: hash.toLowerCase(),
      token_asset: usdc().caip19,
      token_value: '10000000',
      network: chain().caip2,
    });
    const deposits = await depositsOf(second.paymentId);
    expect(deposits).toHaveLength(1);
    expect(deposits[0]).toMatchObject({
      tx_hash: hash.toLowerCase(),
      outcome: 'paid',
      amount: '10000000',
      from_address: bob.evmAddress.toLowerCase(),
      address: depositAddress(collector(), second.paymentId).toLowerCase(),
    });
  });

  it('records a transfer of another amount as a deposit of the payment and leaves it payable; the exact amount then pays it', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    const short = await send('alice', address, 9_999_999n);
    await expect.poll(() => depositsOf(paymentId), { timeout: 30_000 }).toHaveLength(1);
    const [underpaid] = await depositsOf(paymentId);
    expect(underpaid).toMatchObject({ tx_hash: short.toLowerCase(), outcome: 'underpaid', amount: '9999999' });
    expect((await paymentStatus(paymentId)).status).toBe('requires_action');

    await send('alice', address, 10_000_000n);
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    expect((await depositsOf(paymentId)).map((deposit) => deposit.outcome).sort()).toEqual(['paid', 'underpaid']);
  });

  it('records a transfer to a paid payment as a late deposit and changes nothing', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    await send('bob', address, 10_000_000n);
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    const again = await send('bob', address, 10_000_000n);
    await expect.poll(async () => (await depositsOf(paymentId)).length, { timeout: 30_000 }).toBe(2);
    const late = (await depositsOf(paymentId)).find((deposit) => deposit.tx_hash === again.toLowerCase());
    expect(late?.outcome).toBe('payment_closed');
    const payment = await paymentStatus(paymentId);
    expect(payment.status).toBe('succeeded');
  });
});
