import { randomUUID } from 'node:crypto';
import { createPublicClient, encodeFunctionData, erc20Abi, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFeeSchedule } from '../../src/settlement/feeSchedules.ts';
import { computeFees, parsePercentage } from '../../src/settlement/fees.ts';
import type { SettlementWorker } from '../../src/settlement/worker.ts';
import { auditMerchantBalances } from '../../src/ledger/audit.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import {
  type GatewayTestbed,
  sendTransactionAsWallet,
  startGatewayTestbed,
} from '../gateway/support/gatewayTestbed.ts';
import { waitForRelayedOutcome } from '../support/chainWaits.ts';
import { createMerchant } from '../support/fixtures.ts';
import { call, expectErrorBody } from '../support/testServer.ts';
import {
  addDestination,
  changeDestination,
  newEvmDestination,
  newSolanaDestination,
  paymentItem,
  payInUsdc,
  usdcAssets,
  usdcBalance,
  settlementWorker,
  settleRound as settleRoundOf,
} from './support.ts';

/** Fees of a USD payment paid 1:1 in a 6-decimal USD stablecoin under 1.5 % + 0.30 USD. */
function expectedFees(fiatMinor: bigint) {
  return computeFees({
    tokenAmount: fiatMinor * 10_000n,
    fiatAmount: fiatMinor,
    fixedFiat: 30n,
    percentage: parsePercentage('1.5').value,
  });
}

describe('settlement on the devnet', () => {
  let testbed: GatewayTestbed;
  let worker: SettlementWorker;
  const problems: string[] = [];
  const ledgerLines = (entry: string) =>
    testbed.server.db
      .selectFrom('ledger_entries')
      .select(['account', 'asset', 'amount'])
      .where('entry', '=', entry)
      .orderBy('account')
      .execute();
  /** The ledger audit's lines of one merchant (other test files write to this database meanwhile). */
  const merchantAudit = async (merchantId: string) =>
    (await auditMerchantBalances(testbed.server.db))
      .filter((line) => line.merchantId === merchantId)
      .map(({ merchantId: _merchant, ...line }) => line);

  beforeAll(async () => {
    // The health gauges read afresh at every scrape: the shortfall shows as soon as it is recorded.
    testbed = await startGatewayTestbed({ env: { HEALTH_METRICS_INTERVAL_MS: '0' } });
    await setFeeSchedule(testbed.server.db, testbed.partner.partnerId, {
      percentage: '1.5',
      fixed: [{ currency: 'USD', amount: 30n }],
    });
    worker = settlementWorker(testbed, problems);
  }, 180_000);

  afterAll(async () => {
    await testbed?.close();
  });

  const settleRound = () => settleRoundOf(testbed, worker);

  const merchantHeaders = (merchantId: string) => ({ 'api-key': testbed.partner.apiKey, 'merchant-id': merchantId });

  it('refuses a payment too small to cover the fees, naming the minimum', async () => {
    // 1.5 % + 0.30 USD: the merchant keeps something from 0.31 USD on (30 * 100 / 98.5 = 30.4..., so 31 cents).
    const tooSmall = await call(testbed.server, '/v1/payments', {
      method: 'POST',
      headers: merchantHeaders(testbed.merchantId),
      body: { amount: { unit: 'iso4217/USD', value: '30' }, referenceId: 'too-small' },
    });
    expect(tooSmall.status, tooSmall.text).toBe(400);
    expect(expectErrorBody(tooSmall)).toMatchObject({
      code: 'params_validation',
      issues: [{ field: 'amount.value', message: expect.stringContaining('31 (0.31 USD)') }],
    });
    const smallest = await call(testbed.server, '/v1/payments', {
      method: 'POST',
      headers: merchantHeaders(testbed.merchantId),
      body: { amount: { unit: 'iso4217/USD', value: '31' }, referenceId: 'smallest' },
    });
    expect(smallest.status, smallest.text).toBe(201);
    // A currency without a fixed fee only needs the percentage covered.
    const euros = await call(testbed.server, '/v1/payments', {
      method: 'POST',
      headers: merchantHeaders(testbed.merchantId),
      body: { amount: { unit: 'iso4217/EUR', value: '1' }, referenceId: 'one-euro-cent' },
    });
    expect(euros.status, euros.text).toBe(201);
  });

  it('settles N USDC payments on an EVM chain and on Solana: each destination receives exactly the net sum, once', async () => {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const assets = usdcAssets(testbed);
    const evmDestination = newEvmDestination(testbed);
    const solanaDestination = await newSolanaDestination(testbed);
    await addDestination(testbed, merchantId, assets.evm.caip19, evmDestination);
    await addDestination(testbed, merchantId, assets.solana.caip19, solanaDestination);

    const evmAmounts = [1000n, 2345n, 99n];
    const solanaAmounts = [1500n, 777n, 31n];
    const evmPayments = [];
    for (const amount of evmAmounts) evmPayments.push(await payInUsdc(testbed, merchantId, 'evm', amount));
    const solanaPayments = [];
    for (const amount of solanaAmounts)
      solanaPayments.push(await payInUsdc(testbed, merchantId, 'solana', amount, 'erin'));

    // Fees are fixed when the payment succeeds; nothing is settled before the worker runs.
    const first = await paymentItem(testbed, merchantId, evmPayments[0]!);
    expect(first).toMatchObject({
      status: 'succeeded',
      fees: {
        total: { unit: `caip19/${assets.evm.caip19}`, value: '450000', display: { assetSymbol: 'USDC' } },
        fixed: { value: '300000' },
        percentage: '1.5',
      },
      settlement: { settled: false },
    });
    expect(first.settlement).toEqual({ settled: false });
    expect(first.settledAt).toBeUndefined();

    const before = {
      evm: await usdcBalance(testbed, evmDestination),
      solana: await usdcBalance(testbed, solanaDestination),
    };
    expect(before).toEqual({ evm: 0n, solana: 0n });
    const netSum = (amounts: bigint[]) => amounts.reduce((sum, amount) => sum + expectedFees(amount).net, 0n);
    // Each payment's ledger entry: the collector received the token amount, the merchant is owed the net, the
    // service the fee; the merchant's balance in the ledger is what its records add up to.
    const evmFees = expectedFees(evmAmounts[0]!);
    expect(await ledgerLines(`payment:${evmPayments[0]}`)).toEqual([
      { account: 'collector', asset: assets.evm.caip19, amount: (evmAmounts[0]! * 10_000n).toString() },
      { account: 'fees', asset: assets.evm.caip19, amount: (-evmFees.total).toString() },
      { account: `merchant:${merchantId}`, asset: assets.evm.caip19, amount: (-evmFees.net).toString() },
    ]);
    const owed = (amounts: bigint[]) => netSum(amounts).toString();
    expect(await merchantAudit(merchantId)).toEqual(
      [
        { asset: assets.evm.caip19, ledger: owed(evmAmounts), records: owed(evmAmounts), difference: '0' },
        { asset: assets.solana.caip19, ledger: owed(solanaAmounts), records: owed(solanaAmounts), difference: '0' },
      ].sort((a, b) => a.asset.localeCompare(b.asset)),
    );
    const round = await settleRound();
    expect(problems).toEqual([]);
    expect(round.created).toHaveLength(2);

    expect(await usdcBalance(testbed, evmDestination)).toBe(netSum(evmAmounts));
    // Settled: the ledger has the collector paying each batch, and the merchant is owed nothing in either.
    expect(await merchantAudit(merchantId)).toEqual([]);
    expect(await usdcBalance(testbed, solanaDestination)).toBe(netSum(solanaAmounts));

    const batches = await testbed.server.db
      .selectFrom('settlement_batches')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .execute();
    expect(batches.map((batch) => batch.status)).toEqual(['confirmed', 'confirmed']);
    for (const [paymentIds, amounts, asset] of [
      [evmPayments, evmAmounts, assets.evm.caip19],
      [solanaPayments, solanaAmounts, assets.solana.caip19],
    ] as const) {
      const batch = batches.find((candidate) => candidate.asset === asset)!;
      expect(BigInt(batch.amount)).toBe(netSum([...amounts]));
      // Taken from the merchant's account when the batch was claimed, paid by the collector once final.
      expect(await ledgerLines(`settlement:${batch.id}`)).toEqual([
        { account: `merchant:${merchantId}`, asset, amount: batch.amount },
        { account: 'payouts_in_flight', asset, amount: (-BigInt(batch.amount)).toString() },
      ]);
      expect(await ledgerLines(`settlement_sent:${batch.id}`)).toEqual([
        { account: 'collector', asset, amount: (-BigInt(batch.amount)).toString() },
        { account: 'payouts_in_flight', asset, amount: batch.amount },
      ]);
      for (const [index, paymentId] of paymentIds.entries()) {
        const item = await paymentItem(testbed, merchantId, paymentId);
        const fees = expectedFees(amounts[index]!);
        expect(item.fees).toMatchObject({
          total: { value: fees.total.toString() },
          fixed: { value: fees.fixed.toString() },
          percentage: '1.5',
        });
        const settledAmount = { unit: `caip19/${asset}`, value: fees.net.toString(), display: expect.any(Object) };
        expect(item.settlement).toEqual({
          settled: true,
          amount: settledAmount,
          txHash: batch.tx_hash,
          successful: { txId: batch.tx_hash, amount: settledAmount },
        });
        expect(new Date(item.settledAt).getTime()).toBeGreaterThanOrEqual(new Date(item.createdAt).getTime());
      }
    }
    // One transfer per batch on each chain's journal, and one payment.settled event per payment.
    expect(
      await testbed.server.db
        .selectFrom('evm_transactions')
        .select('id')
        .where('purpose', '=', 'settlement')
        .where(
          'payment_id',
          'in',
          batches.map((b) => b.id),
        )
        .execute(),
    ).toHaveLength(1);
    expect(
      await testbed.server.db
        .selectFrom('solana_transactions')
        .select('id')
        .where('purpose', '=', 'settlement')
        .where(
          'reference',
          'in',
          batches.map((b) => b.id),
        )
        .execute(),
    ).toHaveLength(1);
    const events = await testbed.server.db
      .selectFrom('webhook_events')
      .select('body')
      .where('merchant_id', '=', merchantId)
      .where('type', '=', 'payment.settled')
      .execute();
    const settledEvents = events.map((event) => JSON.parse(event.body).data.object);
    expect(settledEvents.map((object) => object.paymentId).sort()).toEqual([...evmPayments, ...solanaPayments].sort());
    expect(settledEvents.every((object) => object.settlement.settled === true && object.status === 'succeeded')).toBe(
      true,
    );

    // Another round finds nothing to do and sends nothing more.
    const again = await worker.runOnce();
    expect(again).toEqual({ created: [], settled: [], shortOf: [] });
    expect(await usdcBalance(testbed, evmDestination)).toBe(netSum(evmAmounts));
    expect(await usdcBalance(testbed, solanaDestination)).toBe(netSum(solanaAmounts));
  }, 180_000);

  it('settles a payment in the native coin with a plain value transfer of the net amount', async () => {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const chain = testbed.devnet.manifest.evm[0]!;
    const ether = testbed.chains.network(chain.caip2)!.tokens.find((token) => token.method === 'native')!;
    const destination = newEvmDestination(testbed);
    await addDestination(testbed, merchantId, ether.caip19, destination);

    const created = await call(testbed.server, '/v1/payments', {
      method: 'POST',
      headers: merchantHeaders(merchantId),
      body: { amount: { unit: 'iso4217/USD', value: '2500' }, referenceId: `order-${randomUUID()}` },
    });
    expect(created.status, created.text).toBe(201);
    const { paymentId } = created.body;
    const { body } = await testbed.gateway(paymentId, '/options', { accounts: [testbed.evmAccount('bob')] });
    const option = body.options.find((candidate: any) => candidate.amount.unit === `caip19/${ether.caip19}`);
    expect(option, JSON.stringify(body)).toBeDefined();
    const hash = await sendTransactionAsWallet(
      testbed.buyer('bob').evmPrivateKey,
      chain,
      option.actions[0].data.params,
    );
    const confirmed = await testbed.gateway(paymentId, '/confirm?maxPollMs=20000', {
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [hash] }],
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    for (
      let round = 0;
      round < 10 && (await testbed.gateway(paymentId, '/status?maxPollMs=20000')).body.status !== 'succeeded';
      round += 1
    );

    const paid = await paymentItem(testbed, merchantId, paymentId);
    expect(paid).toMatchObject({ status: 'succeeded', settlement: { settled: false } });
    // 25.00 USD at 3,000 USD per ETH; the fixed 0.30 USD is taken at the payment's own rate.
    const fees = computeFees({
      tokenAmount: BigInt(option.amount.value),
      fiatAmount: 2500n,
      fixedFiat: 30n,
      percentage: parsePercentage('1.5').value,
    });
    expect(paid.fees).toMatchObject({ total: { unit: `caip19/${ether.caip19}`, value: fees.total.toString() } });

    await settleRound();
    expect(problems).toEqual([]);
    const settled = await paymentItem(testbed, merchantId, paymentId);
    expect(settled.settlement).toMatchObject({ settled: true, amount: { value: fees.net.toString() } });
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    expect(await client.getBalance({ address: destination.split(':')[2] as Address })).toBe(fees.net);
    const transfer = await client.getTransaction({ hash: settled.settlement.txHash });
    expect([transfer.to?.toLowerCase(), transfer.value, transfer.input]).toEqual([
      destination.split(':')[2]!.toLowerCase(),
      fees.net,
      '0x',
    ]);
  });

  it('keeps a payment without a destination unsettled, settles it once one exists, and sends later batches to a changed destination', async () => {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const { evm } = usdcAssets(testbed);
    const early = await payInUsdc(testbed, merchantId, 'evm', 1200n, 'bob');
    await worker.runOnce();
    expect((await paymentItem(testbed, merchantId, early)).settlement).toEqual({ settled: false });
    expect(
      await testbed.server.db
        .selectFrom('settlement_batches')
        .select('id')
        .where('merchant_id', '=', merchantId)
        .execute(),
    ).toEqual([]);

    const firstAddress = newEvmDestination(testbed);
    const destinationId = await addDestination(testbed, merchantId, evm.caip19, firstAddress);
    await settleRound();
    const settledEarly = await paymentItem(testbed, merchantId, early);
    expect(settledEarly.settlement).toMatchObject({
      settled: true,
      amount: { value: expectedFees(1200n).net.toString() },
    });
    expect(await usdcBalance(testbed, firstAddress)).toBe(expectedFees(1200n).net);

    const secondAddress = newEvmDestination(testbed);
    await changeDestination(testbed, merchantId, destinationId, secondAddress);
    const later = await payInUsdc(testbed, merchantId, 'evm', 800n, 'bob');
    await settleRound();
    const settledLater = await paymentItem(testbed, merchantId, later);
    expect(settledLater.settlement).toMatchObject({
      settled: true,
      amount: { value: expectedFees(800n).net.toString() },
    });
    expect(settledLater.settlement.txHash).not.toBe(settledEarly.settlement.txHash);
    expect(await usdcBalance(testbed, secondAddress)).toBe(expectedFees(800n).net);
    expect(await usdcBalance(testbed, firstAddress)).toBe(expectedFees(1200n).net);
    const destinations = await testbed.server.db
      .selectFrom('settlement_batches')
      .select('destination')
      .where('merchant_id', '=', merchantId)
      .orderBy('created_at')
      .execute();
    expect(destinations.map((row) => row.destination)).toEqual([firstAddress, secondAddress]);
  }, 120_000);

  it('holds a batch back while the collector holds too little, reports the shortfall in /metrics, and pays in full once funded', async () => {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const { evm } = usdcAssets(testbed);
    const destination = newEvmDestination(testbed);
    await addDestination(testbed, merchantId, evm.caip19, destination);
    const paymentId = await payInUsdc(testbed, merchantId, 'evm', 2000n, 'alice');
    const net = expectedFees(2000n).net;

    // The collector's USDC leaves through the relayer (its nonces stay in step), all but less than this batch.
    const { collector, relayer, clients } = testbed.services.evm;
    const network = testbed.chains.network(testbed.evmChain())!;
    const held = await usdcBalance(testbed, `${testbed.evmChain()}:${collector}`);
    const keep = net - 1n;
    const drained = await relayer.submit({
      chain: testbed.evmChain(),
      to: evm.address as Address,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [testbed.buyer('dave').evmAddress as Address, held - keep],
      }),
      purpose: 'test_drain',
    });
    const onNetwork = { relayer, db: testbed.server.db, client: clients.for(network), network };
    expect((await waitForRelayedOutcome(onNetwork, drained.id)).status).toBe('confirmed');

    const short = await worker.runOnce();
    expect(short).toEqual({ created: [], settled: [], shortOf: [evm.caip19] });
    expect(problems.some((message) => message.includes(`collector holds ${keep} of ${evm.caip19}`))).toBe(true);
    expect((await paymentItem(testbed, merchantId, paymentId)).settlement).toEqual({ settled: false });
    expect(await usdcBalance(testbed, destination)).toBe(0n);
    const metrics = await call(testbed.server, '/metrics');
    expect(metrics.text).toContain(`paygate_settlement_collector_shortfall{asset="${evm.caip19}"} 1`);

    await recordFunding(testbed.server.db, await testbed.devnet.fund({ evm: [collector] }));
    const funded = await settleRound();
    expect(funded.created).toHaveLength(1);
    expect(funded.shortOf).toEqual([]);
    expect(await usdcBalance(testbed, destination)).toBe(net);
    expect((await paymentItem(testbed, merchantId, paymentId)).settlement).toMatchObject({ settled: true });
    expect((await call(testbed.server, '/metrics')).text).not.toContain('paygate_settlement_collector_shortfall{');
  }, 120_000);
});
