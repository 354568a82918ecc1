import net, { type AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createPublicClient, http } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { depositReadPositions } from '../../src/chains/evm/deposits/depositScanner.ts';
import { FixedPriceSource } from '../../src/chains/prices/fixedPriceSource.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { createChainServices } from '../../src/composition/createChainServices.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { scrape } from '../support/prometheusText.ts';
import { newPartner, startTestServer, type TestServer } from '../support/testServer.ts';

/** A port nothing listens on: a node that refuses every connection. */
async function closedPort(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('/metrics: the followers, the nodes and the collector on a devnet', () => {
  let service: DevnetService;
  let funded: { asset: string; amount: bigint }[];

  const evm = () => service.devnet.manifest.evm[0]!;
  const solana = () => service.devnet.manifest.solana;
  const evmHeight = () => createPublicClient({ transport: http(evm().rpcUrl) }).getBlockNumber({ cacheTime: 0 });
  const evmPosition = async () =>
    (await depositReadPositions(service.server.db)).find((position) => position.chain === evm().caip2)?.readUpTo;

  beforeAll(async () => {
    service = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
      env: { HEALTH_METRICS_INTERVAL_MS: '0' },
    });
    const { server } = service;
    const partner = await newPartner(server.db);
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    // Funded a second time without the funding recorded: the chain holds twice what the ledger does.
    const collector = await collectorAddresses(service.keys);
    funded = await service.devnet.fund({ evm: [collector.evm], solana: [collector.solana] });
    // A deposit address open on the EVM network: its deposit follower stores where it has read to.
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    const usdc = evm().tokens.find((token) => token.symbol === 'USDC')!;
    await quoteDeposit(server.db, service.services.evm.collector, paymentId, {
      chain: evm().caip2,
      asset: usdc.caip19,
    });
  }, 180_000);

  afterAll(() => service?.close());

  it("reports each network followed, its node answering, and how far behind the EVM deposit follower's position is", async () => {
    await expect.poll(evmPosition, { timeout: 20_000 }).toBeDefined();
    const [heightBefore, positionBefore] = [await evmHeight(), (await evmPosition())!];
    const metrics = await scrape(service.server);
    const [heightAfter, positionAfter] = [await evmHeight(), (await evmPosition())!];

    for (const network of [evm().caip2, solana().caip2]) {
      expect(metrics.value('paygate_chain_followed', { network }), network).toBe(1);
      expect(metrics.value('paygate_chain_node_up', { network }), network).toBe(1);
    }
    // Behind the newest final block: the confirmation depth below the head is where the follower should be.
    const depth = BigInt(service.chains.network(evm().caip2)!.confirmations);
    const atLeastZero = (blocks: bigint) => Number(blocks > 0n ? blocks : 0n);
    const behind = metrics.value('paygate_chain_follower_blocks_behind', { network: evm().caip2 })!;
    expect(behind).toBeGreaterThanOrEqual(atLeastZero(heightBefore - depth - positionAfter));
    expect(behind).toBeLessThanOrEqual(atLeastZero(heightAfter - depth - positionBefore));
    const blockTimeMs = service.chains.network(evm().caip2)!.blockTimeMs;
    expect(metrics.value('paygate_chain_follower_seconds_behind', { network: evm().caip2 })).toBeCloseTo(
      (behind * blockTimeMs) / 1000,
    );
    // Solana's follower keeps no slot position: it reads open transactions by signature.
    expect(metrics.value('paygate_chain_follower_blocks_behind', { network: solana().caip2 })).toBeUndefined();
  });

  it("reports the collector's difference from the ledger per asset as paygate audit finds it, its gas, and the funding for fees", async () => {
    const metrics = await scrape(service.server);
    const assets = [...new Set(funded.map((each) => each.asset))];
    const differences = metrics.samples.filter((sample) => sample.name === 'paygate_collector_audit_difference');
    expect(differences.map((sample) => sample.labels.asset).sort()).toEqual(assets.sort());
    for (const asset of assets) {
      const once = funded.filter((each) => each.asset === asset).reduce((sum, each) => sum + each.amount, 0n);
      // Funded twice on the chain, recorded once in the ledger.
      expect(metrics.value('paygate_collector_audit_difference', { asset }), asset).toBe(Number(once));
    }
    for (const network of service.chains.networks) {
      const native = network.tokens.find((token) => token.method === 'native')!;
      const once = funded.filter((each) => each.asset === native.caip19).reduce((sum, each) => sum + each.amount, 0n);
      expect(once, native.caip19).toBeGreaterThan(0n);
      expect(metrics.value('paygate_collector_gas_balance', { network: network.caip2 })).toBeCloseTo(
        Number(2n * once) / 10 ** native.decimals,
      );
      // Only the first funding was recorded, and no transaction has spent any of it on fees.
      expect(metrics.value('paygate_network_fee_funding', { network: network.caip2 })).toBeCloseTo(
        Number(once) / 10 ** native.decimals,
      );
    }
  });

  describe('nodes that refuse every connection', () => {
    let other: TestServer;
    let servicesDb: Db;

    beforeAll(async () => {
      const networks = [
        { ...service.chains.network(evm().caip2)!, rpcUrl: await closedPort() },
        { ...service.chains.network(solana().caip2)!, rpcUrl: await closedPort() },
      ];
      servicesDb = connect(service.databaseUrl, 2);
      const chainServices = await createChainServices({
        db: servicesDb,
        networks,
        keys: { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') },
        prices: new FixedPriceSource({}),
      });
      other = await startTestServer({
        databaseUrl: service.databaseUrl,
        env: { HEALTH_METRICS_INTERVAL_MS: '0' },
        context: { chains: new ChainRegistry(networks), chainServices },
      });
    });

    afterAll(async () => {
      await other?.close();
      await servicesDb?.destroy();
    });

    it('counts the failed RPC requests per network, shows the nodes down, and leaves out what only they could tell', async () => {
      const failed = async (network: string) =>
        (await scrape(service.server)).value('paygate_rpc_requests_total', { network, outcome: 'failed' }) ?? 0;
      const answered = async (network: string) =>
        (await scrape(service.server)).value('paygate_rpc_requests_total', { network, outcome: 'answered' }) ?? 0;
      const before = { evm: await failed(evm().caip2), solana: await failed(solana().caip2) };
      // The devnet's own nodes answer this process's followers and health readings.
      expect(await answered(evm().caip2)).toBeGreaterThan(0);
      expect(await answered(solana().caip2)).toBeGreaterThan(0);

      const metrics = await scrape(other);
      for (const network of [evm().caip2, solana().caip2]) {
        expect(metrics.value('paygate_chain_node_up', { network }), network).toBe(0);
        expect(metrics.value('paygate_chain_follower_blocks_behind', { network }), network).toBeUndefined();
        expect(metrics.value('paygate_collector_gas_balance', { network }), network).toBeUndefined();
        // The ledger is in the database: the funding shows whatever the nodes do.
        expect(metrics.value('paygate_network_fee_funding', { network }), network).toBeGreaterThan(0);
      }
      expect(metrics.value('paygate_health_reading_up')).toBe(1);
      expect(await failed(evm().caip2)).toBeGreaterThan(before.evm);
      expect(await failed(solana().caip2)).toBeGreaterThan(before.solana);
    });
  });
});
