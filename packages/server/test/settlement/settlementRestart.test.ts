import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Address, createPublicClient, erc20Abi, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { computeFees, parsePercentage } from '../../src/settlement/fees.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  CRASHING_SERVICE,
  crashedAt,
  runCli,
  type ServerProcess,
  startServerProcess,
} from '../support/serverProcess.ts';
import {
  addDestination,
  newEvmDestination,
  newSolanaDestination,
  paymentItem,
  payInUsdc,
  usdcAssets,
  usdcBalance,
} from './support.ts';

/**
 * `paygate start` processes killed in the middle of a settlement transfer, then started again: the transfer is
 * journaled before it is sent, so the restarted process finishes that one transfer and never makes a second.
 * Payments are made beforehand through the in-process testbed; the service processes only settle.
 */
describe('settlement across a crash of the service process', () => {
  let testbed: GatewayTestbed;
  let dataDir: string;
  let chainsFile: string;
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-settlement-restart-'));
    chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(networksFromDevnet(testbed.devnet.manifest)));
  }, 180_000);

  afterAll(async () => {
    for (const server of running) await server.stop().catch(() => {});
    await testbed?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  const serviceEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: testbed.databaseUrl,
    DATA_DIR: dataDir,
    CHAINS: chainsFile,
    COLLECTOR_EVM_PRIVATE_KEY: testbed.keys.evmPrivateKey,
    COLLECTOR_SOLANA_SEED: testbed.keys.solanaSeedHex,
    DEMO_PARTNER: 'never',
    SETTLEMENT_INTERVAL_MS: '300',
    ...extra,
  });

  async function startService(crashAt?: string): Promise<ServerProcess> {
    const server = await startServerProcess(serviceEnv(), crashAt ? [CRASHING_SERVICE, crashAt] : undefined);
    running.push(server);
    return server;
  }

  async function batchesOf(merchantId: string) {
    return testbed.server.db
      .selectFrom('settlement_batches')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .execute();
  }

  async function untilSettled(merchantId: string, server: ServerProcess): Promise<void> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const batches = await batchesOf(merchantId);
      if (batches.length && batches.every((batch) => batch.status === 'confirmed')) return;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(batches)}\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Every USDC Transfer event to `owner` on the EVM devnet chain: what actually moved on chain. */
  async function evmTransfersTo(owner: string) {
    const client = createPublicClient({ transport: http(testbed.devnet.manifest.evm[0]!.rpcUrl) });
    return client.getContractEvents({
      address: usdcAssets(testbed).evm.address as Address,
      abi: erc20Abi,
      eventName: 'Transfer',
      args: { to: owner as Address },
      fromBlock: 0n,
    });
  }

  const net = (fiatMinor: bigint) =>
    computeFees({
      tokenAmount: fiatMinor * 10_000n,
      fiatAmount: fiatMinor,
      fixedFiat: 50n,
      percentage: parsePercentage('2.5').value,
    }).net;

  it('sets the partner fees with the operator command', async () => {
    const set = await runCli(
      ['partner', 'set-fees', testbed.partner.partnerId, '--percentage', '2.50', '--fixed', 'USD:50'],
      serviceEnv(),
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      partnerId: testbed.partner.partnerId,
      percentage: '2.5',
      fixed: [{ currency: 'USD', amount: '50' }],
    });
    const refused = await runCli(
      ['partner', 'set-fees', testbed.partner.partnerId, '--percentage', '100'],
      serviceEnv(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a percentage is a decimal from 0 to below 100');
  }, 120_000);

  for (const [chain, point] of [
    ['evm', 'recorded'],
    ['evm', 'broadcast'],
    ['solana', 'recorded'],
  ] as const) {
    it(`makes exactly one ${chain} transfer when the process dies after the transfer is ${point}`, async () => {
      const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
      const assets = usdcAssets(testbed);
      const destination = chain === 'evm' ? newEvmDestination(testbed) : await newSolanaDestination(testbed);
      await addDestination(
        testbed,
        merchantId,
        chain === 'evm' ? assets.evm.caip19 : assets.solana.caip19,
        destination,
      );
      const amounts = [1250n, 640n];
      const payments = [];
      for (const amount of amounts)
        payments.push(await payInUsdc(testbed, merchantId, chain, amount, chain === 'evm' ? 'bob' : 'alice'));
      const owed = amounts.reduce((sum, amount) => sum + net(amount), 0n);

      const first = await startService(point);
      expect(await crashedAt(first, point)).toBe('SIGKILL');
      const [batch] = await batchesOf(merchantId);
      expect(batch).toMatchObject({ status: 'sent', amount: owed.toString(), destination });
      const journal =
        chain === 'evm'
          ? await testbed.server.db
              .selectFrom('evm_transactions')
              .select('status')
              .where('purpose', '=', 'settlement')
              .where('payment_id', '=', batch!.id)
              .execute()
          : await testbed.server.db
              .selectFrom('solana_transactions')
              .select('status')
              .where('purpose', '=', 'settlement')
              .where('reference', '=', batch!.id)
              .execute();
      expect(journal).toEqual([{ status: point === 'recorded' ? 'recorded' : 'broadcast' }]);
      if (point === 'recorded') expect(await usdcBalance(testbed, destination)).toBe(0n);

      const second = await startService();
      await untilSettled(merchantId, second);
      await second.stop();

      expect(await usdcBalance(testbed, destination)).toBe(owed);
      const batches = await batchesOf(merchantId);
      expect(batches).toHaveLength(1);
      if (chain === 'evm') {
        const transfers = await evmTransfersTo(destination.split(':')[2]!);
        expect(transfers).toHaveLength(1);
        expect(transfers[0]!.args.value).toBe(owed);
        expect(transfers[0]!.transactionHash).toBe(batches[0]!.tx_hash);
      } else {
        const entries = await testbed.server.db
          .selectFrom('solana_transactions')
          .select(['status', 'signature'])
          .where('reference', '=', batches[0]!.id)
          .execute();
        expect(entries).toEqual([{ status: 'confirmed', signature: batches[0]!.tx_hash }]);
      }
      for (const paymentId of payments) {
        expect((await paymentItem(testbed, merchantId, paymentId)).settlement).toMatchObject({
          settled: true,
          txHash: batches[0]!.tx_hash,
        });
      }
    }, 240_000);
  }

  it('makes exactly one solana transfer when the process is killed the moment the journal marks its transfer sent', async () => {
    const merchantId = (await createMerchant(testbed.server, testbed.partner.apiKey)).id;
    const destination = await newSolanaDestination(testbed);
    await addDestination(testbed, merchantId, usdcAssets(testbed).solana.caip19, destination);
    const paymentId = await payInUsdc(testbed, merchantId, 'solana', 2100n, 'alice');

    // No crash point: killed from outside the moment the journal says the transfer went to the node.
    const first = await startService();
    const deadline = Date.now() + 60_000;
    let sentEntry: { status: string } | undefined;
    while (!sentEntry) {
      const [batch] = await batchesOf(merchantId);
      sentEntry = batch
        ? await testbed.server.db
            .selectFrom('solana_transactions')
            .select('status')
            .where('reference', '=', batch.id)
            .where('status', 'in', ['sent', 'confirmed'])
            .executeTakeFirst()
        : undefined;
      if (Date.now() > deadline) throw new Error(`no transfer sent:\n${first.output()}`);
      if (!sentEntry) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    first.child.kill('SIGKILL');
    await new Promise((resolve) =>
      first.child.exitCode !== null || first.child.signalCode !== null
        ? resolve(null)
        : first.child.once('exit', resolve),
    );

    const second = await startService();
    await untilSettled(merchantId, second);
    await second.stop();
    const [batch, ...others] = await batchesOf(merchantId);
    expect(others).toEqual([]);
    expect(await usdcBalance(testbed, destination)).toBe(net(2100n));
    const entries = await testbed.server.db
      .selectFrom('solana_transactions')
      .select(['status', 'signature'])
      .where('reference', '=', batch!.id)
      .execute();
    expect(entries).toEqual([{ status: 'confirmed', signature: batch!.tx_hash }]);
    expect((await paymentItem(testbed, merchantId, paymentId)).settlement).toMatchObject({
      settled: true,
      txHash: batch!.tx_hash,
    });
  }, 240_000);

  it('reports the fees kept by the collector with the operator command', async () => {
    const report = await runCli(['fees', 'report', '--partner', testbed.partner.partnerId], serviceEnv());
    expect(report.code, report.stderr).toBe(0);
    const body = JSON.parse(report.stdout);
    const rows = await testbed.server.db
      .selectFrom('payments')
      .select(['token_asset', 'fee_total', 'settled_at'])
      .where('partner_id', '=', testbed.partner.partnerId)
      .where('status', '=', 'succeeded')
      .execute();
    const sum = (asset: string, settledOnly: boolean) =>
      rows
        .filter((row) => row.token_asset === asset && (!settledOnly || row.settled_at))
        .reduce((total, row) => total + BigInt(row.fee_total ?? 0), 0n)
        .toString();
    const assets = usdcAssets(testbed);
    expect(body.schedule).toEqual({ percentage: '2.5', fixed: [{ currency: 'USD', amount: '50' }] });
    for (const asset of [assets.evm.caip19, assets.solana.caip19]) {
      const line = body.fees.find((candidate: { asset: string }) => candidate.asset === asset);
      expect(line).toMatchObject({
        symbol: 'USDC',
        total: sum(asset, false),
        settled: sum(asset, true),
        unsettled: '0',
      });
      expect(BigInt(line.total)).toBeGreaterThan(0n);
    }
    const unknown = await runCli(['fees', 'report', '--partner', 'ptr_nobody'], serviceEnv());
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'paygate: partner ptr_nobody does not exist']);
  }, 120_000);
});
