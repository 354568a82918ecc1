import { type Address, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances } from '../../src/chains/evm/balances.ts';
import { DepositScanner } from '../../src/chains/evm/deposits/depositScanner.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { evmDepositOutcomes } from '../../src/deposits/depositOutcomes.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { auditDepositAddresses, finalReadPoints, readAuditedLedger } from '../../src/ledger/audit.ts';
import { silentLogger } from '../../src/log.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';

describe('the ledger against the chain: what deposit addresses hold before their sweep', () => {
  let env: EvmTestEnvironment;
  const clock = { now: () => new Date() };

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  }, 120_000);
  afterAll(() => env?.close());

  it('balances what a recorded deposit left at its address, and shows what no record explains', async () => {
    const { db } = await isolatedTestDatabase();
    await insertMerchantWithPayments(db, 'mrch_held_shop', ['pay_held']);
    const usdc = env.token('USDC');
    const address = await quoteDeposit(db, env.collector, 'pay_held', { chain: env.network.caip2, asset: usdc.caip19 });
    const chains = new ChainRegistry([env.network]);
    const audit = async () =>
      auditDepositAddresses(
        await readAuditedLedger(db),
        chains,
        (_network, owners, tokens, blockNumber) => readBalances(env.client, owners, tokens, blockNumber),
        finalReadPoints(() => env.client),
      );
    // At one confirmation the newest final block is the head.
    const readAt = expect.stringMatching(/^block \d+$/);
    const pay = async (amount: bigint) => {
      const alice = env.buyer('alice');
      const hash = await alice.wallet.writeContract({
        chain: null,
        account: alice.account,
        address: usdc.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [address, amount],
      });
      return env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    };

    await withDepositTables(db)
      .insertInto('evm_deposit_cursors')
      .values({ chain: env.network.caip2, next_block: await env.client.getBlockNumber({ cacheTime: 0 }) })
      .execute();
    const paid = await pay(10_000_000n);
    const scanner = new DepositScanner({
      db,
      network: env.network,
      client: env.client,
      clock,
      onDeposit: evmDepositOutcomes({ chains, baseUrl: () => '', clock, log: silentLogger }),
    });
    await scanner.step(paid.blockNumber);
    const recorded = await withDepositTables(db)
      .selectFrom('evm_deposits')
      .select(['outcome', 'swept_by'])
      .where('payment_id', '=', 'pay_held')
      .execute();
    expect(recorded).toEqual([{ outcome: 'paid', swept_by: null }]);
    expect(await audit()).toEqual([
      { asset: usdc.caip19, chain: '10000000', ledger: '10000000', difference: '0', readAt },
    ]);

    // A transfer the follower has not recorded: at the address, in no entry.
    await pay(7n);
    expect(await audit()).toEqual([
      { asset: usdc.caip19, chain: '10000007', ledger: '10000000', difference: '7', readAt },
    ]);
  });
});
