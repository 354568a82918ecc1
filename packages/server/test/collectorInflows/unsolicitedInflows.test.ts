import { loadScreeningList } from '../../src/screening/listScreening.ts';
import { parseScreeningList } from '../../src/screening/screeningListFile.ts';
import { type Address, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepUnsolicitedInflow } from '../../src/collectorInflows/keepInflow.ts';
import { auditNegativeBalances, auditPayoutsInFlight, auditUnsolicitedInflows } from '../../src/ledger/audit.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { payInUsdc } from '../settlement/support.ts';
import { devnetPlainWallet } from '../support/devnetPlainWallet.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { NO_CHAIN_ENV, runCli } from '../support/serverProcess.ts';
import { collectorInflowChecks } from './support.ts';

/** How long a transfer into the collector waits for a record to claim it before it is judged unsolicited. */
const GRACE_MS = 10_000;

/**
 * Anyone can send coins or tokens straight to the collector, with no payment, confirm or reference: each such
 * transfer must be recorded as owed to its sender, so the ledger keeps matching the chain and no payment can take it.
 */
describe('transfers into the collector that no record holds, on the devnet', () => {
  let testbed: GatewayTestbed;
  const chain = () => testbed.devnet.manifest.evm[0]!;
  const usdc = () => chain().tokens.find((token) => token.symbol === 'USDC')!;
  const collector = () => privateKeyToAccount(testbed.keys.evmPrivateKey).address;
  const { wallet, send, balanceOf } = devnetPlainWallet(() => testbed.devnet);
  const checks = collectorInflowChecks(() => testbed);
  const { audit, returnedAll } = checks;
  const judged = (hash: string) => checks.judged(hash.toLowerCase());
  const differing = async () => (await audit()).filter((line) => line.difference !== '0');

  beforeAll(async () => {
    testbed = await startGatewayTestbed({ buyerTransferDeadlineMs: GRACE_MS });
    // The follower starts reading the collector's inflows at the block after the newest final one.
    const deadline = Date.now() + 30_000;
    while (!(await testbed.server.db.selectFrom('collector_inflow_cursors').select('chain').executeTakeFirst())) {
      if (Date.now() > deadline) throw new Error('the collector-inflow follower never started');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // What the devnet gave the collector before the service took anything is recorded as the operator's funding.
    expect(await differing()).toEqual([]);
  }, 180_000);
  afterAll(() => testbed?.close());

  it('records a plain token transfer and a plain coin transfer as unsolicited, owed to their sender, and the ledger matches the chain', async () => {
    const tokenHash = await send(collector(), 5_000_000n);
    const coinHash = await wallet('bob').sendTransaction({ to: collector(), value: parseEther('0.01') });

    const [token] = await judged(tokenHash);
    const [coin] = await judged(coinHash);
    expect([token?.outcome, coin?.outcome]).toEqual(['unsolicited', 'unsolicited']);
    expect(token).toMatchObject({
      asset: usdc().caip19,
      amount: '5000000',
      sender: `${chain().caip2}:${testbed.buyer('alice').evmAddress.toLowerCase()}`,
    });
    expect(coin).toMatchObject({
      asset: chain().nativeToken.caip19,
      amount: parseEther('0.01').toString(),
      sender: `${chain().caip2}:${testbed.buyer('bob').evmAddress.toLowerCase()}`,
    });
    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19)).toBe(5_000_000n);
    expect(await auditUnsolicitedInflows(testbed.server.db)).toEqual(
      expect.arrayContaining([expect.objectContaining({ asset: usdc().caip19, records: '5000000', difference: '0' })]),
    );
    expect(await differing()).toEqual([]);
    // Claimed: no confirm can pay a payment with the coins afterwards.
    const claim = await testbed.server.db
      .selectFrom('evm_used_transfers')
      .select('payment_id')
      .where('tx_hash', '=', coinHash.toLowerCase())
      .executeTakeFirst();
    expect(claim?.payment_id).toBe(`inflow:${coin?.id}`);
  });

  it('leaves a payment the gateway relayed to the collector recorded, not owed twice', async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'evm', 300n);
    const payment = await testbed.server.db
      .selectFrom('payments')
      .select('tx_hash')
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    expect((await judged(payment.tx_hash as string)).map((row) => row.outcome)).toEqual(['recorded']);
    expect(await differing()).toEqual([]);
    expect(await auditNegativeBalances(testbed.server.db)).toEqual([]);
  });

  // Each `paygate` call below is a process of its own: a few seconds apiece on a busy machine.
  it('keeps an unsolicited transfer as the operator’s funding once, and refuses to record it as funding again', async () => {
    const hash = await send(collector(), 2_000_000n);
    const [inflow] = await judged(hash);
    expect(inflow?.outcome).toBe('unsolicited');
    const unsolicitedBefore = await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19);
    const operatorBefore = await ledgerBalanceOf(testbed.server.db, 'operator', usdc().caip19);

    const funded = await runCli(
      [
        'ledger',
        'fund',
        '--asset',
        usdc().caip19,
        '--amount',
        '2000000',
        '--reference',
        hash.toUpperCase().replace('0X', '0x'),
      ],
      { DATABASE_URL: testbed.databaseUrl, ...NO_CHAIN_ENV },
    );
    expect(funded.code).toBe(1);
    expect(funded.stderr).toContain(`paygate inflows keep ${inflow?.id}`);

    const listed = await runCli(['inflows', 'list'], { DATABASE_URL: testbed.databaseUrl, ...NO_CHAIN_ENV });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`"inflowId":"${inflow?.id}"`);

    const kept = await runCli(['inflows', 'keep', inflow?.id as string], {
      DATABASE_URL: testbed.databaseUrl,
      ...NO_CHAIN_ENV,
    });
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ inflowId: inflow?.id, amount: '2000000', kept: true });
    expect((await keepUnsolicitedInflow(testbed.server.db, inflow?.id as string, new Date())).kept).toBe(false);

    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19)).toBe(unsolicitedBefore - 2_000_000n);
    expect(await ledgerBalanceOf(testbed.server.db, 'operator', usdc().caip19)).toBe(operatorBefore + 2_000_000n);
    const stillListed = await runCli(['inflows', 'list'], { DATABASE_URL: testbed.databaseUrl, ...NO_CHAIN_ENV });
    expect(stillListed.stdout).not.toContain(inflow?.id as string);
    expect(await differing()).toEqual([]);
    expect((await auditUnsolicitedInflows(testbed.server.db)).filter((line) => line.difference !== '0')).toEqual([]);
  }, 180_000);

  it('sends an unsolicited transfer back to its sender once, however often it is asked, paid out of what it is owed', async () => {
    const alice = testbed.buyer('alice').evmAddress as Address;
    const before = await balanceOf(alice);
    const hash = await send(collector(), 3_000_000n);
    const [inflow] = await judged(hash);
    expect(inflow?.outcome).toBe('unsolicited');
    const id = inflow?.id as string;
    const owedBefore = await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19);
    const cli = (...args: string[]) => runCli(args, { DATABASE_URL: testbed.databaseUrl, ...NO_CHAIN_ENV });

    // While address screening lists the sender, nothing goes back to it, however the operator asks.
    await loadScreeningList(testbed.server.db, parseScreeningList(alice), 'test');
    const screened = await runCli(['inflows', 'return', id], {
      DATABASE_URL: testbed.databaseUrl,
      ...NO_CHAIN_ENV,
      SCREENING: 'list',
    });
    expect(screened.code).toBe(1);
    expect(screened.stderr).toContain('is blocked by address screening: the transfer stays held');
    const held = await testbed.server.db
      .selectFrom('collector_inflows')
      .select('return_status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(held.return_status).toBeNull();

    const asked = await cli('inflows', 'return', id);
    expect(asked.code, asked.stderr).toBe(0);
    expect(JSON.parse(asked.stdout)).toMatchObject({ inflowId: id, returnStatus: 'pending', returnTry: 1 });
    // Asked again, and kept meanwhile: neither a second transfer nor the operator's.
    expect(JSON.parse((await cli('inflows', 'return', id)).stdout)).toMatchObject({ returnTry: 1 });
    const kept = await cli('inflows', 'keep', id);
    expect([kept.code, kept.stderr]).toEqual([1, `paygate: ${id} is being sent back to its sender\n`]);
    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19)).toBe(owedBefore - 3_000_000n);

    await returnedAll([hash.toLowerCase()]);
    expect(await balanceOf(alice)).toBe(before);
    const journaled = await testbed.server.db
      .selectFrom('evm_transactions')
      .select('id')
      .where('purpose', '=', 'inflow_return')
      .where('payment_id', 'like', `${id}/%`)
      .execute();
    expect(journaled).toHaveLength(1);
    expect((await cli('inflows', 'list')).stdout).not.toContain(id);
    expect(JSON.parse((await cli('inflows', 'return', id)).stdout)).toMatchObject({ returnStatus: 'returned' });
    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19)).toBe(owedBefore - 3_000_000n);
    expect(await differing()).toEqual([]);
    expect(await auditPayoutsInFlight(testbed.server.db)).toEqual([]);
    expect((await auditUnsolicitedInflows(testbed.server.db)).filter((line) => line.difference !== '0')).toEqual([]);
    expect(await auditNegativeBalances(testbed.server.db)).toEqual([]);
  }, 180_000);
});
