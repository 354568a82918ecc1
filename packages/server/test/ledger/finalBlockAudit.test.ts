import { type Address, erc20Abi, type Hex, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBalances } from '../../src/chains/evm/balances.ts';
import { DepositScanner } from '../../src/chains/evm/deposits/depositScanner.ts';
import { ChainRegistry, type NetworkInfo } from '../../src/chains/registry.ts';
import { systemClock } from '../../src/clock.ts';
import { inTransaction } from '../../src/db/database.ts';
import { evmDepositOutcomes } from '../../src/deposits/depositOutcomes.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import type { ChainServices } from '../../src/gateway/chainServices.ts';
import { auditCollector, auditDepositAddresses, finalReadPoints, readAuditedLedger } from '../../src/ledger/audit.ts';
import { postFunding } from '../../src/ledger/ledger.ts';
import { silentLogger } from '../../src/log.ts';
import { EvmPayoutSender } from '../../src/payouts/evmPayoutSender.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';

describe('the ledger against the chain: read at the newest final block, where the ledger is', () => {
  let env: EvmTestEnvironment;
  const rpc = (method: string, params: unknown[]) =>
    env.client.request({ method: method as 'eth_chainId', params: params as never });
  const mine = (blocks: number) => rpc('anvil_mine', [toHex(blocks)]);

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
    // Blocks come only when the test mines them.
    await rpc('evm_setIntervalMining', [0]);
  }, 120_000);
  afterAll(async () => {
    await rpc('evm_setIntervalMining', [1]).catch(() => {});
    await env?.close();
  });

  it('shows a transfer mined above the depth on neither side, and one at depth not recorded as a difference', async () => {
    const { db } = await isolatedTestDatabase();
    // Final at three blocks: a transfer counts once two blocks are made on top of its own.
    const network: NetworkInfo = { ...env.network, confirmations: 3 };
    const chains = new ChainRegistry([network]);
    const usdc = env.token('USDC');
    const clock = { now: () => new Date() };
    const head = () => env.client.getBlockNumber({ cacheTime: 0 });
    const sender = new EvmPayoutSender({
      db,
      chains,
      services: { evm: { clients: env.clients, collector: env.collector } } as unknown as ChainServices,
      clock: systemClock,
    });
    let headReads = 0;
    /** Both checks of one audit, from one read of the head. */
    const audit = async () => {
      const readPoints = finalReadPoints((read) => {
        headReads += 1;
        return env.clients.for(read);
      });
      const ledger = await readAuditedLedger(db);
      return {
        collector: await auditCollector(ledger, chains, { eip155: sender }, readPoints),
        depositAddresses: await auditDepositAddresses(
          ledger,
          chains,
          (_network, owners, tokens, blockNumber) => readBalances(env.client, owners, tokens, blockNumber),
          readPoints,
        ),
      };
    };
    const differing = async () => {
      const { collector, depositAddresses } = await audit();
      return [...collector, ...depositAddresses].filter((line) => line.difference !== '0');
    };
    const transfer = async (to: Address, amount: bigint) => {
      const alice = env.buyer('alice');
      return alice.wallet.writeContract({
        chain: null,
        account: alice.account,
        address: usdc.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, amount],
      });
    };
    const mined = (hash: Hex) => env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });

    // A deposit recorded at depth, as the network's deposit follower does.
    await mine(3);
    await insertMerchantWithPayments(db, 'mrch_final_shop', ['pay_final']);
    const address = await quoteDeposit(db, env.collector, 'pay_final', { chain: network.caip2, asset: usdc.caip19 });
    await withDepositTables(db)
      .insertInto('evm_deposit_cursors')
      .values({ chain: network.caip2, next_block: await head() })
      .execute();
    const deposited = await transfer(address, 10_000_000n);
    await mine(1);
    await mined(deposited);
    await mine(2);
    const scanner = new DepositScanner({
      db,
      network,
      client: env.client,
      clock,
      onDeposit: evmDepositOutcomes({ chains, baseUrl: () => '', clock, log: silentLogger }),
    });
    await scanner.step(await head());
    expect(
      await withDepositTables(db)
        .selectFrom('evm_deposits')
        .select('outcome')
        .where('payment_id', '=', 'pay_final')
        .execute(),
    ).toEqual([{ outcome: 'paid' }]);

    // The collector's funding from the devnet's faucet, recorded as an operator does.
    const opening = await audit();
    await inTransaction(db, async (trx) => {
      for (const line of opening.collector)
        await postFunding(trx, `funding:final:${line.asset}`, line.asset, BigInt(line.chain));
    });
    headReads = 0;
    const balanced = await audit();
    expect(headReads).toBe(1);
    const finalBlock = (await head()) - 2n;
    // Every balance of the network at one block, the newest final one.
    expect(new Set([...balanced.collector, ...balanced.depositAddresses].map((line) => line.readAt))).toEqual(
      new Set([`block ${finalBlock}`]),
    );
    expect(balanced.depositAddresses).toEqual([
      { asset: usdc.caip19, chain: '10000000', ledger: '10000000', difference: '0', readAt: `block ${finalBlock}` },
    ]);
    expect([...balanced.collector, ...balanced.depositAddresses].filter((line) => line.difference !== '0')).toEqual([]);

    // Transfers no follower has recorded, to the collector and to the deposit address: mined, one block deep of three.
    const collectorHeld = BigInt(balanced.collector.find((line) => line.asset === usdc.caip19)?.chain ?? '0');
    const toCollector = await transfer(env.collector, 5n);
    const toAddress = await transfer(address, 7n);
    await mine(1);
    const landed = await mined(toCollector);
    expect((await mined(toAddress)).blockNumber).toBe(landed.blockNumber);
    // At the head the collector already holds it.
    expect((await readBalances(env.client, [env.collector], [usdc])).of(env.collector, usdc)).toBe(collectorHeld + 5n);
    const above = await audit();
    expect(above.collector.find((line) => line.asset === usdc.caip19)).toMatchObject({
      chain: collectorHeld.toString(),
      difference: '0',
      readAt: `block ${landed.blockNumber - 2n}`,
    });
    expect(await differing()).toEqual([]);

    // Two blocks deep of three: not final yet.
    await mine(1);
    expect(await differing()).toEqual([]);

    // At depth, final, and recorded by no follower: on the chain and not in the ledger.
    await mine(1);
    const atDepth = `block ${landed.blockNumber}`;
    expect(await differing()).toEqual([
      {
        asset: usdc.caip19,
        chain: (collectorHeld + 5n).toString(),
        ledger: collectorHeld.toString(),
        difference: '5',
        readAt: atDepth,
      },
      { asset: usdc.caip19, chain: '10000007', ledger: '10000000', difference: '7', readAt: atDepth },
    ]);
  });
});
