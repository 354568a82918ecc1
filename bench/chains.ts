import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Devnet, type DevnetBuyer, startDevnet } from '@paygate/devnet';
import {
  createDefaultRpcTransport,
  createKeyPairFromBytes,
  createSolanaRpc,
  createSolanaRpcFromTransport,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
  type RpcTransport,
} from '@solana/kit';
import { ExactEvmScheme as X402ExactEvmClient, toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as X402ExactEvmFacilitator } from '@x402/evm/exact/facilitator';
import {
  type Abi,
  type Address,
  createWalletClient,
  type Hex,
  http,
  parseEther,
  publicActions,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { networksFromDevnet } from '../packages/server/src/chains/devnetNetworks.ts';
import {
  EvmClients,
  type Eip3009Token,
  NATIVE_TRANSFER_GAS,
  nativeTransferReference,
  permitTransferFromTypedData,
  readEip3009Token,
  receiveWithAuthorizationTypedData,
  Relayer,
  relayPermitTransfer,
  relayReceiveWithAuthorization,
  verifyNativeTransfer,
} from '../packages/server/src/chains/evm/index.ts';
import type { NetworkInfo } from '../packages/server/src/chains/registry.ts';
import { buildSponsoredTransfer } from '../packages/server/src/chains/solana/buildSponsoredTransfer.ts';
import { type SolanaCollector, solanaCollector } from '../packages/server/src/chains/solana/collectorKeyPair.ts';
import { SolanaTransactionSender } from '../packages/server/src/chains/solana/transactionSender.ts';
import { verifyBuyerSignedTransaction } from '../packages/server/src/chains/solana/verifyBuyerSignedTransaction.ts';
import { systemClock } from '../packages/server/src/clock.ts';
import { connect, type Db, migrateToLatest } from '../packages/server/src/db/database.ts';
import { recordFunding } from '../packages/server/src/ledger/funding.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { cosignAndConfirm, waitForRelayedOutcome } from '../packages/server/test/support/chainWaits.ts';
import { percentile } from './support.ts';

/**
 * Issue targets: payment latency per method from the buyer's signature to a confirmed transfer on the devnet,
 * relayer throughput on one chain, and the EIP-3009 path against x402's reference facilitator (ours / theirs
 * <= 1.0). Everything (devnet, PostgreSQL, this script) shares this machine.
 */
const STARTUP_REPETITIONS = 3;
const PAYMENTS_PER_METHOD = 20;
const THROUGHPUT_TRANSFERS = 100;
/** The service's default pool (DATABASE_POOL_SIZE). */
const DATABASE_POOL_SIZE = 20;
const USDC_AMOUNT = 1_000_000n;
const AUTHORIZATION_LIFETIME_SECONDS = 600;

/** One payment: signed -> handed to the node -> confirmed at depth, in ms from the signature. */
interface Sample {
  toNodeMs: number;
  totalMs: number;
}

interface Summary {
  name: string;
  n: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  toNodeP50Ms: number;
  /** Share of the total spent after the transfer reached the node: block inclusion plus the poll that sees it. */
  waitingShare: number;
}

/** Of unsorted values. */
function percentileOf(values: number[], fraction: number): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    fraction,
  );
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function summarise(name: string, samples: Sample[]): Summary {
  const totals = samples.map((sample) => sample.totalMs);
  return {
    name,
    n: samples.length,
    p50Ms: percentileOf(totals, 0.5),
    p95Ms: percentileOf(totals, 0.95),
    meanMs: sum(totals) / totals.length,
    toNodeP50Ms: percentileOf(
      samples.map((sample) => sample.toNodeMs),
      0.5,
    ),
    waitingShare: sum(samples.map((sample) => sample.totalMs - sample.toNodeMs)) / sum(totals),
  };
}

const ms = (value: number) => value.toFixed(0);

function write(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function printSummaries(rows: Summary[]): void {
  write(
    `${'method'.padEnd(40)} ${'n'.padStart(3)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'mean ms'.padStart(8)} ${'to node p50'.padStart(12)} ${'waiting'.padStart(8)}`,
  );
  for (const row of rows) {
    write(
      `${row.name.padEnd(40)} ${String(row.n).padStart(3)} ${ms(row.p50Ms).padStart(7)} ${ms(row.p95Ms).padStart(7)} ${ms(row.meanMs).padStart(8)} ${ms(row.toNodeP50Ms).padStart(12)} ${`${(row.waitingShare * 100).toFixed(0)}%`.padStart(8)}`,
    );
  }
}

/**
 * Waits for the chain's next block (or slot), then `offsetMs` into it. Samples start at offsets spread evenly over
 * one interval, so every method (and both EIP-3009 implementations, pair by pair) meets the same mix of "just
 * before a block" and "just missed one", instead of whatever phase the previous sample happened to leave.
 */
async function atBlockPhase(readHead: () => Promise<bigint>, offsetMs: number, intervalMs: number): Promise<void> {
  const head = await readHead();
  const deadline = performance.now() + 10 * intervalMs;
  while ((await readHead()) === head) {
    if (performance.now() > deadline) throw new Error('the chain stopped producing blocks');
    await sleep(5);
  }
  await sleep(offsetMs);
}

const phaseOffsetMs = (index: number, count: number, intervalMs: number) => ((index + 0.5) / count) * intervalMs;

async function measureDevnetStartup(): Promise<void> {
  const cold: number[] = [];
  const warm: number[] = [];
  const warmDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-devnet-'));
  try {
    for (let run = 0; run < STARTUP_REPETITIONS; run++) {
      const dataDir = run === 0 ? warmDir : await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-devnet-'));
      try {
        const started = performance.now();
        const devnet = await startDevnet({ dataDir });
        cold.push(performance.now() - started);
        await devnet.stop();
      } finally {
        if (dataDir !== warmDir) await fs.rm(dataDir, { recursive: true, force: true });
      }
    }
    for (let run = 0; run < STARTUP_REPETITIONS; run++) {
      const started = performance.now();
      const devnet = await startDevnet({ dataDir: warmDir });
      warm.push(performance.now() - started);
      await devnet.stop();
    }
  } finally {
    await fs.rm(warmDir, { recursive: true, force: true });
  }
  write('== devnet start (two anvil chains + Solana node), ms');
  write(`cold (empty data dir):      ${cold.map(ms).join(', ')}  (median ${ms(percentileOf(cold, 0.5))})`);
  write(`warm (same data dir again): ${warm.map(ms).join(', ')}  (median ${ms(percentileOf(warm, 0.5))})`);
}

interface EvmBuyer {
  account: PrivateKeyAccount;
  address: Address;
}

function evmBuyer(buyers: DevnetBuyer[], name: string): EvmBuyer {
  const buyer = buyers.find((candidate) => candidate.name === name);
  if (!buyer) throw new Error(`no devnet buyer ${name}`);
  const account = privateKeyToAccount(buyer.evmPrivateKey);
  return { account, address: account.address };
}

function tokenAddress(network: NetworkInfo, symbol: string): Address {
  const token = network.tokens.find((candidate) => candidate.symbol === symbol);
  if (!token) throw new Error(`no ${symbol} on ${network.caip2}`);
  return token.address as Address;
}

const inSeconds = (offsetSeconds: number) => BigInt(Math.floor(Date.now() / 1000) + offsetSeconds);

interface EvmBench {
  network: NetworkInfo;
  client: PublicClient;
  relayer: Relayer;
  db: Db;
  collector: Address;
  usdc: Eip3009Token;
}

async function payWithEip3009(bench: EvmBench, buyer: EvmBuyer): Promise<Sample> {
  const typedData = receiveWithAuthorizationTypedData({
    token: bench.usdc,
    from: buyer.address,
    to: bench.collector,
    value: USDC_AMOUNT,
    validAfter: 0n,
    validBefore: inSeconds(AUTHORIZATION_LIFETIME_SECONDS),
  });
  const signature = await buyer.account.signTypedData(typedData);
  const signed = performance.now();
  const { id } = await relayReceiveWithAuthorization(bench.client, bench.relayer, {
    chain: bench.network.caip2,
    typedData,
    signature,
    expected: { token: bench.usdc.address, collector: bench.collector, value: USDC_AMOUNT, from: buyer.address },
    clock: systemClock,
  });
  const toNode = performance.now();
  const outcome = await waitForRelayedOutcome(bench, id, { timeoutMs: 60_000 });
  if (outcome.status !== 'confirmed') throw new Error(`EIP-3009 transfer ${id} ${outcome.status}: ${outcome.reason}`);
  return { toNodeMs: toNode - signed, totalMs: performance.now() - signed };
}

async function payWithPermit2(bench: EvmBench, buyer: EvmBuyer): Promise<Sample> {
  const paymentId = `pay_${randomUUID()}`;
  const token = tokenAddress(bench.network, 'USDT');
  const typedData = permitTransferFromTypedData({
    chainId: bench.usdc.chainId,
    token,
    amount: USDC_AMOUNT,
    spender: bench.collector,
    paymentId,
    deadline: inSeconds(AUTHORIZATION_LIFETIME_SECONDS),
  });
  const signature = await buyer.account.signTypedData(typedData);
  const signed = performance.now();
  const { id } = await relayPermitTransfer(bench.client, bench.relayer, bench.network, {
    typedData,
    owner: buyer.address,
    signature,
    expected: { token, amount: USDC_AMOUNT, collector: bench.collector, paymentId },
    clock: systemClock,
  });
  const toNode = performance.now();
  const outcome = await waitForRelayedOutcome(bench, id, { timeoutMs: 60_000 });
  if (outcome.status !== 'confirmed') throw new Error(`Permit2 transfer ${id} ${outcome.status}: ${outcome.reason}`);
  return { toNodeMs: toNode - signed, totalMs: performance.now() - signed };
}

async function payWithNativeTransfer(bench: EvmBench, buyer: EvmBuyer): Promise<Sample> {
  const value = parseEther('0.001');
  const reference = nativeTransferReference(`opt_bench_${randomUUID()}`);
  const offeredAt = new Date();
  const [nonce, fees] = await Promise.all([
    bench.client.getTransactionCount({ address: buyer.address, blockTag: 'pending' }),
    bench.client.estimateFeesPerGas(),
  ]);
  const serializedTransaction = await buyer.account.signTransaction({
    type: 'eip1559',
    chainId: bench.usdc.chainId,
    nonce,
    to: bench.collector,
    value,
    data: reference,
    gas: NATIVE_TRANSFER_GAS,
    ...fees,
  });
  const signed = performance.now();
  const hash = await bench.client.sendRawTransaction({ serializedTransaction });
  const toNode = performance.now();
  // The service polls a buyer's transfer as the relayer polls its own: every half block.
  for (let poll = 0; poll < 120; poll++) {
    const state = await verifyNativeTransfer(bench.client, bench.network, hash, {
      from: buyer.address,
      to: bench.collector,
      value,
      reference,
      offeredAt,
    });
    if (state.state === 'confirmed') return { toNodeMs: toNode - signed, totalMs: performance.now() - signed };
    await sleep(bench.network.blockTimeMs / 2);
  }
  throw new Error(`native transfer ${hash} not confirmed within 120 polls`);
}

/**
 * x402's reference facilitator for the `exact` scheme, given the same chain and the same receipt polling interval
 * as our relayer (half a block). Its wallet reports when a settlement transaction has been handed to the node.
 */
function x402Facilitator(
  bench: EvmBench,
  key: Hex,
): { facilitator: X402ExactEvmFacilitator; address: Address; lastBroadcastAt: () => number } {
  const account = privateKeyToAccount(key);
  const wallet = createWalletClient({
    account,
    chain: bench.client.chain,
    transport: http(bench.network.rpcUrl),
    pollingInterval: bench.network.blockTimeMs / 2,
  }).extend(publicActions);
  let broadcastAt = 0;
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => wallet.getCode(args),
    readContract: (args) => wallet.readContract({ ...args, abi: args.abi as Abi, args: args.args ?? [] }),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0]),
    writeContract: async (args) => {
      const hash = await wallet.writeContract({
        ...args,
        abi: args.abi as Abi,
        args: args.args,
        chain: bench.client.chain,
        account,
      });
      broadcastAt = performance.now();
      return hash;
    },
    sendTransaction: (args) => wallet.sendTransaction({ ...args, chain: bench.client.chain, account }),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
  });
  return {
    facilitator: new X402ExactEvmFacilitator(signer),
    address: account.address,
    lastBroadcastAt: () => broadcastAt,
  };
}

type X402Requirements = Parameters<X402ExactEvmFacilitator['verify']>[1];

async function payWithX402(
  x402: ReturnType<typeof x402Facilitator>,
  client: X402ExactEvmClient,
  requirements: X402Requirements,
): Promise<Sample> {
  const created = await client.createPaymentPayload(2, requirements);
  const payload = { ...created, accepted: requirements };
  const signed = performance.now();
  const verified = await x402.facilitator.verify(payload, requirements);
  if (!verified.isValid)
    throw new Error(`x402 verify refused: ${verified.invalidReason} ${verified.invalidMessage ?? ''}`);
  const settled = await x402.facilitator.settle(payload, requirements);
  if (!settled.success) throw new Error(`x402 settle failed: ${settled.errorReason} ${settled.errorMessage ?? ''}`);
  return { toNodeMs: x402.lastBroadcastAt() - signed, totalMs: performance.now() - signed };
}

interface SolanaBench {
  rpcUrl: string;
  db: Db;
  network: string;
  collector: SolanaCollector;
  usdc: string;
  slotMs: number;
}

async function payWithSolanaUsdc(
  bench: SolanaBench,
  buyer: { address: string; keyPair: CryptoKeyPair },
): Promise<Sample & { buildMs: number }> {
  // Stamps the moment the node answered sendTransaction, so the wait for the slot can be told apart.
  const transport = createDefaultRpcTransport({ url: bench.rpcUrl });
  let sentAt = 0;
  const stamping: RpcTransport = async (config) => {
    const response = await transport(config);
    if ((config.payload as { method?: string }).method === 'sendTransaction') sentAt = performance.now();
    return response as never;
  };
  const rpc = createSolanaRpcFromTransport(stamping);
  const sender = new SolanaTransactionSender({
    db: bench.db,
    rpc,
    network: bench.network,
    collector: bench.collector,
    commitment: 'confirmed',
  });
  const paymentId = `pay_${randomUUID()}`;

  const buildStarted = performance.now();
  const transfer = await buildSponsoredTransfer({
    rpc,
    collector: bench.collector.address,
    buyer: buyer.address,
    mint: bench.usdc,
    decimals: 6,
    amount: USDC_AMOUNT,
    paymentId,
  });
  const buildMs = performance.now() - buildStarted;
  // What a wallet does for solana_signTransaction: add its signature to the transaction it was given.
  const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(transfer.transactionBase64));
  const signedTransaction = getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.keyPair], unsigned));

  const signed = performance.now();
  const verified = await verifyBuyerSignedTransaction({
    signedTransactionBase64: signedTransaction,
    expectedMessageBytesBase64: transfer.messageBytesBase64,
    buyer: buyer.address,
  });
  await cosignAndConfirm(
    { sender, db: bench.db },
    {
      purpose: 'payment',
      reference: paymentId,
      transaction: verified,
      lastValidBlockHeight: transfer.lastValidBlockHeight,
    },
  );
  return { buildMs, toNodeMs: sentAt - signed, totalMs: performance.now() - signed };
}

async function sampleAtPhases<T>(
  count: number,
  intervalMs: number,
  readHead: () => Promise<bigint>,
  pay: () => Promise<T>,
): Promise<T[]> {
  const samples: T[] = [];
  for (let index = 0; index < count; index++) {
    await atBlockPhase(readHead, phaseOffsetMs(index, count, intervalMs), intervalMs);
    samples.push(await pay());
  }
  return samples;
}

async function measureRelayerThroughput(bench: EvmBench): Promise<void> {
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const firstBlock = await bench.client.getBlockNumber({ cacheTime: 0 });
  const started = performance.now();
  const submitLatencies: number[] = [];
  const submitted = await Promise.all(
    Array.from({ length: THROUGHPUT_TRANSFERS }, async () => {
      const submitStarted = performance.now();
      const transaction = await bench.relayer.submit({
        chain: bench.network.caip2,
        to: recipient,
        value: 1n,
        purpose: 'bench_throughput',
      });
      submitLatencies.push(performance.now() - submitStarted);
      return transaction;
    }),
  );
  const recordedMs = performance.now() - started;
  const outcomes = await Promise.all(
    submitted.map(({ id }) => waitForRelayedOutcome(bench, id, { timeoutMs: 120_000 })),
  );
  const confirmedMs = performance.now() - started;
  const failed = outcomes.filter((outcome) => outcome.status !== 'confirmed').length;
  if (failed > 0) throw new Error(`${failed} of ${THROUGHPUT_TRANSFERS} relayed transfers failed`);
  const blocks = outcomes.map((outcome) => outcome.receipt?.blockNumber ?? firstBlock);
  const lastBlock = blocks.reduce((highest, block) => (block > highest ? block : highest), firstBlock);
  write(
    `== relayer throughput: ${THROUGHPUT_TRANSFERS} transfers submitted at once on ${bench.network.caip2} (1 wei each, pool of ${DATABASE_POOL_SIZE} connections)`,
  );
  write(
    `record+broadcast all: ${ms(recordedMs)} ms = ${(THROUGHPUT_TRANSFERS / (recordedMs / 1000)).toFixed(0)} transfers/s; one submit under this load: p50 ${ms(percentileOf(submitLatencies, 0.5))} ms, p95 ${ms(percentileOf(submitLatencies, 0.95))} ms`,
  );
  write(
    `until all confirmed: ${ms(confirmedMs)} ms = ${(THROUGHPUT_TRANSFERS / (confirmedMs / 1000)).toFixed(1)} transfers/s; mined in ${lastBlock - firstBlock} block(s) after block ${firstBlock}`,
  );
}

export async function runChainsBenchmark(): Promise<void> {
  write(
    `paygate chains benchmark, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
  );
  await measureDevnetStartup();

  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-chains-'));
  let devnet: Devnet | undefined;
  let database: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  let db: Db | undefined;
  try {
    devnet = await startDevnet({ dataDir: path.join(workDir, 'devnet') });
    // The work dir itself: as root, PostgreSQL's own user must be able to pass through the dir it is given.
    database = await startEmbeddedPostgres(workDir);
    db = connect(database.url, DATABASE_POOL_SIZE);
    await migrateToLatest(db, database.url);

    const { manifest } = devnet;
    const network = networksFromDevnet(manifest).find((candidate) => candidate.namespace === 'eip155') as NetworkInfo;
    const collectorKey = generatePrivateKey();
    const collector = privateKeyToAccount(collectorKey).address;
    const x402Key = generatePrivateKey();
    const solanaCollectorKeys = await solanaCollector({ solanaSeedHex: randomBytes(32).toString('hex') });
    const funded = await devnet.fund({
      evm: [collector, privateKeyToAccount(x402Key).address],
      solana: [solanaCollectorKeys.address],
    });
    // What the faucet gave the collector is the operator's funding: the collector's network fees are paid out of it.
    const collectorAccounts = [collector.toLowerCase(), solanaCollectorKeys.address];
    await recordFunding(
      db,
      funded.filter((credit) =>
        collectorAccounts.includes(credit.address.startsWith('0x') ? credit.address.toLowerCase() : credit.address),
      ),
    );

    const clients = new EvmClients();
    const client = clients.for(network);
    const relayer = new Relayer({ db, networks: [network], privateKey: collectorKey, clients });
    const bench: EvmBench = {
      network,
      client,
      relayer,
      db,
      collector,
      usdc: await readEip3009Token(client, tokenAddress(network, 'USDC')),
    };
    const alice = evmBuyer(manifest.buyers, 'alice');
    const bob = evmBuyer(manifest.buyers, 'bob');

    const x402 = x402Facilitator(bench, x402Key);
    const x402Client = new X402ExactEvmClient(alice.account);
    const requirements: X402Requirements = {
      scheme: 'exact',
      network: network.caip2 as X402Requirements['network'],
      asset: bench.usdc.address,
      amount: USDC_AMOUNT.toString(),
      payTo: x402.address,
      maxTimeoutSeconds: AUTHORIZATION_LIFETIME_SECONDS,
      extra: { name: bench.usdc.name, version: bench.usdc.version },
    };

    // Warm both paths once (nonce counter row, connections, x402's asset-contract cache) outside the samples.
    await payWithEip3009(bench, alice);
    await payWithX402(x402, x402Client, requirements);

    // Ours and x402's alternate (each going first half of the time), each pair at the same block phase.
    const blockHead = () => client.getBlockNumber({ cacheTime: 0 });
    const ours: Sample[] = [];
    const theirs: Sample[] = [];
    for (let index = 0; index < PAYMENTS_PER_METHOD; index++) {
      const offset = phaseOffsetMs(index, PAYMENTS_PER_METHOD, network.blockTimeMs);
      const payOurs = async () => ours.push(await payWithEip3009(bench, alice));
      const payTheirs = async () => theirs.push(await payWithX402(x402, x402Client, requirements));
      for (const pay of index % 2 === 0 ? [payOurs, payTheirs] : [payTheirs, payOurs]) {
        await atBlockPhase(blockHead, offset, network.blockTimeMs);
        await pay();
      }
    }
    const permit2 = await sampleAtPhases(PAYMENTS_PER_METHOD, network.blockTimeMs, blockHead, () =>
      payWithPermit2(bench, alice),
    );
    const native = await sampleAtPhases(PAYMENTS_PER_METHOD, network.blockTimeMs, blockHead, () =>
      payWithNativeTransfer(bench, bob),
    );

    const solanaBuyerRecord = manifest.buyers.find((candidate) => candidate.name === 'alice') as DevnetBuyer;
    const solanaBuyer = {
      address: solanaBuyerRecord.solanaAddress,
      keyPair: await createKeyPairFromBytes(
        new Uint8Array(getBase58Encoder().encode(solanaBuyerRecord.solanaSecretKey)),
      ),
    };
    const usdcMint = manifest.solana.tokens.find((token) => token.symbol === 'USDC')?.address as string;
    const solanaBench: SolanaBench = {
      rpcUrl: manifest.solana.rpcUrl,
      db,
      network: manifest.solana.caip2,
      collector: solanaCollectorKeys,
      usdc: usdcMint,
      slotMs: manifest.solana.slotMs,
    };
    await payWithSolanaUsdc(solanaBench, solanaBuyer);
    const solanaRpc = createSolanaRpc(solanaBench.rpcUrl);
    const slotHead = () => solanaRpc.getSlot().send();
    const solana = await sampleAtPhases(PAYMENTS_PER_METHOD, solanaBench.slotMs, slotHead, () =>
      payWithSolanaUsdc(solanaBench, solanaBuyer),
    );

    write();
    write(
      `== payment latency, buyer's signature -> transfer confirmed at the network's depth (${network.confirmations} block on EVM, 'confirmed' on Solana)`,
    );
    write(
      `anvil mines one block every ${network.blockTimeMs} ms (interval mining), the Solana node a slot every ${manifest.solana.slotMs} ms;`,
    );
    write(
      `"to node" is signature -> transaction accepted by the node; "waiting" is the share of the total after that (block/slot + the poll that sees it)`,
    );
    const oursSummary = summarise('EIP-3009 USDC via relayer (paygate)', ours);
    const theirsSummary = summarise('EIP-3009 USDC via @x402/evm facilitator', theirs);
    printSummaries([
      oursSummary,
      theirsSummary,
      summarise('Permit2 USDT, existing allowance', permit2),
      summarise('native ETH, buyer sends, service verifies', native),
      summarise('Solana USDC, sponsored (verify..confirm)', solana),
    ]);
    write(
      `Solana build of the transfer (before the buyer signs): p50 ${ms(
        percentileOf(
          solana.map((sample) => sample.buildMs),
          0.5,
        ),
      )} ms, p95 ${ms(
        percentileOf(
          solana.map((sample) => sample.buildMs),
          0.95,
        ),
      )} ms`,
    );
    write();
    write(
      `== EIP-3009 ours / x402 (target <= 1.0): p50 ${(oursSummary.p50Ms / theirsSummary.p50Ms).toFixed(2)}, mean ${(oursSummary.meanMs / theirsSummary.meanMs).toFixed(2)}, to node p50 ${(oursSummary.toNodeP50Ms / theirsSummary.toNodeP50Ms).toFixed(2)}`,
    );
    write();
    await measureRelayerThroughput(bench);
  } finally {
    await db?.destroy();
    await database?.stop();
    await devnet?.stop();
    await fs.rm(workDir, { recursive: true, force: true });
  }
}
