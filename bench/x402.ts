import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDevnet } from '@paygate/devnet';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme as X402EvmClient, toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as X402EvmFacilitator } from '@x402/evm/exact/facilitator';
import { type Abi, type Address, createWalletClient, defineChain, http, publicActions } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { collectorAddresses } from '../packages/server/src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../packages/server/src/chains/devnetNetworks.ts';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { recordFunding } from '../packages/server/src/ledger/funding.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { percentile, type Spawned, startBenchService } from './support.ts';

/**
 * Issue target: an x402 payment's verify + settle through paygate's facilitator (over HTTP, as a resource server
 * calls it: the service checks, records the merchant's payment, relays and answers once it is final) against
 * `@x402/evm`'s own facilitator (in process: verify, then settle, which sends and waits for the receipt), on the same
 * devnet chain and token, from the same signed kind of payload: ours / theirs <= 1.0.
 */
const PAIRS = Number(process.env.X402_BENCH_PAIRS ?? 20);
/** 0.01 USDC. */
const AMOUNT = '10000';

interface Sample {
  verifyMs: number;
  totalMs: number;
}

const write = (line = '') => process.stdout.write(`${line}\n`);

function summary(name: string, samples: Sample[]) {
  const totals = samples.map((sample) => sample.totalMs).sort((a, b) => a - b);
  const verifies = samples.map((sample) => sample.verifyMs).sort((a, b) => a - b);
  const mean = totals.reduce((sum, value) => sum + value, 0) / totals.length;
  return {
    name,
    n: totals.length,
    p50: percentile(totals, 0.5),
    p95: percentile(totals, 0.95),
    mean,
    verifyP50: percentile(verifies, 0.5),
  };
}

/** Waits for the next block, then `offsetMs` into it, so both sides meet the same block phases. */
async function atBlockPhase(readHead: () => Promise<bigint>, offsetMs: number, blockMs: number): Promise<void> {
  const head = await readHead();
  const deadline = performance.now() + 10 * blockMs;
  while ((await readHead()) === head) {
    if (performance.now() > deadline) throw new Error('the chain stopped producing blocks');
    await sleep(5);
  }
  await sleep(offsetMs);
}

export async function runX402Benchmark(): Promise<void> {
  write(
    `paygate x402 facilitator benchmark, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
  );
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-x402-'));
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 2);
  let spawned: Spawned | undefined;
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
    const theirKey = generatePrivateKey();
    const theirAccount = privateKeyToAccount(theirKey);
    const collector = await collectorAddresses(keys);
    const funded = await devnet.fund({ evm: [collector.evm, theirAccount.address], solana: [collector.solana] });
    // What the faucet gave the collector is the operator's funding: the collector's network fees are paid out of it.
    const collectorAccounts = [collector.evm.toLowerCase(), collector.solana];
    await recordFunding(
      db,
      funded.filter((credit) =>
        collectorAccounts.includes(credit.address.startsWith('0x') ? credit.address.toLowerCase() : credit.address),
      ),
    );
    const chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(networksFromDevnet(devnet.manifest)));
    spawned = await startBenchService(database.url, dataDir, {
      CHAINS: chainsFile,
      PRICE_SOURCE: 'fixed',
      COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
    });
    const created = await fetch(`${spawned.url}/v1/merchants`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench API', merchantEmail: 'bench@api.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
    const headers = { 'Api-Key': partner.apiKey, 'Merchant-Id': merchantId };
    const ours = new HTTPFacilitatorClient({
      url: `${spawned.url}/v1/x402`,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
    });

    const chain = devnet.manifest.evm[0];
    if (!chain) throw new Error('the devnet has no EVM chain');
    const { kinds } = await ours.getSupported();
    const extra = kinds.find((kind) => kind.network === chain.caip2)?.extra as {
      payTo: Address;
      assets: { symbol: string; asset: Address; name: string; version: string }[];
    };
    const usdc = extra.assets.find((asset) => asset.symbol === 'USDC');
    if (!usdc) throw new Error(`no USDC on ${chain.caip2}`);
    const requirements = (payTo: Address): PaymentRequirements => ({
      scheme: 'exact',
      network: chain.caip2 as PaymentRequirements['network'],
      asset: usdc.asset,
      amount: AMOUNT,
      payTo,
      maxTimeoutSeconds: 300,
      extra: { name: usdc.name, version: usdc.version },
    });

    // x402's facilitator settling from its own funded key, polling receipts every half block as paygate's follower
    // looks several times a block.
    const viemChain = defineChain({
      id: chain.chainId,
      name: chain.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } },
    });
    const wallet = createWalletClient({
      account: theirAccount,
      chain: viemChain,
      transport: http(chain.rpcUrl),
      pollingInterval: chain.blockTimeMs / 2,
    }).extend(publicActions);
    const theirs = new X402EvmFacilitator(
      toFacilitatorEvmSigner({
        address: theirAccount.address,
        getCode: (args) => wallet.getCode(args),
        readContract: (args) => wallet.readContract({ ...args, abi: args.abi as Abi, args: args.args ?? [] }),
        verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
        writeContract: (args) =>
          wallet.writeContract({
            ...args,
            abi: args.abi as Abi,
            args: args.args,
            chain: viemChain,
            account: theirAccount,
          }),
        sendTransaction: (args) => wallet.sendTransaction({ ...args, chain: viemChain, account: theirAccount }),
        waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
      }),
    );

    const buyer = devnet.manifest.buyers.find((candidate) => candidate.name === 'alice');
    if (!buyer) throw new Error('no devnet buyer alice');
    const client = new X402EvmClient(privateKeyToAccount(buyer.evmPrivateKey));
    const sign = async (accepted: PaymentRequirements): Promise<PaymentPayload> => ({
      ...(await client.createPaymentPayload(2, accepted)),
      accepted,
    });

    const payOurs = async (): Promise<Sample> => {
      const accepted = requirements(extra.payTo);
      const payload = await sign(accepted);
      const started = performance.now();
      const verified = await ours.verify(payload, accepted);
      const verifyMs = performance.now() - started;
      if (!verified.isValid)
        throw new Error(`paygate verify refused: ${verified.invalidReason} ${verified.invalidMessage ?? ''}`);
      const settled = await ours.settle(payload, accepted);
      if (!settled.success)
        throw new Error(`paygate settle failed: ${settled.errorReason} ${settled.errorMessage ?? ''}`);
      return { verifyMs, totalMs: performance.now() - started };
    };
    const payTheirs = async (): Promise<Sample> => {
      const accepted = requirements(theirAccount.address);
      const payload = await sign(accepted);
      const started = performance.now();
      const verified = await theirs.verify(payload, accepted);
      const verifyMs = performance.now() - started;
      if (!verified.isValid) throw new Error(`x402 verify refused: ${verified.invalidReason}`);
      const settled = await theirs.settle(payload, accepted);
      if (!settled.success) throw new Error(`x402 settle failed: ${settled.errorReason} ${settled.errorMessage ?? ''}`);
      return { verifyMs, totalMs: performance.now() - started };
    };

    // One warm-up each (connections, caches, the relayer's nonce counter), outside the samples.
    await payOurs();
    await payTheirs();
    const readHead = () => wallet.getBlockNumber({ cacheTime: 0 });
    const oursSamples: Sample[] = [];
    const theirSamples: Sample[] = [];
    for (let index = 0; index < PAIRS; index++) {
      const offset = ((index + 0.5) / PAIRS) * chain.blockTimeMs;
      const runOurs = async () => oursSamples.push(await payOurs());
      const runTheirs = async () => theirSamples.push(await payTheirs());
      // Each goes first half of the time, each at the same block phase.
      for (const run of index % 2 === 0 ? [runOurs, runTheirs] : [runTheirs, runOurs]) {
        await atBlockPhase(readHead, offset, chain.blockTimeMs);
        await run();
      }
    }

    write();
    write(
      `== x402 exact (EIP-3009 USDC) on ${chain.caip2}, verify + settle from the signed payload to the settle's answer; one block every ${chain.blockTimeMs} ms, depth 1`,
    );
    write('facilitator                                   n  p50 ms  p95 ms  mean ms  verify p50 ms');
    const rows = [
      summary('paygate over HTTP (records, relays, follows)', oursSamples),
      summary('@x402/evm facilitator, in process', theirSamples),
    ];
    for (const row of rows) {
      write(
        `${row.name.padEnd(44)} ${String(row.n).padStart(2)} ${row.p50.toFixed(0).padStart(7)} ${row.p95.toFixed(0).padStart(7)} ${row.mean.toFixed(0).padStart(8)} ${row.verifyP50.toFixed(0).padStart(14)}`,
      );
    }
    const [mine, reference] = rows as [ReturnType<typeof summary>, ReturnType<typeof summary>];
    write();
    write(
      `== ours / x402 (target <= 1.0): p50 ${(mine.p50 / reference.p50).toFixed(2)}, mean ${(mine.mean / reference.mean).toFixed(2)}`,
    );
  } finally {
    await spawned?.stop();
    await db.destroy();
    await database.stop();
    await devnet.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
