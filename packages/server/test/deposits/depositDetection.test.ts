import type { Devnet } from '@paygate/devnet';
import { type Address, createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddress } from '../../src/chains/evm/deposits/addresses.ts';
import { NATIVE_TOKEN } from '../../src/chains/evm/deposits/nativeTransfers.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';
import { deployValueForwarder, forwardTo } from '../support/valueForwarder.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { call, newPartner, type TestPartner, type TestServer } from '../support/testServer.ts';

describe('EVM deposit addresses: transfers found by the network follower, on the devnet', () => {
  let service: DevnetService;
  let devnet: Devnet;
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  const plain = devnetPlainWallet(() => devnet);
  const { chain, wallet } = plain;
  const usdc = () => plain.token('USDC');
  const collector = () => privateKeyToAccount(service.keys.evmPrivateKey).address;
  const paymentStatus = async (paymentId: string) =>
    (
      await call(server, `/v1/payments/${paymentId}`, {
        headers: { 'api-key': partner.apiKey, 'merchant-id': merchantId },
      })
    ).body;
  const depositsOf = (paymentId: string) =>
    withDepositTables(server.db).selectFrom('evm_deposits').selectAll().where('payment_id', '=', paymentId).execute();
  /** Fixes the payment's deposit quote in USDC on the first chain, as the checkout page does when it shows it. */
  const quote = (paymentId: string) =>
    quoteDeposit(server.db, collector(), paymentId, { chain: chain().caip2, asset: usdc().caip19 });
  const eventTypesOf = async (paymentId: string) =>
    (
      await server.db
        .selectFrom('webhook_events')
        .select('type')
        .where(sql<boolean>`body::jsonb -> 'data' -> 'object' ->> 'paymentId' = ${paymentId}`)
        .orderBy('created_at')
        .execute()
    ).map((event) => event.type);
  const send = (name: string, to: Address, amount: bigint, token?: Address) =>
    plain.send(to, amount, { from: name, ...(token ? { token } : {}) });

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
    // The ledger: the transfer is held at the deposit address, owed to the buyer until the payment took it.
    const lines = (entry: string) =>
      server.db
        .selectFrom('ledger_entries')
        .select(['account', 'amount'])
        .where('entry', '=', entry)
        .orderBy('account')
        .execute();
    const chainId = chain().caip2;
    expect(await lines(`deposit:${chainId}:${hash.toLowerCase()}:0`)).toEqual([
      { account: `buyers:${merchantId}`, amount: '-10000000' },
      { account: 'deposit_addresses', amount: '10000000' },
    ]);
    expect((await lines(`payment:${second.paymentId}`)).find((line) => line.amount.startsWith('-') === false)).toEqual({
      account: `buyers:${merchantId}`,
      amount: '10000000',
    });

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

  it('waits for the rest of an underpaid payment, saying so; the rest pays it and the exception goes', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    const short = await send('alice', address, 9_999_999n);
    await expect.poll(() => depositsOf(paymentId), { timeout: 30_000 }).toHaveLength(1);
    const [underpaid] = await depositsOf(paymentId);
    expect(underpaid).toMatchObject({ tx_hash: short.toLowerCase(), outcome: 'underpaid', amount: '9999999' });
    const waiting = await paymentStatus(paymentId);
    expect(waiting.status).toBe('requires_action');
    expect(waiting.exceptions).toEqual([
      expect.objectContaining({
        type: 'underpaid',
        amount: expect.objectContaining({ unit: `caip19/${usdc().caip19}`, value: '9999999' }),
        expected: expect.objectContaining({ value: '10000000' }),
        transaction: { networkId: String(chain().chainId), hash: short.toLowerCase() },
      }),
    ]);
    expect(await eventTypesOf(paymentId)).toContain('payment.underpaid');

    const rest = await send('alice', address, 1n);
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    expect((await depositsOf(paymentId)).map((deposit) => deposit.outcome).sort()).toEqual(['paid', 'underpaid']);
    const paid = await paymentStatus(paymentId);
    expect(paid.exceptions).toBeUndefined();
    expect(paid.tokenAmount.value).toBe('10000000');
    expect(paid.transaction.hash).toBe(rest.toLowerCase());
  });

  it('fails an underpaid payment at its expiry with underpaid and what it received', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    const short = await send('alice', address, 4_000_000n);
    await expect.poll(() => depositsOf(paymentId), { timeout: 30_000 }).toHaveLength(1);

    await expirePaymentNow(server.ctx, paymentId);
    const failed = await paymentStatus(paymentId);
    expect(failed).toMatchObject({
      status: 'failed',
      failureCode: 'underpaid',
      tokenAmount: expect.objectContaining({ unit: `caip19/${usdc().caip19}`, value: '4000000' }),
      transaction: expect.objectContaining({ hash: short.toLowerCase() }),
      exceptions: [
        expect.objectContaining({ type: 'underpaid', amount: expect.objectContaining({ value: '4000000' }) }),
      ],
    });
    const alice = devnet.manifest.buyers.find((candidate) => candidate.name === 'alice')!;
    expect(failed.buyer.accountCaip10.toLowerCase()).toBe(`${chain().caip2}:${alice.evmAddress}`.toLowerCase());
    expect(failed.buyer.accountProviderName).toBe('Deposit address');
    expect(await eventTypesOf(paymentId)).toEqual(
      expect.arrayContaining(['payment.underpaid', 'payment.processing', 'payment.failed']),
    );
    expect(await eventTypesOf(paymentId)).not.toContain('payment.expired');
  });

  it('succeeds an overpaid payment for the amount asked and keeps the excess apart', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    const hash = await send('bob', address, 12_500_000n);
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    const paid = await paymentStatus(paymentId);
    expect(paid.tokenAmount.value).toBe('10000000');
    expect(paid.exceptions).toEqual([
      expect.objectContaining({
        type: 'overpaid',
        amount: expect.objectContaining({ value: '2500000' }),
        transaction: { networkId: String(chain().chainId), hash: hash.toLowerCase() },
      }),
    ]);
    expect((await depositsOf(paymentId)).map((deposit) => deposit.outcome)).toEqual(['overpaid']);
    expect(await eventTypesOf(paymentId)).toEqual(expect.arrayContaining(['payment.succeeded', 'payment.overpaid']));
  });

  it('records a token the payment does not take as wrong_token and leaves the payment payable', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    const usdt = chain().tokens.find((token) => token.symbol === 'USDT')!;
    const hash = await send('bob', address, 10_000_000n, usdt.address as Address);
    await expect.poll(() => depositsOf(paymentId), { timeout: 30_000 }).toHaveLength(1);
    const payment = await paymentStatus(paymentId);
    expect(payment.status).toBe('requires_action');
    expect(payment.exceptions).toEqual([
      expect.objectContaining({
        type: 'wrong_token',
        amount: expect.objectContaining({ unit: `caip19/${usdt.caip19}`, value: '10000000' }),
        transaction: { networkId: String(chain().chainId), hash: hash.toLowerCase() },
      }),
    ]);
    expect(await eventTypesOf(paymentId)).toContain('payment.wrong_token');
  });

  it('records a transfer to a paid payment as paid late and changes nothing else', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const address = await quote(paymentId);
    await send('bob', address, 10_000_000n);
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    const again = await send('bob', address, 10_000_000n);
    await expect.poll(async () => (await depositsOf(paymentId)).length, { timeout: 30_000 }).toBe(2);
    const late = (await depositsOf(paymentId)).find((deposit) => deposit.tx_hash === again.toLowerCase());
    expect(late?.outcome).toBe('paid_late');
    const payment = await paymentStatus(paymentId);
    expect(payment.status).toBe('succeeded');
    expect(payment.tokenAmount.value).toBe('10000000');
    expect(payment.exceptions).toEqual([
      expect.objectContaining({ type: 'paid_late', amount: expect.objectContaining({ value: '10000000' }) }),
    ]);
    expect(await eventTypesOf(paymentId)).toContain('payment.paid_late');
  });

  it('pays a payment with the native coin sent to its address by a plain transfer', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const eth = service.chains.network(chain().caip2)!.tokens.find((token) => token.method === 'native')!;
    const address = await quoteDeposit(server.db, collector(), paymentId, {
      chain: chain().caip2,
      asset: eth.caip19,
      amount: 3_333_334_000_000_000n,
      native: true,
    });
    const hash = await wallet('bob').sendTransaction({ to: address, value: 3_333_334_000_000_000n });
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    const paid = await paymentStatus(paymentId);
    expect(paid.tokenAmount).toMatchObject({ unit: `caip19/${eth.caip19}`, value: '3333334000000000' });
    expect(paid.transaction.hash).toBe(hash.toLowerCase());
    expect(await depositsOf(paymentId)).toEqual([
      expect.objectContaining({ token: NATIVE_TOKEN, asset: eth.caip19, log_index: -1, outcome: 'paid' }),
    ]);
  });

  it('pays a payment with the native coin a contract wallet forwards to its address; a forward undone by a revert pays nothing', async () => {
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const eth = service.chains.network(chain().caip2)!.tokens.find((token) => token.method === 'native')!;
    const amount = 2_000_000_000_000_000n;
    const address = await quoteDeposit(server.db, collector(), paymentId, {
      chain: chain().caip2,
      asset: eth.caip19,
      amount,
      native: true,
    });
    const contractWallet = await deployValueForwarder(wallet('carol'), chain().rpcUrl, 'keeping');
    const reverting = await deployValueForwarder(wallet('carol'), chain().rpcUrl, 'reverting');
    // The contract wallet calls a contract that sends the coin on and then reverts: the transaction succeeds, the
    // coin stays with the contract wallet.
    const undone = await wallet('carol').sendTransaction({
      to: contractWallet,
      value: amount,
      data: forwardTo(reverting, forwardTo(address)),
    });
    const forwarded = await wallet('carol').sendTransaction({
      to: contractWallet,
      value: amount,
      data: forwardTo(address),
    });
    const node = createPublicClient({ transport: http(chain().rpcUrl) });
    expect((await node.waitForTransactionReceipt({ hash: undone, pollingInterval: 100 })).status).toBe('success');
    expect(await node.getBalance({ address: contractWallet })).toBe(amount);
    await expect.poll(async () => (await paymentStatus(paymentId)).status, { timeout: 30_000 }).toBe('succeeded');
    const paid = await paymentStatus(paymentId);
    expect(paid.transaction.hash).toBe(forwarded.toLowerCase());
    expect(paid.exceptions ?? []).toEqual([]);
    const deposits = await depositsOf(paymentId);
    expect(deposits).toEqual([
      expect.objectContaining({
        tx_hash: forwarded.toLowerCase(),
        token: NATIVE_TOKEN,
        from_address: contractWallet.toLowerCase(),
        amount: amount.toString(),
        log_index: -2,
        outcome: 'paid',
      }),
    ]);
    expect(deposits.map((deposit) => deposit.tx_hash)).not.toContain(undone.toLowerCase());
  });

  it("leaves the ledger agreeing with the merchant's records: what it is owed, and what its buyers' exceptions hold", async () => {
    const audit = await auditOfMerchant(server.db, merchantId);
    // Earlier tests left succeeded payments and overpaid, late and wrong-token exceptions.
    expect(audit.lines.map((line) => line.check)).toEqual(expect.arrayContaining(['merchant', 'buyers']));
    expect(audit.differing).toEqual([]);
  });
});
