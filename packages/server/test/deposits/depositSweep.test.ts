import { readFileSync } from 'node:fs';
import { type Insertable, sql } from 'kysely';
import { type Abi, type Address, erc20Abi, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  depositAddress,
  depositFactoryAddress,
  merchantDepositAddress,
} from '../../src/chains/evm/deposits/addresses.ts';
import { hasCode } from '../../src/chains/evm/deposits/factory.ts';
import { NATIVE_TOKEN } from '../../src/chains/evm/deposits/nativeTransfers.ts';
import {
  DEPOSIT_RECOVERY_PURPOSE,
  DEPOSIT_SWEEP_PURPOSE,
  DepositSweeper,
} from '../../src/chains/evm/deposits/sweeper.ts';
import { EvmClients } from '../../src/chains/evm/clients.ts';
import { EvmFollower } from '../../src/chains/evm/follower.ts';
import { Relayer } from '../../src/chains/evm/relayer.ts';
import { connect, type Db } from '../../src/db/database.ts';
import type { PaymentsTable } from '../../src/db/schema.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import type { Logger } from '../../src/log.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { createIsolatedDatabase } from '../support/isolatedDatabase.ts';
import { nodeFailing } from '../support/nodeFailing.ts';
import { runCli } from '../support/serverProcess.ts';
import { warningsInto } from '../support/warnings.ts';

/** What a process killed right after journaling a transfer leaves: the journal row, nothing sent, nothing after it. */
class Killed extends Error {}

describe('deposit sweeps: funds at deposit addresses move to the collector once, through the relayer journal', () => {
  let env: EvmTestEnvironment;
  let database: { url: string; drop(): Promise<void> };
  let db: Db;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
    database = await createIsolatedDatabase();
    db = connect(database.url, 4);
    // The collector's gas is paid out of the operator's funding, in this database as in the run's.
    await recordFunding(db, env.funded);
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    await env?.close();
  });

  const balance = (token: 'USDC' | 'USDT' | 'EURC', owner: Address) =>
    env.client.readContract({
      address: env.token(token).address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    });
  const pay = async (token: 'USDC' | 'USDT' | 'EURC', to: Address, amount: bigint) => {
    const alice = env.buyer('alice');
    const hash = await alice.wallet.writeContract({
      chain: null,
      account: alice.account,
      address: env.token(token).address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
    });
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    return { hash, receipt };
  };
  const nativeToken = () => env.network.tokens.find((token) => token.method === 'native')!;
  /**
   * The deposit row the network's follower records for a transfer at depth: a token's Transfer log, or a
   * transaction's own value of the native coin.
   */
  const recordDeposit = async (
    paymentId: string,
    token: 'USDC' | 'USDT' | 'EURC' | 'native',
    amount: bigint,
    hash: Hex,
    block: bigint,
    listed = true,
  ) =>
    withDepositTables(db)
      .insertInto('evm_deposits')
      .values({
        chain: env.network.caip2,
        tx_hash: hash,
        log_index: token === 'native' ? -1 : 0,
        payment_id: paymentId,
        address: depositAddress(env.collector, paymentId).toLowerCase(),
        token: token === 'native' ? NATIVE_TOKEN : env.token(token).address.toLowerCase(),
        asset: listed ? (token === 'native' ? nativeToken() : env.token(token)).caip19 : null,
        from_address: env.buyer('alice').address.toLowerCase(),
        amount,
        block_number: block,
        block_hash: '0x00',
        outcome: token === 'USDC' || token === 'native' ? 'paid' : 'wrong_token',
      })
      .execute();
  /** A plain transfer of the native coin from alice. */
  const payNative = async (to: Address, value: bigint) => {
    const alice = env.buyer('alice');
    const hash = await alice.wallet.sendTransaction({ chain: null, account: alice.account, to, value });
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    return { hash, receipt };
  };
  /** Has the network's deposit follower read every block before `nextBlock`. */
  const followerAt = (nextBlock: bigint) =>
    withDepositTables(db)
      .insertInto('evm_deposit_cursors')
      .values({ chain: env.network.caip2, next_block: nextBlock })
      .onConflict((conflict) => conflict.column('chain').doUpdateSet({ next_block: nextBlock }))
      .execute();
  /** Runs the network's follower, as the service does, until none of the collector's transactions is open. */
  const followUntilSettled = async (relayer: Relayer) => {
    const follower = new EvmFollower({
      db,
      network: env.network,
      client: env.client,
      relayer,
      onFinal: async () => undefined,
      clock: { now: () => new Date() },
    });
    for (let round = 0; round < 200; round++) {
      const step = await follower.step();
      if (!step.busy) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the collector still has open transactions');
  };
  const sweepsOf = (paymentId: string) =>
    db
      .selectFrom('evm_transactions')
      .select(['id', 'status', 'nonce'])
      .where('purpose', '=', DEPOSIT_SWEEP_PURPOSE)
      .where('payment_id', '=', paymentId)
      .execute();

  /** A payment's deposits are swept once it has closed. */
  const closedPayments = (
    merchantId: string,
    paymentIds: string[],
    closed: Partial<Insertable<PaymentsTable>> = { status: 'succeeded' },
  ) => insertMerchantWithPayments(db, merchantId, paymentIds, closed);

  it('deploys the factory and sweeps every token of each payment once, even when the process dies after journaling a sweep', async () => {
    const merchantId = 'mrch_sweep_shop';
    const [first, second] = ['pay_sweep_first', 'pay_sweep_second'];
    await closedPayments(merchantId, [first, second]);
    const firstAddress = depositAddress(env.collector, first as string);
    const secondAddress = depositAddress(env.collector, second as string);
    const paidUsdc = await pay('USDC', firstAddress, 10_000_000n);
    const wrongUsdt = await pay('USDT', firstAddress, 5_000_000n);
    const secondUsdc = await pay('USDC', secondAddress, 3_000_000n);
    await recordDeposit(first as string, 'USDC', 10_000_000n, paidUsdc.hash, paidUsdc.receipt.blockNumber);
    await recordDeposit(first as string, 'USDT', 5_000_000n, wrongUsdt.hash, wrongUsdt.receipt.blockNumber);
    await recordDeposit(second as string, 'USDC', 3_000_000n, secondUsdc.hash, secondUsdc.receipt.blockNumber);
    // A Transfer logged by a contract the network does not list is left where it is, for the operator.
    const unlisted = await pay('EURC', secondAddress, 2_000_000n);
    await recordDeposit(second as string, 'EURC', 2_000_000n, unlisted.hash, unlisted.receipt.blockNumber, false);
    // The native coin, sent to the address before its forwarder exists.
    const alice = env.buyer('alice');
    const ethHash = await alice.wallet.sendTransaction({
      chain: null,
      account: alice.account,
      to: secondAddress,
      value: 5_000_000_000_000_000n,
    });
    const ethReceipt = await env.client.waitForTransactionReceipt({ hash: ethHash, pollingInterval: 100 });
    await withDepositTables(db)
      .insertInto('evm_deposits')
      .values({
        chain: env.network.caip2,
        tx_hash: ethHash,
        log_index: -1,
        payment_id: second as string,
        address: secondAddress.toLowerCase(),
        token: NATIVE_TOKEN,
        asset: env.network.tokens.find((token) => token.method === 'native')!.caip19,
        from_address: alice.address.toLowerCase(),
        amount: 5_000_000_000_000_000n,
        block_number: ethReceipt.blockNumber,
        block_hash: ethReceipt.blockHash,
        outcome: 'overpaid',
      })
      .execute();
    const before = { usdc: await balance('USDC', env.collector), usdt: await balance('USDT', env.collector) };
    expect(await hasCode(env.client, depositFactoryAddress(env.collector))).toBe(false);

    // The first process journals the factory's deployment and sends it; no sweep is recorded before the factory has
    // code, since a call to an address without code succeeds and moves nothing.
    let recorded = 0;
    const dying = new Relayer({ db, networks: env.networks, privateKey: env.collectorKey, clients: env.clients });
    const crashing = new DepositSweeper({
      db,
      network: env.network,
      client: env.client,
      relayer: dying,
      crash: () => {
        recorded += 1;
        if (recorded === 2) throw new Killed();
      },
    });
    const deployment = await crashing.step();
    expect(deployment).toHaveLength(1);
    expect(await sweepsOf(first as string)).toEqual([]);
    expect(await crashing.step()).toEqual([]);
    await followUntilSettled(dying);
    expect(await hasCode(env.client, depositFactoryAddress(env.collector))).toBe(true);
    // Then it journals the first sweep and dies there.
    await expect(crashing.step()).rejects.toBeInstanceOf(Killed);
    const journaled = await sweepsOf(first as string);
    expect(journaled).toEqual([expect.objectContaining({ status: 'recorded' })]);

    // The next process: its sweeper leaves the journaled sweep alone and sweeps the other payment; the follower
    // sends the journaled one.
    const relayer = new Relayer({ db, networks: env.networks, privateKey: env.collectorKey, clients: env.clients });
    const sweeper = new DepositSweeper({ db, network: env.network, client: env.client, relayer });
    const restarted = await sweeper.step();
    expect(restarted).toHaveLength(1);
    await followUntilSettled(relayer);
    expect(await sweeper.step()).toEqual([]);

    expect(await hasCode(env.client, depositFactoryAddress(env.collector))).toBe(true);
    expect(await sweepsOf(first as string)).toEqual([
      expect.objectContaining({ id: journaled[0]?.id, status: 'confirmed' }),
    ]);
    expect(await sweepsOf(second as string)).toEqual([expect.objectContaining({ status: 'confirmed' })]);
    expect(await balance('USDC', env.collector)).toBe(before.usdc + 13_000_000n);
    expect(await balance('USDT', env.collector)).toBe(before.usdt + 5_000_000n);
    for (const address of [firstAddress, secondAddress]) {
      expect(await balance('USDC', address)).toBe(0n);
      expect(await balance('USDT', address)).toBe(0n);
    }
    expect(await balance('EURC', secondAddress)).toBe(2_000_000n);
    expect(await env.client.getBalance({ address: secondAddress })).toBe(0n);

    // A later deposit to a swept address waits an hour after the last sweep (dust costs little gas), then is swept
    // through the forwarder that exists now.
    const late = await pay('USDC', firstAddress, 1_000_000n);
    await recordDeposit(first as string, 'USDC', 1_000_000n, late.hash, late.receipt.blockNumber);
    expect(await sweeper.step()).toEqual([]);
    await sql`UPDATE evm_transactions SET created_at = now() - interval '2 hours'
      WHERE purpose = ${DEPOSIT_SWEEP_PURPOSE} AND payment_id = ${first as string}`.execute(db);
    expect(await sweeper.step()).toHaveLength(1);
    await followUntilSettled(relayer);
    expect(await balance('USDC', firstAddress)).toBe(0n);
    expect(await balance('USDC', env.collector)).toBe(before.usdc + 14_000_000n);
    expect((await sweepsOf(first as string)).map((sweep) => sweep.status)).toEqual(['confirmed', 'confirmed']);
    // Each deposit is marked with the sweep that took it; the unlisted token's stays for the operator.
    expect(await sweeper.step()).toEqual([]);
    const marks = await withDepositTables(db)
      .selectFrom('evm_deposits')
      .select(['tx_hash', 'swept_by'])
      .where('payment_id', 'in', [first as string, second as string])
      .execute();
    const sweptBy = new Map(marks.map((mark) => [mark.tx_hash, mark.swept_by]));
    const [firstSweep, lateSweep] = (await sweepsOf(first as string)).map((sweep) => sweep.id);
    expect(sweptBy.get(paidUsdc.hash)).toBe(firstSweep);
    expect(sweptBy.get(wrongUsdt.hash)).toBe(firstSweep);
    expect(sweptBy.get(late.hash)).toBe(lateSweep);
    expect(sweptBy.get(secondUsdc.hash)).toEqual(expect.stringMatching(/^etx_/));
    expect(sweptBy.get(unlisted.hash)).toBeNull();
    // The ledger moves each swept deposit of a listed token from the deposit addresses to the collector, once.
    const swept = await db
      .selectFrom('ledger_entries')
      .select(['entry', 'account', 'amount'])
      .where(
        'entry',
        'in',
        [paidUsdc, late, unlisted].map((sent) => `swept:${env.network.caip2}:${sent.hash}:0`),
      )
      .orderBy('entry')
      .orderBy('account')
      .execute();
    expect(swept).toEqual(
      [paidUsdc, late]
        .flatMap((sent) => [
          { entry: `swept:${env.network.caip2}:${sent.hash}:0`, account: 'collector', amount: expect.any(String) },
          {
            entry: `swept:${env.network.caip2}:${sent.hash}:0`,
            account: 'deposit_addresses',
            amount: expect.stringMatching(/^-/),
          },
        ])
        .sort((a, b) => a.entry.localeCompare(b.entry)),
    );
    expect(swept.find((line) => line.entry.includes(late.hash) && line.account === 'collector')?.amount).toBe(
      '1000000',
    );

    // A native-coin deposit recorded before those sweeps, whose calls named only the tokens: no sweep took it (the
    // zero address is no word of their calldata), so the next step sweeps it on its own.
    const lateNative = `0x${'ab'.repeat(32)}`;
    await withDepositTables(db)
      .insertInto('evm_deposits')
      .values({
        chain: env.network.caip2,
        tx_hash: lateNative,
        log_index: -1,
        payment_id: first as string,
        address: firstAddress.toLowerCase(),
        token: NATIVE_TOKEN,
        asset: env.network.tokens.find((token) => token.method === 'native')!.caip19,
        from_address: alice.address.toLowerCase(),
        amount: 1n,
        block_number: 1n,
        block_hash: '0x00',
        outcome: 'paid_late',
        created_at: new Date('2026-01-01T00:00:00Z'),
      })
      .execute();
    await sql`UPDATE evm_transactions SET created_at = now() - interval '2 hours'
      WHERE purpose = ${DEPOSIT_SWEEP_PURPOSE} AND payment_id = ${first as string}`.execute(db);
    expect(await sweeper.step()).toHaveLength(1);
    await followUntilSettled(relayer);
    await sweeper.step();
    const nativeSweep = (await sweepsOf(first as string)).at(-1);
    expect(
      (
        await withDepositTables(db)
          .selectFrom('evm_deposits')
          .select('swept_by')
          .where('tx_hash', '=', lateNative)
          .executeTakeFirstOrThrow()
      ).swept_by,
    ).toBe(nativeSweep?.id);
  });
  // Each `paygate deposits` call below is a process of its own: a few seconds apiece on a busy machine.
  it('moves an unlisted token only when the operator asks (paygate deposits recover), once, marking what it took', async () => {
    const merchantId = 'mrch_recover_shop';
    const paymentId = 'pay_recover_stray';
    const partner = await closedPayments(merchantId, [paymentId], {
      status: 'expired',
      expires_at: new Date(Date.now() - 60_000),
    });
    // A token no network lists: the devnet's plain ERC-20, deployed afresh.
    const alice = env.buyer('alice');
    const plainToken = JSON.parse(
      readFileSync(new URL('../../../devnet/artifacts/PlainToken.json', import.meta.url), 'utf8'),
    ) as { abi: Abi; bytecode: Hex };
    const deployed = await alice.wallet.deployContract({
      abi: plainToken.abi,
      bytecode: plainToken.bytecode,
      args: ['Stray', 'STRAY', 6],
      account: alice.account,
      chain: null,
    });
    const stray = (await env.client.waitForTransactionReceipt({ hash: deployed, pollingInterval: 100 }))
      .contractAddress as Address;
    const strayBalance = (owner: Address) =>
      env.client.readContract({ address: stray, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
    const write = async (functionName: 'mint' | 'transfer', args: [Address, bigint]) =>
      env.client.waitForTransactionReceipt({
        hash: await alice.wallet.writeContract({
          chain: null,
          account: alice.account,
          address: stray,
          abi: plainToken.abi,
          functionName,
          args,
        }),
        pollingInterval: 100,
      });
    await write('mint', [alice.address, 5_000_000n]);
    const address = depositAddress(env.collector, paymentId);
    const sent = await write('transfer', [address, 5_000_000n]);
    await withDepositTables(db)
      .insertInto('evm_deposits')
      .values({
        chain: env.network.caip2,
        tx_hash: sent.transactionHash,
        log_index: 0,
        payment_id: paymentId,
        address: address.toLowerCase(),
        token: stray.toLowerCase(),
        asset: null,
        from_address: alice.address.toLowerCase(),
        amount: 5_000_000n,
        block_number: sent.blockNumber,
        block_hash: sent.blockHash,
        outcome: 'wrong_token',
      })
      .execute();
    const relayer = new Relayer({ db, networks: env.networks, privateKey: env.collectorKey, clients: env.clients });
    const sweeper = new DepositSweeper({ db, network: env.network, client: env.client, relayer });
    const cli = (...args: string[]) => runCli(['deposits', ...args], { DATABASE_URL: database.url });
    const ours = (stdout: string) =>
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((line: { paymentId: string }) => line.paymentId === paymentId);

    // Left alone until asked: the regular sweeps never call an unlisted token's contract.
    for (let round = 0; round < 3; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    expect(await strayBalance(address)).toBe(5_000_000n);
    const listed = await cli('unlisted');
    expect(listed.code, listed.stderr).toBe(0);
    expect(ours(listed.stdout)).toEqual([
      {
        paymentId,
        network: env.network.caip2,
        token: stray.toLowerCase(),
        address: address.toLowerCase(),
        transfers: '1',
        amount: '5000000',
        recoveryId: null,
        recovery: null,
      },
    ]);

    const args = ['--payment', paymentId, '--network', env.network.caip2];
    const malformed = await cli('recover', ...args, '--token', 'stray');
    expect({ code: malformed.code, stderr: malformed.stderr }).toEqual({
      code: 1,
      stderr: 'paygate: --token must be a token contract address (0x and 40 hex digits, not the zero address)\n',
    });
    const elsewhere = await cli('recover', ...args, '--token', env.token('USDC').address);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('is left to recover');
    const requested = await cli('recover', ...args, '--token', stray);
    expect(requested.code, requested.stderr).toBe(0);
    const request = JSON.parse(requested.stdout);
    expect(request).toMatchObject({
      recoveryId: expect.stringMatching(/^rcv_/),
      paymentId,
      network: env.network.caip2,
      token: stray.toLowerCase(),
      transfers: 1,
      amount: '5000000',
    });
    const twice = await cli('recover', ...args, '--token', stray);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already under way');

    const before = await strayBalance(env.collector);
    // Run alone, this test first has the factory deployed (a request is what the sweeper then has due).
    while (!(await hasCode(env.client, depositFactoryAddress(env.collector)))) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    // A process that dies right after journaling the recovery's sweep: the next one sends that sweep, signs none.
    const dying = new DepositSweeper({
      db,
      network: env.network,
      client: env.client,
      relayer,
      crash: () => {
        throw new Killed();
      },
    });
    await expect(dying.step()).rejects.toBeInstanceOf(Killed);
    for (let round = 0; round < 3; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    expect(await strayBalance(address)).toBe(0n);
    expect(await strayBalance(env.collector)).toBe(before + 5_000_000n);
    const recovery = await withDepositTables(db)
      .selectFrom('evm_deposit_recoveries')
      .selectAll()
      .where('id', '=', request.recoveryId)
      .executeTakeFirstOrThrow();
    expect(recovery.done_at).not.toBeNull();
    const sweeps = await db
      .selectFrom('evm_transactions')
      .select(['id', 'status'])
      .where('purpose', '=', DEPOSIT_RECOVERY_PURPOSE)
      .where('payment_id', '=', paymentId)
      .execute();
    expect(sweeps).toEqual([{ id: recovery.sweep_id, status: 'confirmed' }]);
    const [deposit] = await withDepositTables(db)
      .selectFrom('evm_deposits')
      .select('swept_by')
      .where('payment_id', '=', paymentId)
      .execute();
    expect(deposit?.swept_by).toBe(recovery.sweep_id);
    expect(ours((await cli('unlisted')).stdout)).toEqual([]);
    expect((await cli('recover', ...args, '--token', stray)).stderr).toContain('is left to recover');

    // A transfer the follower has not recorded (read later while many addresses are open, or sent after the watch
    // ended) to a payment with a deposit address: moved as the operator asks, the amount being what is there.
    const watchedId = 'pay_recover_unrecorded';
    await db
      .insertInto('payments')
      .values({
        id: watchedId,
        partner_id: partner.partnerId,
        merchant_id: merchantId,
        reference_id: watchedId,
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() - 60_000),
        status: 'expired',
      })
      .execute();
    const watchedAddress = depositAddress(env.collector, watchedId);
    await withDepositTables(db)
      .insertInto('evm_deposit_quotes')
      .values({
        payment_id: watchedId,
        chain: env.network.caip2,
        asset: env.token('USDC').caip19,
        address: watchedAddress.toLowerCase(),
        amount: 10_000_000n,
        watch_until: new Date(Date.now() - 1_000),
      })
      .execute();
    await write('mint', [alice.address, 700n]);
    await write('transfer', [watchedAddress, 700n]);
    const watchedArgs = ['--payment', watchedId, '--network', env.network.caip2, '--token', stray];
    const unrecorded = await cli('recover', ...watchedArgs);
    expect(unrecorded.code, unrecorded.stderr).toBe(0);
    expect(JSON.parse(unrecorded.stdout)).toMatchObject({ paymentId: watchedId, transfers: 0, amount: null });
    const collected = await strayBalance(env.collector);
    for (let round = 0; round < 3; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    expect(await strayBalance(watchedAddress)).toBe(0n);
    expect(await strayBalance(env.collector)).toBe(collected + 700n);
    // A listed token whose transfer is recorded is swept without asking.
    await withDepositTables(db)
      .insertInto('evm_deposits')
      .values({
        chain: env.network.caip2,
        tx_hash: `0x${'ab'.repeat(32)}`,
        log_index: 0,
        payment_id: watchedId,
        address: watchedAddress.toLowerCase(),
        token: env.token('USDC').address.toLowerCase(),
        asset: env.token('USDC').caip19,
        from_address: alice.address.toLowerCase(),
        amount: 1n,
        block_number: 1n,
        block_hash: `0x${'cd'.repeat(32)}`,
        outcome: 'paid_late',
      })
      .execute();
    const listedToken = await cli('recover', ...watchedArgs.slice(0, -1), env.token('USDC').address);
    expect(listedToken.code).toBe(1);
    expect(listedToken.stderr).toContain('are recorded and swept without asking');
    // Once the payment's sweeps failed three times they are the operator's to ask for, listed token or not.
    await db
      .insertInto('evm_transactions')
      .values(
        [0, 1, 2].map((attempt) => ({
          id: `etx_failed_sweep_${attempt}`,
          chain: env.network.caip2,
          from_address: env.collector.toLowerCase(),
          // Nonces far above any this collector used: the rows stand for sweeps that failed, nothing else.
          nonce: 1_000_000n + BigInt(attempt),
          to_address: depositFactoryAddress(env.collector).toLowerCase(),
          data: '0x',
          value: 0n,
          gas: 0n,
          purpose: DEPOSIT_SWEEP_PURPOSE,
          payment_id: watchedId,
          status: 'failed' as const,
          mined_hash: null,
          receipt_block_number: null,
          receipt_block_hash: null,
          failure_reason: 'reverted',
        })),
      )
      .execute();
    const afterFailures = await cli('recover', ...watchedArgs.slice(0, -1), env.token('USDC').address);
    expect(afterFailures.code, afterFailures.stderr).toBe(0);
    const listedRecovery = JSON.parse(afterFailures.stdout);
    expect(listedRecovery).toMatchObject({ paymentId: watchedId, token: env.token('USDC').address.toLowerCase() });
    // USDC sent there after the watch ended: the recovery moves it, and the ledger holds what no recorded deposit
    // explains (the 1 unit recorded above is) as unattributed for the merchant.
    await pay('USDC', watchedAddress, 5_000_001n);
    for (let round = 0; round < 3; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    expect(await balance('USDC', watchedAddress)).toBe(0n);
    expect(
      await db
        .selectFrom('ledger_entries')
        .select(['account', 'amount'])
        .where('entry', '=', `recovered:${listedRecovery.recoveryId}`)
        .orderBy('account')
        .execute(),
    ).toEqual([
      { account: 'collector', amount: '5000000' },
      { account: `unattributed:${merchantId}`, amount: '-5000000' },
    ]);
  }, 180_000);

  it('moves a token sent straight to a merchant’s own address when the operator asks (--merchant), holding it as unattributed for that merchant', async () => {
    const merchantId = 'mrch_recover_own_address';
    await closedPayments(merchantId, ['pay_recover_own_address']);
    const address = merchantDepositAddress(env.collector, merchantId);
    // Listed USDC a wallet sent to the merchant's x402 payTo with no x402 payment: no deposit records it.
    await pay('USDC', address, 3_000_000n);
    const relayer = new Relayer({ db, networks: env.networks, privateKey: env.collectorKey, clients: env.clients });
    const sweeper = new DepositSweeper({ db, network: env.network, client: env.client, relayer });
    const cli = (...args: string[]) => runCli(['deposits', ...args], { DATABASE_URL: database.url });
    const usdc = ['--network', env.network.caip2, '--token', env.token('USDC').address];

    const both = await cli('recover', '--payment', 'pay_x', '--merchant', merchantId, ...usdc);
    const neither = await cli('recover', ...usdc);
    for (const refused of [both, neither]) {
      expect({ code: refused.code, stderr: refused.stderr }).toEqual({
        code: 1,
        stderr: 'paygate: name the address to empty with one of --payment <paymentId> or --merchant <merchantId>\n',
      });
    }
    const unknown = await cli('recover', '--merchant', 'mrch_nobody', ...usdc);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'paygate: no merchant mrch_nobody\n']);
    const requested = await cli('recover', '--merchant', merchantId, ...usdc);
    expect(requested.code, requested.stderr).toBe(0);
    const request = JSON.parse(requested.stdout);
    expect(request).toMatchObject({
      recoveryId: expect.stringMatching(/^rcv_/),
      merchantId,
      token: env.token('USDC').address.toLowerCase(),
      transfers: 0,
      amount: null,
    });
    expect((await cli('recover', '--merchant', merchantId, ...usdc)).stderr).toContain('already under way');

    const collected = await balance('USDC', env.collector);
    while (!(await hasCode(env.client, depositFactoryAddress(env.collector)))) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    for (let round = 0; round < 3; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    expect(await balance('USDC', address)).toBe(0n);
    expect(await balance('USDC', env.collector)).toBe(collected + 3_000_000n);
    const sweeps = await db
      .selectFrom('evm_transactions')
      .select('status')
      .where('purpose', '=', DEPOSIT_RECOVERY_PURPOSE)
      .where('payment_id', '=', merchantId)
      .execute();
    expect(sweeps).toEqual([{ status: 'confirmed' }]);
    expect(
      await db
        .selectFrom('ledger_entries')
        .select(['account', 'amount'])
        .where('entry', '=', `recovered:${request.recoveryId}`)
        .orderBy('account')
        .execute(),
    ).toEqual([
      { account: 'collector', amount: '3000000' },
      { account: `unattributed:${merchantId}`, amount: '-3000000' },
    ]);
  }, 180_000);

  it('enters in the ledger what a sweep moved beyond the recorded deposits, once the follower has read its block', async () => {
    const merchantId = 'mrch_unexplained_shop';
    const paymentId = 'pay_sweep_unexplained';
    await closedPayments(merchantId, [paymentId]);
    const address = depositAddress(env.collector, paymentId);
    const paid = await pay('USDC', address, 4_000_000n);
    await recordDeposit(paymentId, 'USDC', 4_000_000n, paid.hash, paid.receipt.blockNumber);
    // A transfer the follower never recorded, and one it records only after the sweep (it was behind).
    await pay('USDC', address, 3_000_000n);
    const recordedLate = await pay('USDC', address, 2_000_000n);
    await followerAt(recordedLate.receipt.blockNumber);

    const relayer = new Relayer({ db, networks: env.networks, privateKey: env.collectorKey, clients: env.clients });
    const sweeper = new DepositSweeper({ db, network: env.network, client: env.client, relayer });
    for (let round = 0; round < 3 && !(await sweepsOf(paymentId)).length; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    const [sweep] = await sweepsOf(paymentId);
    expect(sweep?.status).toBe('confirmed');
    expect(await balance('USDC', address)).toBe(0n);
    await recordDeposit(paymentId, 'USDC', 2_000_000n, recordedLate.hash, recordedLate.receipt.blockNumber);
    const unexplained = () =>
      db
        .selectFrom('ledger_entries')
        .select(['account', 'amount'])
        .where('entry', '=', `unexplained:${sweep?.id}:${env.token('USDC').address.toLowerCase()}`)
        .orderBy('account')
        .execute();
    // The follower has not read the sweep's block yet: a deposit before it may still be recorded.
    await sweeper.step();
    expect(await unexplained()).toEqual([]);

    const { receipt_block_number: sweepBlock } = await db
      .selectFrom('evm_transactions')
      .select('receipt_block_number')
      .where('id', '=', sweep?.id as string)
      .executeTakeFirstOrThrow();
    await followerAt(BigInt(sweepBlock as string) + 1n);
    await sweeper.step();
    await sweeper.step();
    expect(await unexplained()).toEqual([
      { account: 'collector', amount: '3000000' },
      { account: `unattributed:${merchantId}`, amount: '-3000000' },
    ]);
    // The deposit recorded late is the sweep's: marked, and entered as swept, with no second sweep sent for it.
    const late = await withDepositTables(db)
      .selectFrom('evm_deposits')
      .select('swept_by')
      .where('tx_hash', '=', recordedLate.hash)
      .executeTakeFirstOrThrow();
    expect(late.swept_by).toBe(sweep?.id);
    expect(
      await db
        .selectFrom('ledger_entries')
        .select(['account', 'amount'])
        .where('entry', '=', `swept:${env.network.caip2}:${recordedLate.hash}:0`)
        .orderBy('account')
        .execute(),
    ).toEqual([
      { account: 'collector', amount: '2000000' },
      { account: 'deposit_addresses', amount: '-2000000' },
    ]);
    await sql`UPDATE evm_transactions SET created_at = now() - interval '2 hours' WHERE id = ${sweep?.id as string}`.execute(
      db,
    );
    await sweeper.step();
    expect(await sweepsOf(paymentId)).toHaveLength(1);
  });

  /**
   * A closed payment of `name` paid in the native coin, with a second transfer of the coin to its address that the
   * follower never recorded; swept by a sweeper reading the chain through `client`, confirmed, and compared once the
   * follower has read the sweep's block. Returns the sweep, the sweeper, and the sweep's ledger entry for the coin.
   */
  async function sweepUnrecordedNative(name: string, client: PublicClient, log?: Logger) {
    const merchantId = `mrch_${name}`;
    const paymentId = `pay_${name}`;
    await closedPayments(merchantId, [paymentId]);
    const address = depositAddress(env.collector, paymentId);
    const paid = await payNative(address, 3_000_000_000_000_000n);
    await recordDeposit(paymentId, 'native', 3_000_000_000_000_000n, paid.hash, paid.receipt.blockNumber);
    await payNative(address, 2_000_000_000_000_000n);
    // The follower is behind the sweep until it is confirmed: the sweep is compared once the cursor passes its block.
    await followerAt(paid.receipt.blockNumber);

    const relayer = new Relayer({ db, networks: env.networks, privateKey: env.collectorKey, clients: env.clients });
    const sweeper = new DepositSweeper({ db, network: env.network, client, relayer, log });
    for (let round = 0; round < 3 && !(await sweepsOf(paymentId)).length; round++) {
      await sweeper.step();
      await followUntilSettled(relayer);
    }
    const [sweep] = await sweepsOf(paymentId);
    expect(sweep?.status).toBe('confirmed');
    expect(await env.client.getBalance({ address })).toBe(0n);
    const { receipt_block_number: sweepBlock } = await db
      .selectFrom('evm_transactions')
      .select('receipt_block_number')
      .where('id', '=', sweep?.id as string)
      .executeTakeFirstOrThrow();
    await followerAt(BigInt(sweepBlock as string) + 1n);
    await sweeper.step();
    const unexplained = () =>
      db
        .selectFrom('ledger_entries')
        .select(['account', 'asset', 'amount'])
        .where('entry', '=', `unexplained:${sweep?.id}:${NATIVE_TOKEN}`)
        .orderBy('account')
        .execute();
    return { merchantId, paymentId, sweep: sweep as { id: string }, sweeper, unexplained };
  }

  it('enters in the ledger the native coin a sweep moved beyond the recorded deposits, read from its call trace', async () => {
    // The balance is refused, so what is entered can only come from the trace.
    const node = await nodeFailing('eth_getBalance', env.network.rpcUrl as string, {
      code: -32000,
      message: 'balance refused by the test',
    });
    onTestFinished(() => node.close());
    const { merchantId, sweeper, unexplained } = await sweepUnrecordedNative(
      'sweep_native_unexplained',
      new EvmClients().for({ ...env.network, rpcUrl: node.url }),
    );
    expect(node.refused()).toBe(0);
    const entered = [
      { account: 'collector', asset: nativeToken().caip19, amount: '2000000000000000' },
      { account: `unattributed:${merchantId}`, asset: nativeToken().caip19, amount: '-2000000000000000' },
    ];
    expect(await unexplained()).toEqual(entered);
    // Compared once: a further step enters nothing more.
    await sweeper.step();
    expect(await unexplained()).toEqual(entered);
  });

  it('reads the native coin a sweep moved from the balance before its block when the node serves no call traces', async () => {
    const node = await nodeFailing('debug_traceTransaction', env.network.rpcUrl as string, {
      code: -32601,
      message: 'the method debug_traceTransaction does not exist/is not available',
    });
    onTestFinished(() => node.close());
    const { merchantId, sweeper, unexplained } = await sweepUnrecordedNative(
      'sweep_native_untraced',
      new EvmClients().for({ ...env.network, rpcUrl: node.url }),
    );
    expect(node.refused()).toBe(1);
    const entered = [
      { account: 'collector', asset: nativeToken().caip19, amount: '2000000000000000' },
      { account: `unattributed:${merchantId}`, asset: nativeToken().caip19, amount: '-2000000000000000' },
    ];
    expect(await unexplained()).toEqual(entered);
    await sweeper.step();
    expect(await unexplained()).toEqual(entered);
  });

  it('compares a sweep for its tokens only, and says so, when the node can read neither its trace nor the balance', async () => {
    // A node that no longer keeps the state of the sweep's blocks.
    const node = await nodeFailing(['debug_traceTransaction', 'eth_getBalance'], env.network.rpcUrl as string, {
      code: -32000,
      message: 'missing trie node',
    });
    onTestFinished(() => node.close());
    const warnings: string[] = [];
    const { sweep, unexplained } = await sweepUnrecordedNative(
      'sweep_native_stateless',
      new EvmClients().for({ ...env.network, rpcUrl: node.url }),
      warningsInto(warnings),
    );
    expect(await unexplained()).toEqual([]);
    // Compared all the same, so the sweeps after it are not held up.
    const { reconciled_at } = await db
      .selectFrom('evm_transactions')
      .select('reconciled_at')
      .where('id', '=', sweep.id)
      .executeTakeFirstOrThrow();
    expect(reconciled_at).not.toBeNull();
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^sweep ${sweep.id} .* for its tokens only: .*call trace \\(missing trie node\\).*balance before its block \\(missing trie node\\)`,
        ),
      ),
    ]);
  });
});
