import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmClients } from '../../src/chains/evm/clients.ts';
import { DepositScanner } from '../../src/chains/evm/deposits/depositScanner.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import type { Db } from '../../src/db/database.ts';
import { evmDepositOutcomes } from '../../src/deposits/depositOutcomes.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { silentLogger } from '../../src/log.ts';
import { expireDuePayments, expirePaymentTask } from '../../src/payments/expiry.ts';
import { buyerFacingStatus, effectiveStatus } from '../../src/payments/stateMachine.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';

/** Wei a native-coin deposit address asks for here. */
const AMOUNT = 1_000_000_000n;

describe('a payment with a deposit address expires only once its network’s deposits are read up to its expiry', () => {
  let env: EvmTestEnvironment;
  const clock = { now: () => new Date() };

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
    // A chain long enough for a follower 60 blocks behind, made at once so that block times stay the real time.
    await env.client.request<{ Parameters: [Hex, Hex]; ReturnType: null }>({
      method: 'anvil_mine',
      params: ['0x64', '0x0'],
    });
  }, 120_000);
  afterAll(() => env?.close());

  const native = () => env.network.tokens.find((token) => token.method === 'native')!;
  const chains = () => new ChainRegistry([env.network]);

  /** A database of the test's own with a merchant, and its unpaid payments expiring at `expiresAt`. */
  async function shop(name: string, paymentIds: string[], expiresAt: Date) {
    const { db } = await isolatedTestDatabase();
    await insertMerchantWithPayments(db, `mrch_${name}`, paymentIds, { expires_at: expiresAt });
    return db;
  }

  /** The payment's deposit address asks for AMOUNT of the native coin. */
  const quote = (db: Db, paymentId: string) =>
    quoteDeposit(db, env.collector, paymentId, {
      chain: env.network.caip2,
      asset: native().caip19,
      amount: AMOUNT,
      native: true,
    });

  /** The follower has read every block below `block`, and no further. */
  const readUpTo = (db: Db, block: bigint) =>
    withDepositTables(db)
      .insertInto('evm_deposit_cursors')
      .values({ chain: env.network.caip2, next_block: block })
      .execute();

  const nextBlockOf = async (db: Db) =>
    BigInt(
      (
        await withDepositTables(db)
          .selectFrom('evm_deposit_cursors')
          .select('next_block')
          .where('chain', '=', env.network.caip2)
          .executeTakeFirstOrThrow()
      ).next_block,
    );

  const statusOf = async (db: Db, paymentId: string) =>
    (await db.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirstOrThrow()).status;

  async function send(to: Address) {
    const alice = env.buyer('alice');
    const hash = await alice.wallet.sendTransaction({ chain: null, account: alice.account, to, value: AMOUNT });
    return env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  }

  /** The first block made at `time` or later, once there is one. */
  async function blockMadeAt(time: Date): Promise<bigint> {
    for (;;) {
      const head = await env.client.getBlock({ blockTag: 'latest' });
      if (Number(head.timestamp) * 1000 >= time.getTime()) return head.number;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('keeps it unpaid while the follower is behind; the transfer read late pays it, and it expires once the reads pass its expiry', async () => {
    const expiresAt = new Date(Date.now() + 8_000);
    const db = await shop('behind', ['pay_late_read', 'pay_never_paid', 'pay_gateway'], expiresAt);
    const paidAddress = await quote(db, 'pay_late_read');
    await quote(db, 'pay_never_paid');
    const expiryContext = { db, chains: chains(), clock, config: { baseUrl: '' } as never };
    const scanner = new DepositScanner({
      db,
      network: env.network,
      client: env.client,
      clock,
      onDeposit: evmDepositOutcomes({ chains: chains(), baseUrl: () => '', clock, log: silentLogger }),
    });
    // The follower fell 60 blocks behind a slow node.
    await readUpTo(db, (await env.client.getBlockNumber({ cacheTime: 0 })) - 60n);

    const receipt = await send(paidAddress);
    const { timestamp } = await env.client.getBlock({ blockNumber: receipt.blockNumber });
    expect(Number(timestamp) * 1000).toBeLessThan(expiresAt.getTime());
    await blockMadeAt(new Date(expiresAt.getTime() + 1_000));

    // Past the expiry: the payment without a deposit address expires; those with one wait for the follower.
    expect(await expireDuePayments(expiryContext)).toBe(1);
    expect(await statusOf(db, 'pay_gateway')).toBe('expired');
    expect(await statusOf(db, 'pay_late_read')).toBe('requires_action');
    expect(await statusOf(db, 'pay_never_paid')).toBe('requires_action');
    // The merchant reads it unpaid meanwhile, so a final state it reads never changes; the buyer sees it closed.
    const held = await db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', 'pay_late_read')
      .executeTakeFirstOrThrow();
    expect([effectiveStatus(held, clock.now()), buyerFacingStatus(held, clock.now())]).toEqual([
      'requires_action',
      'expired',
    ]);
    // An expiry job an earlier version queued for it leaves it waiting too.
    await expirePaymentTask(expiryContext)({ paymentId: 'pay_never_paid' }, {} as never);
    expect(await statusOf(db, 'pay_never_paid')).toBe('requires_action');

    // It reads up to the transfer's block (50 blocks a step): the transfer, made before the expiry, pays in time.
    while ((await nextBlockOf(db)) <= receipt.blockNumber) await scanner.step(receipt.blockNumber);
    expect(await statusOf(db, 'pay_late_read')).toBe('succeeded');
    expect(
      await withDepositTables(db)
        .selectFrom('evm_deposits')
        .select('outcome')
        .where('payment_id', '=', 'pay_late_read')
        .execute(),
    ).toEqual([{ outcome: 'paid' }]);
    // Not yet read up to the expiry: the other one still waits.
    expect(await expireDuePayments(expiryContext)).toBe(0);
    expect(await statusOf(db, 'pay_never_paid')).toBe('requires_action');

    // Read past its expiry with no transfer to it: it expires.
    const pastExpiry = await blockMadeAt(expiresAt);
    while ((await nextBlockOf(db)) <= pastExpiry) await scanner.step(pastExpiry);
    expect(await expireDuePayments(expiryContext)).toBe(1);
    expect(await statusOf(db, 'pay_never_paid')).toBe('expired');
  });

  it('traces a step’s blocks five to a request, several requests at once', async () => {
    const db = await shop('traced', ['pay_traced'], new Date(Date.now() + 600_000));
    await quote(db, 'pay_traced');
    const traceBatches: number[] = [];
    let underWay = 0;
    let mostUnderWay = 0;
    const clients = new EvmClients({
      onFetchRequest: async (request) => {
        const body = JSON.parse(await request.clone().text()) as { method: string } | { method: string }[];
        const calls = (Array.isArray(body) ? body : [body]).filter(
          (call) => call.method === 'debug_traceBlockByNumber',
        );
        if (!calls.length) return;
        traceBatches.push(calls.length);
        underWay += 1;
        mostUnderWay = Math.max(mostUnderWay, underWay);
      },
      onFetchResponse: () => {
        if (underWay > 0) underWay -= 1;
      },
    });
    const scanner = new DepositScanner({
      db,
      network: env.network,
      client: clients.for(env.network),
      clock,
      onDeposit: async () => {},
    });
    const head = await env.client.getBlockNumber({ cacheTime: 0 });
    await readUpTo(db, head - 60n);

    await scanner.step(head);
    expect(await nextBlockOf(db)).toBe(head - 10n);
    expect(traceBatches).toEqual(Array(10).fill(5));
    expect(mostUnderWay).toBeGreaterThan(1);
  });
});
