import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Address, createPublicClient, erc20Abi, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { payInUsdc, usdcAssets, usdcBalance } from '../settlement/support.ts';
import { CRASHING_SERVICE, crashedAt, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';

/**
 * `paygate start` processes killed in the middle of a refund's transfer, then started again: the transfer is
 * journaled before it is sent, so the restarted process finishes that one transfer and never makes a second. The
 * payments and refunds are made through the in-process testbed, which runs no refund worker; the service processes
 * only send the refunds.
 */
describe('on-chain refunds across a crash of the service process', () => {
  let testbed: GatewayTestbed;
  let dataDir: string;
  let chainsFile: string;
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    testbed = await startGatewayTestbed();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-refund-restart-'));
    chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(networksFromDevnet(testbed.devnet.manifest)));
  }, 180_000);

  afterAll(async () => {
    for (const server of running) await server.stop().catch(() => {});
    await testbed?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function startService(crashAt?: string): Promise<ServerProcess> {
    const env = {
      DATABASE_URL: testbed.databaseUrl,
      DATA_DIR: dataDir,
      CHAINS: chainsFile,
      COLLECTOR_EVM_PRIVATE_KEY: testbed.keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: testbed.keys.solanaSeedHex,
      DEMO_PARTNER: 'never',
    };
    const server = await startServerProcess(env, crashAt ? [CRASHING_SERVICE, crashAt, 'refund'] : undefined);
    running.push(server);
    return server;
  }

  async function untilSucceeded(refundId: string, server: ServerProcess) {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const refund = await testbed.server.db
        .selectFrom('refunds')
        .selectAll()
        .where('id', '=', refundId)
        .executeTakeFirstOrThrow();
      if (refund.status !== 'pending') return refund;
      if (Date.now() > deadline) throw new Error(`refund still pending\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  for (const [chain, point] of [
    ['evm', 'recorded'],
    ['evm', 'broadcast'],
    ['solana', 'recorded'],
  ] as const) {
    it(`sends exactly one ${chain} refund when the process dies after its transfer is ${point}`, async () => {
      const buyer = chain === 'evm' ? testbed.evmAccount('bob') : testbed.solanaAccount('bob');
      const paymentId = await payInUsdc(testbed, testbed.merchantId, chain, 420n, 'bob');
      const made = await call(testbed.server, '/v1/refunds', {
        method: 'POST',
        headers: { 'api-key': testbed.partner.apiKey, 'merchant-id': testbed.merchantId },
        body: { paymentId, send: true },
      });
      expect([made.status, made.body.status]).toEqual([200, 'pending']);
      const before = await usdcBalance(testbed, buyer);
      const evm = createPublicClient({ transport: http(testbed.devnet.manifest.evm[0]!.rpcUrl) });
      const fromBlock = await evm.getBlockNumber();

      expect(await crashedAt(await startService(point), point)).toBe('SIGKILL');
      const journal =
        chain === 'evm'
          ? await testbed.server.db
              .selectFrom('evm_transactions')
              .select('status')
              .where('purpose', '=', 'refund')
              .where('payment_id', '=', made.body.id)
              .execute()
          : await testbed.server.db
              .selectFrom('solana_transactions')
              .select('status')
              .where('purpose', '=', 'refund')
              .where('reference', '=', made.body.id)
              .execute();
      expect(journal).toEqual([{ status: point === 'recorded' ? 'recorded' : 'broadcast' }]);
      if (point === 'recorded') expect(await usdcBalance(testbed, buyer)).toBe(before);

      const second = await startService();
      const refund = await untilSucceeded(made.body.id, second);
      await second.stop();
      expect(refund.status).toBe('succeeded');
      expect((await usdcBalance(testbed, buyer)) - before).toBe(4_200_000n);
      if (chain === 'evm') {
        // Everything the collector sent the buyer since the refund was made: one transfer, the refund's.
        const transfers = await evm.getContractEvents({
          address: usdcAssets(testbed).evm.address as Address,
          abi: erc20Abi,
          eventName: 'Transfer',
          args: { from: testbed.services.evm.collector as Address, to: buyer.split(':')[2] as Address },
          fromBlock,
        });
        expect(transfers.map((transfer) => [transfer.transactionHash, transfer.args.value])).toEqual([
          [refund.tx_hash, 4_200_000n],
        ]);
      } else {
        const entries = await testbed.server.db
          .selectFrom('solana_transactions')
          .select(['status', 'signature'])
          .where('reference', '=', made.body.id)
          .execute();
        expect(entries).toEqual([{ status: 'confirmed', signature: refund.tx_hash }]);
      }
    }, 240_000);
  }
});
