import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pMap from 'p-map';
import { type DevnetEvmChain, startDevnet } from '@paygate/devnet';
import { type Address, createWalletClient, defineChain, erc20Abi, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { collectorAddresses } from '../packages/server/src/chains/collectorKeys.ts';
import { depositAddress } from '../packages/server/src/chains/evm/deposits/addresses.ts';
import { networksFromDevnet } from '../packages/server/src/chains/devnetNetworks.ts';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { recordFunding } from '../packages/server/src/ledger/funding.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { CountingRpcProxy, countsBetween, type RpcCounts, snapshot, topMethods, totalCalls } from './rpcProxy.ts';
import { startBenchService } from './support.ts';

/** Open deposit addresses per round: none, then more and more payments whose checkout page was shown. */
const ROUNDS = [0, 100, 1_000, 3_000];
/** How long the service's background RPC calls are counted in each round. */
const QUIET_MS = 15_000;

function write(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * What following deposit addresses costs in RPC calls: a `paygate start` process on the devnet (two anvil chains
 * with 1 s blocks) reaches its nodes through counting proxies; each round shows the checkout page of more unpaid
 * payments (which fixes their deposit quotes, tokens and the native coin on both EVM chains), then counts the
 * service's calls over a quiet period, and times one USDC transfer to the last address from sending to `succeeded`.
 * The figure to hold: calls per block do not grow with the number of open addresses.
 */
export async function runDepositsBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-deposits-'));
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const [chainA] = devnet.manifest.evm as [DevnetEvmChain];
  const proxies = [
    ...devnet.manifest.evm.map((chain, index) => new CountingRpcProxy('AB'[index] ?? `E${index}`, chain.rpcUrl)),
  ];
  proxies.push(new CountingRpcProxy('S', devnet.manifest.solana.rpcUrl));
  const proxyUrls = new Map<string, string>();
  for (const proxy of proxies) proxyUrls.set(proxy.upstream, await proxy.start());
  const database = await startEmbeddedPostgres(dataDir, { database: 'bench_deposits' });
  const db = connect(database.url, 2);
  let stop: (() => Promise<void>) | undefined;
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
    const collector = await collectorAddresses(keys);
    // The faucet's credit is the operator's funding: the collector's network fees are paid out of it.
    await recordFunding(db, await devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));
    const networks = networksFromDevnet(devnet.manifest).map((network) => ({
      ...network,
      rpcUrl: proxyUrls.get(network.rpcUrl ?? '') ?? network.rpcUrl,
    }));
    const chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(networks, null, 2));
    const service = await startBenchService(database.url, dataDir, {
      CHAINS: chainsFile,
      PRICE_SOURCE: 'fixed',
      COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
    });
    stop = () => service.stop();
    const headers = { 'api-key': partner.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${service.url}/v1/merchants`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
    const alice = devnet.manifest.buyers[0]!;
    const wallet = createWalletClient({
      account: privateKeyToAccount(alice.evmPrivateKey as Hex),
      chain: defineChain({
        id: chainA.chainId,
        name: chainA.name,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [chainA.rpcUrl] } },
      }),
      transport: http(chainA.rpcUrl),
    });
    const usdc = chainA.tokens.find((token) => token.symbol === 'USDC')!;

    write(`devnet: ${devnet.manifest.evm.map((chain) => chain.caip2).join(' and ')}, ${chainA.blockTimeMs} ms blocks`);
    write('open addresses = unpaid payments whose checkout page was shown (each: its tokens and ETH on both chains)');
    write('');
    write(
      'open payments  calls/s  calls per EVM block and chain  eth_getLogs/s  debug_traceBlockByNumber/s  eth_getBlockByNumber/s  transfer to succeeded',
    );
    let open: string[] = [];
    for (const target of ROUNDS) {
      const shown = await pMap(
        Array.from({ length: target - open.length }),
        async () => {
          const response = await fetch(`${service.url}/v1/payments`, {
            method: 'POST',
            headers: { ...headers, 'merchant-id': merchantId },
            body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: randomUUID() }),
          });
          const payment = (await response.json()) as { paymentId: string };
          const page = await fetch(`${service.url}/${payment.paymentId}`);
          await page.text();
          if (!page.ok) throw new Error(`checkout page answered ${page.status}`);
          return payment.paymentId;
        },
        { concurrency: 16 },
      );
      open = [...open, ...shown];
      // The follower catches up with the new quotes first.
      await sleep(3_000);
      const before = snapshot(proxies);
      await sleep(QUIET_MS);
      const quiet: RpcCounts = countsBetween(before, snapshot(proxies));
      const perSecond = (calls: number) => (calls / (QUIET_MS / 1000)).toFixed(1);
      const byMethod = (method: string) =>
        [...quiet.calls].filter(([key]) => key.endsWith(` ${method}`)).reduce((sum, [, count]) => sum + count, 0);
      const evmCalls = [...quiet.calls].filter(([key]) => !key.startsWith('S ')).reduce((sum, [, n]) => sum + n, 0);
      const blocks = (QUIET_MS / chainA.blockTimeMs) * devnet.manifest.evm.length;
      let toSucceeded = '-';
      const last = open.at(-1);
      if (last) {
        const sent = performance.now();
        await wallet.writeContract({
          address: usdc.address as Address,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [depositAddress(collector.evm as Address, last), 1_000_000n],
        });
        for (;;) {
          const status = await fetch(`${service.url}/v1/payments/${last}/status?maxPollMs=5000`, {
            headers: { ...headers, 'merchant-id': merchantId },
          });
          if (((await status.json()) as { status: string }).status === 'succeeded') break;
          if (performance.now() - sent > 60_000) throw new Error(`payment ${last} did not succeed in 60 s`);
        }
        toSucceeded = `${((performance.now() - sent) / 1000).toFixed(1)} s`;
        open = open.slice(0, -1);
      }
      write(
        `${String(target).padStart(13)}  ${perSecond(totalCalls(quiet)).padStart(7)}  ${(evmCalls / blocks).toFixed(2).padStart(29)}  ${perSecond(byMethod('eth_getLogs')).padStart(13)}  ${perSecond(byMethod('debug_traceBlockByNumber')).padStart(26)}  ${perSecond(byMethod('eth_getBlockByNumber')).padStart(22)}  ${toSucceeded.padStart(21)}`,
      );
      if (target === ROUNDS.at(-1)) {
        write('');
        write(
          `top calls over the last ${QUIET_MS / 1000} s: ${topMethods(quiet, 8)
            .map(([key, n]) => `${key} ${n}`)
            .join(', ')}`,
        );
      }
    }
  } finally {
    await stop?.();
    await db.destroy();
    await database.stop();
    for (const proxy of proxies) await proxy.stop();
    await devnet.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
