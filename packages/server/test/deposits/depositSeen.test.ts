import { type Address, erc20Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DepositScanner } from '../../src/chains/evm/deposits/depositScanner.ts';
import type { DepositTransfer } from '../../src/chains/evm/deposits/nativeTransfers.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { evmDepositOutcomes, evmDepositSeen } from '../../src/deposits/depositOutcomes.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { failUnconfirmedDeposits } from '../../src/deposits/depositWaits.ts';
import { silentLogger } from '../../src/log.ts';
import { expireDuePayments } from '../../src/payments/expiry.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { ManualClock } from '../support/manualClock.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { newPartner } from '../support/testServer.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';

const DEPTH = 3;
const WAIT_MS = 600_000;
const AMOUNT = 10_000_000n;

describe('a deposit seen above its network depth (3 blocks here) holds its payment processing until it reaches depth', () => {
  let env: EvmTestEnvironment;
  let db: Db;
  let dropDatabase: () => Promise<void>;
  let partnerId: string;
  const merchantId = 'mrch_deposit_seen';
  // The handlers' and sweeps' clock, new for each test: moved past expiries and deadlines without waiting for them.
  let clock = new ManualClock();

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
    const database = await createIsolatedDatabase();
    dropDatabase = database.drop;
    db = connect(database.url, 4);
    partnerId = (await newPartner(db)).partnerId;
    await db
      .insertInto('merchants')
      .values({ id: merchantId, partner_id: partnerId, name: 'Seen Shop', email: 'seen@shop.example' })
      .execute();
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await dropDatabase?.();
    await env?.close();
  });

  const network = () => ({ ...env.network, confirmations: DEPTH });

  /** The scanner as the service wires it; `seen` collects the transfers it hands over from above depth. */
  function scanner(seen: DepositTransfer[] = []) {
    const context = { chains: new ChainRegistry([network()]), baseUrl: () => '', clock, log: silentLogger };
    const onSeen = evmDepositSeen({ ...context, waitMs: WAIT_MS });
    return new DepositScanner({
      db,
      network: network(),
      client: env.client,
      clock,
      onDeposit: evmDepositOutcomes(context),
      onSeen: async (trx, transfer) => {
        seen.push(transfer);
        await onSeen(trx, transfer);
      },
    });
  }

  /** An unpaid payment expiring in a minute, with a deposit address asking 10 USDC. */
  async function openPayment(name: string) {
    const paymentId = `pay_seen_${name}_${Date.now()}`;
    await db
      .insertInto('payments')
      .values({
        id: paymentId,
        partner_id: partnerId,
        merchant_id: merchantId,
        reference_id: paymentId,
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(clock.now().getTime() + 60_000),
      })
      .execute();
    const address = await quoteDeposit(db, env.collector, paymentId, {
      chain: env.network.caip2,
      asset: env.token('USDC').caip19,
      amount: AMOUNT,
    });
    return { paymentId, address };
  }

  async function send(to: Address, amount: bigint) {
    const alice = env.buyer('alice');
    const hash = await alice.wallet.writeContract({
      chain: null,
      account: alice.account,
      address: env.token('USDC').address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
    });
    return env.client.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 100 });
  }

  async function headAtLeast(block: bigint) {
    for (;;) {
      const head = await env.client.getBlockNumber({ cacheTime: 0 });
      if (head >= block) return head;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const paymentOf = (paymentId: string) =>
    db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
  const waitOf = (paymentId: string) =>
    withDepositTables(db)
      .selectFrom('evm_deposit_waits')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .executeTakeFirst();
  const expiryContext = () => ({
    db,
    chains: new ChainRegistry([network()]),
    clock,
    config: { baseUrl: '' } as never,
  });

  it('makes the payment processing at once, keeps it from expiring, and pays it on time when the block reaches depth', async () => {
    clock = new ManualClock();
    const { paymentId, address } = await openPayment('paid');
    const receipt = await send(address, AMOUNT);
    const deposits = scanner();

    await deposits.step(receipt.blockNumber);
    const seen = await paymentOf(paymentId);
    expect(seen).toMatchObject({
      status: 'processing',
      buyer_account: `${env.network.caip2}:${env.buyer('alice').address}`,
      buyer_provider_name: 'Deposit address',
      token_asset: env.token('USDC').caip19,
      token_value: AMOUNT.toString(),
      tx_hash: null,
    });
    expect(await waitOf(paymentId)).toMatchObject({ tx_hash: receipt.transactionHash.toLowerCase() });
    // Nothing is recorded as a deposit above depth.
    expect(
      await withDepositTables(db).selectFrom('evm_deposits').selectAll().where('payment_id', '=', paymentId).execute(),
    ).toEqual([]);

    // The payment's expiry passes while the block deepens: it stays processing.
    clock.advance(120_000);
    await expireDuePayments(expiryContext());
    expect((await paymentOf(paymentId)).status).toBe('processing');
    // Its deadline passes before the follower read the block at depth (a node down, say): nothing fails meanwhile.
    clock.advance(WAIT_MS);
    expect(await failUnconfirmedDeposits(expiryContext())).toBe(0);
    expect((await paymentOf(paymentId)).status).toBe('processing');

    await deposits.step(await headAtLeast(receipt.blockNumber + BigInt(DEPTH - 1)));
    const paid = await paymentOf(paymentId);
    expect(paid).toMatchObject({ status: 'succeeded', tx_hash: receipt.transactionHash.toLowerCase() });
    expect(paid.exceptions).toEqual([]);
    expect(await waitOf(paymentId)).toBeUndefined();
    // Its deadline having passed changes nothing now.
    expect(await failUnconfirmedDeposits(expiryContext())).toBe(0);
    expect((await paymentOf(paymentId)).status).toBe('succeeded');
  });

  it('leaves a payment unpaid while what was seen is less than asked', async () => {
    clock = new ManualClock();
    const { paymentId, address } = await openPayment('partial');
    const receipt = await send(address, AMOUNT / 2n);
    const seen: DepositTransfer[] = [];
    await scanner(seen).step(receipt.blockNumber);
    expect(seen).toEqual([expect.objectContaining({ paymentId, amount: AMOUNT / 2n })]);
    expect((await paymentOf(paymentId)).status).toBe('requires_action');
    expect(await waitOf(paymentId)).toBeUndefined();
  });

  it('fails the payment transfer_not_mined at the deadline when a reorg took the seen transfer away', async () => {
    clock = new ManualClock();
    const { paymentId, address } = await openPayment('reorged');
    const snapshot = (await env.client.request({ method: 'evm_snapshot' } as never)) as Hex;
    const receipt = await send(address, AMOUNT);
    const deposits = scanner();
    await deposits.step(receipt.blockNumber);
    expect((await paymentOf(paymentId)).status).toBe('processing');

    // The chain goes back to before the transfer and grows past the transfer's block on another branch.
    expect(await env.client.request({ method: 'evm_revert', params: [snapshot] } as never)).toBe(true);
    const head = await headAtLeast(receipt.blockNumber + BigInt(DEPTH + 1));
    await deposits.step(head);
    expect(await env.client.getTransactionReceipt({ hash: receipt.transactionHash }).catch(() => undefined)).toBe(
      undefined,
    );
    expect((await paymentOf(paymentId)).status).toBe('processing');

    expect(await failUnconfirmedDeposits(expiryContext())).toBe(0);
    clock.advance(WAIT_MS + 1_000);
    expect(await failUnconfirmedDeposits(expiryContext())).toBe(1);
    expect(await paymentOf(paymentId)).toMatchObject({ status: 'failed', failure_code: 'transfer_not_mined' });
    expect(await waitOf(paymentId)).toBeUndefined();
  });
});
