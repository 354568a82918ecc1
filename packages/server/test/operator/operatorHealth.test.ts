import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createPublicClient, http } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { FixedPriceSource } from '../../src/chains/prices/fixedPriceSource.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { createSignInLink } from '../../src/dashboard/sessions.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { createChainServices } from '../../src/composition/createChainServices.ts';
import { quoteDeposit } from '../support/depositQuote.ts';
import { type DevnetService, startDevnetService } from '../support/devnetService.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { callAsOperator, type OperatorSignIn, signInOperator } from '../support/operatorSession.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

/** A node that takes connections and never answers. */
async function silentNode() {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: a node that refuses the connection. */
async function closedPort(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('GET /operator/api/health: chains, followers, jobs, webhooks, settlements and the collector', () => {
  let service: DevnetService;
  let server: TestServer;
  let partner: TestPartner;
  let operator: OperatorSignIn;
  let merchantId: string;
  let funded: { asset: string; amount: bigint }[];

  const evm = () => service.devnet.manifest.evm[0]!;
  const solana = () => service.devnet.manifest.solana;
  const health = async (target: { url: string } = server) => {
    const result = await callAsOperator(target, operator, '/operator/api/health');
    expect(result.status, result.text).toBe(200);
    return result.body;
  };
  const networkOf = (body: any, caip2: string) => body.networks.find((each: any) => each.network === caip2);

  /** The devnet's own heights, asked directly of its nodes. */
  const devnetHeights = async () => ({
    evm: await createPublicClient({ transport: http(evm().rpcUrl) }).getBlockNumber({ cacheTime: 0 }),
    solana: await solanaRpc(solana().rpcUrl).getSlot({ commitment: 'confirmed' }).send(),
  });

  beforeAll(async () => {
    service = await startDevnetService({
      prices: { 'EURC/USD': '1.087', 'ETH/USD': '3000' },
      env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' },
    });
    server = service.server;
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
    // The collector is funded a second time, that funding not recorded (the first was, by the service): the ledger
    // then holds half of what the chain does.
    const collector = await collectorAddresses(service.keys);
    funded = await service.devnet.fund({ evm: [collector.evm], solana: [collector.solana] });

    // One endpoint, one payment: one delivery pending and its job due (this server runs no webhook workers).
    const endpoint = await call(server, '/v1/webhooks', {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { url: 'https://127.0.0.1:9/hook', events: ['payment.created'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    // A deposit address opened on the EVM network: its deposit follower stores where it has read to.
    const usdc = evm().tokens.find((token) => token.symbol === 'USDC')!;
    await quoteDeposit(server.db, service.services.evm.collector, paymentId, {
      chain: evm().caip2,
      asset: usdc.caip19,
    });
    const batch = (id: string, status: 'claimed' | 'sent' | 'confirmed', amount: bigint) => ({
      id,
      merchant_id: merchantId,
      asset: usdc.caip19,
      network: evm().caip2,
      destination: `${evm().caip2}:0x1111111111111111111111111111111111111111`,
      amount,
      status,
    });
    await server.db
      .insertInto('settlement_batches')
      .values([
        batch('stb_health_claimed', 'claimed', 1_500_000n),
        batch('stb_health_sent_1', 'sent', 2_000_000n),
        batch('stb_health_sent_2', 'sent', 3_000_000n),
        batch('stb_health_confirmed', 'confirmed', 9_000_000n),
      ])
      .execute();
    operator = await signInOperator(server);
  }, 180_000);

  afterAll(() => service?.close());

  describe('happy path', () => {
    it("shows each devnet node's real height, and its follower: followed, where it has read to and how far behind", async () => {
      // The EVM deposit follower stores its position once it has read with the deposit address open.
      await expect
        .poll(async () => networkOf(await health(), evm().caip2).follower.readUpTo, { timeout: 20_000 })
        .not.toBeNull();
      const before = await devnetHeights();
      const body = await health();
      const after = await devnetHeights();

      const evmHealth = networkOf(body, evm().caip2);
      expect(evmHealth).toMatchObject({
        name: evm().name,
        unit: 'block',
        confirmations: 1,
        node: { status: 'reachable', problem: null },
        follower: { followed: true },
        collector: { status: 'reachable', problem: null },
      });
      const evmLatest = BigInt(evmHealth.node.latest);
      expect(evmLatest >= before.evm && evmLatest <= after.evm, `${before.evm} ≤ ${evmLatest} ≤ ${after.evm}`).toBe(
        true,
      );
      const readUpTo = BigInt(evmHealth.follower.readUpTo);
      expect(readUpTo <= evmLatest).toBe(true);
      expect(BigInt(evmHealth.follower.lag)).toBe(evmLatest - readUpTo);
      expect(Date.parse(evmHealth.follower.movedAt)).toBeGreaterThan(Date.now() - 60_000);

      const solanaHealth = networkOf(body, solana().caip2);
      expect(solanaHealth).toMatchObject({
        unit: 'slot',
        node: { status: 'reachable', problem: null },
        // Solana's follower keeps no slot position: it reads open transactions by signature.
        follower: { followed: true, readUpTo: null, lag: null, movedAt: null },
        collector: { status: 'reachable' },
      });
      const slot = BigInt(solanaHealth.node.latest);
      expect(slot >= before.solana && slot <= after.solana, `${before.solana} ≤ ${slot} ≤ ${after.solana}`).toBe(true);
    });

    it('compares the collector on the chain with the ledger as paygate audit does: what was not recorded differs', async () => {
      const body = await health();
      const balances = body.networks.flatMap((network: any) => network.collector.balances);
      const fundedAssets = [...new Set(funded.map((each) => each.asset))];
      expect(balances.map((balance: any) => balance.asset).sort()).toEqual(fundedAssets.sort());
      for (const asset of fundedAssets) {
        const once = funded.filter((each) => each.asset === asset).reduce((sum, each) => sum + each.amount, 0n);
        const balance = balances.find((each: any) => each.asset === asset);
        // Funded twice on the chain, recorded once in the ledger.
        expect([balance.chain, balance.ledger, balance.difference], asset).toEqual([
          (2n * once).toString(),
          once.toString(),
          once.toString(),
        ]);
        expect(balance.readAt).toMatch(asset.startsWith('solana:') ? /^(confirmed|finalized)$/ : /^block \d+$/);
        expect(typeof balance.symbol).toBe('string');
      }
    });

    it('counts the job queue, pending webhook deliveries and unconfirmed settlement batches', async () => {
      const body = await health();
      expect(body.webhooks).toEqual({ pending: 1, retrying: 0, oldestPendingSince: expect.any(String) });
      expect(body.jobs.find((job: any) => job.task === 'webhooks_deliver')).toEqual({
        task: 'webhooks_deliver',
        due: 1,
        scheduled: 0,
        running: 0,
        givenUp: 0,
        oldestDueAt: expect.any(String),
      });
      const usdc = evm().tokens.find((token) => token.symbol === 'USDC')!;
      expect(body.settlements).toEqual({
        unconfirmed: [
          {
            asset: usdc.caip19,
            symbol: 'USDC',
            decimals: 6,
            status: 'claimed',
            batches: 1,
            amount: '1500000',
            oldestCreatedAt: expect.any(String),
          },
          {
            asset: usdc.caip19,
            symbol: 'USDC',
            decimals: 6,
            status: 'sent',
            batches: 2,
            amount: '5000000',
            oldestCreatedAt: expect.any(String),
          },
        ],
        shortfalls: [],
      });
    });
  });

  describe('errors', () => {
    let other: TestServer;
    let silent: Awaited<ReturnType<typeof silentNode>>;
    let servicesDb: Db;

    beforeAll(async () => {
      silent = await silentNode();
      // The devnet's networks with nodes that do not answer: the EVM one never answers, the Solana one refuses.
      const networks = [
        { ...service.chains.network(evm().caip2)!, rpcUrl: silent.url },
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
        context: { chains: new ChainRegistry(networks), chainServices },
      });
    });

    afterAll(async () => {
      await other?.close();
      await servicesDb?.destroy();
      await silent?.close();
    });

    it('shows a node that does not answer, or refuses, as unreachable within the timeout, with the rest as it is', async () => {
      const body = await health(other);
      expect(networkOf(body, evm().caip2)).toMatchObject({
        node: { status: 'unreachable', latest: null, problem: 'no answer within 3 s' },
        follower: { lag: null },
        collector: { status: 'unreachable', problem: 'no answer within 3 s', balances: [] },
      });
      expect(networkOf(body, solana().caip2)).toMatchObject({
        node: { status: 'unreachable', latest: null, problem: expect.any(String) },
        collector: { status: 'unreachable', balances: [] },
      });
      // What the database knows is there all the same.
      expect(body.webhooks.pending).toBe(1);
      expect(body.settlements.unconfirmed).toHaveLength(2);
    });

    it('holds no database connection while it waits for a node: the console answers meanwhile', async () => {
      // More health checks waiting on the silent node than the server's pool has connections.
      let answered = 0;
      const waiting = Array.from({ length: 12 }, () =>
        callAsOperator(other, operator, '/operator/api/health').then((result) => {
          answered += 1;
          return result;
        }),
      );
      // Every health check reaches its wait on the node (3 s) first.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The console's other reads are answered while every health check still waits for the node.
      const partners = await callAsOperator(other, operator, '/operator/api/partners');
      expect(partners.status).toBe(200);
      expect(answered).toBe(0);
      for (const result of await Promise.all(waiting)) expect(result.status).toBe(200);
    });
  });

  describe('security', () => {
    it("answers 401 without the operator's session: none, a forged one, a partner's API key or dashboard session", async () => {
      const link = await createSignInLink(server.db, partner.partnerId, 60_000, new Date());
      const dashboard = await fetch(`${server.url}/dashboard/link/${link.token}`, { redirect: 'manual' });
      const dashboardCookie = (
        dashboard.headers.getSetCookie().find((cookie) => cookie.startsWith('paygate_session=')) ?? ''
      ).split(';')[0] as string;
      expect(dashboardCookie).toMatch(/^paygate_session=./);
      for (const headers of <Record<string, string>[]>[
        {},
        { cookie: 'paygate_operator=forged' },
        { 'api-key': partner.apiKey },
        { authorization: `Bearer ${partner.apiKey}` },
        { cookie: dashboardCookie },
        { cookie: dashboardCookie.replace('paygate_session', 'paygate_operator') },
      ]) {
        const result = await call(server, '/operator/api/health', { headers });
        expect([result.status, expectErrorBody(result).code], JSON.stringify(headers)).toEqual([
          401,
          'invalid_session',
        ]);
      }
    });
  });
});
