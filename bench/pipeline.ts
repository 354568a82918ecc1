import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import pMap from 'p-map';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Devnet, type DevnetEvmChain, startDevnet } from '@paygate/devnet';
import {
  evmSignerFromAccount,
  executeOptionActions,
  GatewayClient,
  type PaymentOption,
  type Signers,
  solanaSignerFromKeyPair,
  type WalletRpcResult,
} from '@paygate/wallet';
import { type Hex, keccak256, parseEther, parseGwei } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { collectorAddresses } from '../packages/server/src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../packages/server/src/chains/devnetNetworks.ts';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { recordFunding } from '../packages/server/src/ledger/funding.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { type EvmGrant, fundEvmAccounts, nodeCall } from './fundBuyers.ts';
import { CountingRpcProxy, countsBetween, type RpcCounts, snapshot, topMethods, totalCalls } from './rpcProxy.ts';
import { machineCpuMs, postgresCpuMs, processCpuMs } from './processCpu.ts';
import { STATEMENT_STATS_SETTINGS, type StatementFigures, StatementStats } from './statementStats.ts';
import { percentile, type Spawned, startBenchService } from './support.ts';
import { startPgBouncer } from '../packages/server/test/support/pgbouncer.ts';

/**
 * The payment pipeline seen from the buyers' side, over HTTP and JSON-RPC only: one payment alone, 100 and 1,000
 * buyers at once, confirmation depth 12, the service's RPC calls per payment, and honest payments beside confirms
 * whose transfers never get mined. Every figure is a wall-clock time on the benchmark's side.
 */
const SINGLE_SAMPLES = 5;
const DEEP_SINGLE_SAMPLES = 2;
const CROWD = 100;
const LARGE_CROWD = 1000;
const DEEP_CONFIRMATIONS = 12;
const STUCK_CONFIRMS = 4;
const STUCK_NONCE_GAP = 1000;
const IDLE_MS = 5_000;
/** Time limits from the first options request; a run still unfinished then is reported as such. */
const CROWD_CAP_MS = 150_000;
const LARGE_CAP_MS = 180_000;
const DEEP_CROWD_CAP_MS = 300_000;
const ABUSE_CAP_MS = 90_000;
const LONG_POLL_MS = 25_000;
const REQUEST_TIMEOUT_MS = 45_000;
/** Statements listed per run of many buyers, the costliest first. */
const TOP_STATEMENTS = 8;
const STATEMENT_TEXT_CHARS = 110;
/** 1.00 USD. */
const AMOUNT = '100';

type Method = 'eip3009' | 'permit2' | 'solana';
const METHOD_NAMES: Record<Method, string> = {
  eip3009: 'EIP-3009 USDC',
  permit2: 'Permit2 USDT',
  solana: 'Solana USDC',
};

interface Buyer {
  method: Method;
  /** CAIP-2 network it pays on. */
  chain: string;
  /** CAIP-10 account sent with the options request. */
  account: string;
  /** The option it picks: `caip19/<asset>`, lower-cased. */
  unit: string;
  signers: Signers;
}

interface Service {
  spawned: Spawned;
  client: GatewayClient;
  apiKey: string;
  merchantId: string;
  /** Warnings the service logged (LOG_LEVEL=warn) and anything it wrote to stderr. */
  problems: string[];
  /** Statements the service ran on its database. */
  statements: StatementStats;
  stop(): Promise<void>;
}

/** Every service's problem lines, for a few examples at the end. */
const problemExamples: string[] = [];

interface Mark {
  at: number;
  counts: RpcCounts;
  /** CPU used so far (ms): the service process, the PostgreSQL server, the whole machine; null off Linux. */
  cpu: { service: number | null; postgres: number | null; machine: { busy: number; total: number } | null };
}

interface Outcome {
  buyer: Buyer;
  paymentId: string;
  option?: PaymentOption;
  results?: WalletRpcResult[];
  status: string;
  failureCode?: string;
  error?: string;
  /** ms from the run's start until this payment's confirm was answered. */
  confirmedMs?: number;
  /** ms from the run's start until this payment was seen final. */
  finalMs?: number;
}

/**
 * How the buyers of a crowd move: all together from stage to stage (each stage starts when every buyer finished the
 * one before, so the RPC calls can be told apart by stage), or each at its own pace, as buyers do.
 */
type Pace = 'lockstep' | 'own';

interface CrowdRun {
  size: number;
  pace: Pace;
  outcomes: Outcome[];
  capMs: number;
  start: Mark;
  /** All final, or the time limit. */
  end: Mark;
  /** In lockstep: options answered, actions executed (signatures, Solana fetch), confirms answered. */
  stages?: { options: Mark; actions: Mark; confirms: Mark };
  allFinal: boolean;
  statements: StatementFigures;
}

// ---------------------------------------------------------------------------------------------------------------
// Figures

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Milliseconds as text; a time limit reached shows as `>limit`. */
function ms(value: number, capMs?: number): string {
  if (!Number.isFinite(value)) return capMs === undefined ? 'n/a' : `>${capMs.toFixed(0)}`;
  return value.toFixed(0);
}

function seconds(valueMs: number): string {
  return (valueMs / 1000).toFixed(1);
}

const write = (line = '') => process.stdout.write(`${line}\n`);

/** 1, 5 and 15 minute load averages: anything else running on the machine shows here. */
function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

/** PgBouncer's version, as it prints it (`1.18.0`). */
async function pgBouncerVersion(): Promise<string> {
  const { stdout } = await promisify(execFile)('/usr/sbin/pgbouncer', ['--version']);
  return stdout.match(/PgBouncer (\S+)/)?.[1] ?? 'of unknown version';
}

/** Per-payment latencies of a crowd run, non-final payments as infinite. */
function latencies(run: CrowdRun): number[] {
  return run.outcomes.map((outcome) => outcome.finalMs ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
}

function allFinalMs(run: CrowdRun): number {
  return run.allFinal ? Math.max(...run.outcomes.map((outcome) => outcome.finalMs ?? 0)) : Number.POSITIVE_INFINITY;
}

function succeeded(run: CrowdRun): number {
  return run.outcomes.filter((outcome) => outcome.status === 'succeeded').length;
}

function printCrowd(label: string, run: CrowdRun, oneMs?: number): void {
  const sorted = latencies(run);
  const total = allFinalMs(run);
  const elapsed = run.end.at - run.start.at;
  const done = succeeded(run);
  const { start, end: final, stages } = run;
  write(
    `${label}: succeeded ${done}/${run.size}; ${run.allFinal ? `all final in ${seconds(total)} s` : `NOT all final within the ${seconds(run.capMs)} s limit`}; ` +
      `${(done / (elapsed / 1000)).toFixed(1)} succeeded payments/s over ${seconds(elapsed)} s`,
  );
  write(
    `  per payment (first options request to final): p50 ${ms(percentile(sorted, 0.5), run.capMs)} ms, p95 ${ms(percentile(sorted, 0.95), run.capMs)} ms` +
      (oneMs
        ? `; concurrency penalty ${run.allFinal ? `${(total / oneMs).toFixed(1)}x` : `>${(elapsed / oneMs).toFixed(1)}x`} (all final / one payment's ${ms(oneMs)} ms)`
        : ''),
  );
  if (stages)
    write(
      `  stages: options ${seconds(stages.options.at - start.at)} s, signatures and Solana fetch ${seconds(stages.actions.at - stages.options.at)} s, ` +
        `confirms ${seconds(stages.confirms.at - stages.actions.at)} s, confirms answered to all final ${seconds(final.at - stages.confirms.at)} s`,
    );
  const afterConfirm = new Map<Method, number[]>();
  for (const { buyer, confirmedMs, finalMs } of run.outcomes)
    if (confirmedMs !== undefined && finalMs !== undefined)
      afterConfirm.set(buyer.method, [...(afterConfirm.get(buyer.method) ?? []), finalMs - confirmedMs]);
  write(
    `  from its confirm answered to final, by method (p50 / max ms): ${[...afterConfirm]
      .map(([method, values]) => {
        const sortedValues = values.sort((a, b) => a - b);
        return `${METHOD_NAMES[method]} ${ms(percentile(sortedValues, 0.5))} / ${ms(sortedValues.at(-1) ?? 0)}`;
      })
      .join('; ')}`,
  );
  const unfinished = new Map<string, number>();
  for (const outcome of run.outcomes) {
    if (outcome.status === 'succeeded') continue;
    const key = `${METHOD_NAMES[outcome.buyer.method]} ${outcome.status}${outcome.failureCode ? ` (${outcome.failureCode})` : ''}${outcome.error ? `: ${outcome.error.slice(0, 160)}` : ''}`;
    unfinished.set(key, (unfinished.get(key) ?? 0) + 1);
  }
  for (const [key, count] of unfinished) write(`  not succeeded: ${count} x ${key}`);
  const cpu = cpuBetween(start, final);
  if (cpu) {
    write(
      `  CPU until all final: service ${(cpu.serviceMs / run.size).toFixed(1)} ms per payment (${percent(cpu.serviceMs / elapsed)} of one core), ` +
        `PostgreSQL ${(cpu.postgresMs / run.size).toFixed(1)} ms per payment (${percent(cpu.postgresMs / elapsed)}), machine ${percent(cpu.machineBusyShare)} busy (${os.cpus().length} cores)`,
    );
  }
  printStatements(run);
}

function printStatements(run: CrowdRun): void {
  const { calls, totalMs, top } = run.statements;
  write(
    `  PostgreSQL statements until all final: ${(calls / run.size).toFixed(1)} per payment, executing ${(totalMs / run.size).toFixed(1)} ms per payment; the costliest:`,
  );
  for (const statement of top) {
    const text =
      statement.query.length > STATEMENT_TEXT_CHARS
        ? `${statement.query.slice(0, STATEMENT_TEXT_CHARS)}...`
        : statement.query;
    write(
      `    ${(statement.calls / run.size).toFixed(2).padStart(6)} per payment ${(statement.totalMs / run.size).toFixed(2).padStart(6)} ms  ${text}`,
    );
  }
}

const percent = (share: number) => `${(share * 100).toFixed(0)} %`;

/** CPU used between two marks, when /proc could be read at both. */
function cpuBetween(from: Mark, to: Mark): { serviceMs: number; postgresMs: number; machineBusyShare: number } | null {
  const { service: s0, postgres: p0, machine: m0 } = from.cpu;
  const { service: s1, postgres: p1, machine: m1 } = to.cpu;
  if (s0 === null || s1 === null || p0 === null || p1 === null || !m0 || !m1) return null;
  return { serviceMs: s1 - s0, postgresMs: p1 - p0, machineBusyShare: (m1.busy - m0.busy) / (m1.total - m0.total) };
}

interface RpcPhases {
  idlePerSecond: number;
  options: number;
  actions: number;
  confirms: number;
  afterConfirms: number;
  total: number;
  httpRequests: number;
  top: [string, number][];
}

function rpcPhases(run: CrowdRun, idle: RpcCounts, idleMs: number): RpcPhases {
  const { start, end: final, stages } = run;
  if (!stages) throw new Error('RPC calls are split by stage in lockstep runs only');
  const { options, actions, confirms } = stages;
  const whole = countsBetween(start.counts, final.counts);
  return {
    idlePerSecond: totalCalls(idle) / (idleMs / 1000),
    options: totalCalls(countsBetween(start.counts, options.counts)),
    actions: totalCalls(countsBetween(options.counts, actions.counts)),
    confirms: totalCalls(countsBetween(actions.counts, confirms.counts)),
    afterConfirms: totalCalls(countsBetween(confirms.counts, final.counts)),
    total: totalCalls(whole),
    httpRequests: whole.httpRequests,
    top: topMethods(whole, 8),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Buyers

function evmBuyer(
  method: 'eip3009' | 'permit2',
  chain: DevnetEvmChain,
  rpcUrls: Record<string, string>,
): { buyer: Buyer; account: PrivateKeyAccount } {
  const account = privateKeyToAccount(generatePrivateKey());
  const token = chain.tokens.find((candidate) => candidate.symbol === (method === 'eip3009' ? 'USDC' : 'USDT'));
  if (!token) throw new Error(`${chain.caip2} lacks the token for ${method}`);
  return {
    account,
    buyer: {
      method,
      chain: chain.caip2,
      account: `${chain.caip2}:${account.address}`,
      unit: `caip19/${token.caip19}`.toLowerCase(),
      signers: { eip155: evmSignerFromAccount(account, { rpcUrls }) },
    },
  };
}

async function solanaBuyer(devnet: Devnet): Promise<{ buyer: Buyer; address: string }> {
  const signer = solanaSignerFromKeyPair(new Uint8Array(randomBytes(32)));
  const address = await signer.address();
  const { solana } = devnet.manifest;
  const usdc = solana.tokens.find((token) => token.symbol === 'USDC');
  if (!usdc) throw new Error('the devnet Solana has no USDC');
  return {
    address,
    buyer: {
      method: 'solana',
      chain: solana.caip2,
      account: `${solana.caip2}:${address}`,
      unit: `caip19/${usdc.caip19}`.toLowerCase(),
      signers: { solana: signer },
    },
  };
}

/** Fresh buyers for one run, described by (method, EVM chain) pairs; funding happens later, for all runs at once. */
class BuyerFactory {
  readonly grants = new Map<string, EvmGrant[]>();
  readonly solanaAddresses: string[] = [];

  constructor(
    private readonly devnet: Devnet,
    private readonly rpcUrls: Record<string, string>,
  ) {}

  async make(plan: { method: Method; chain?: DevnetEvmChain }[]): Promise<Buyer[]> {
    const buyers: Buyer[] = [];
    for (const { method, chain } of plan) {
      if (method === 'solana') {
        const { buyer, address } = await solanaBuyer(this.devnet);
        this.solanaAddresses.push(address);
        buyers.push(buyer);
        continue;
      }
      if (!chain) throw new Error(`${method} needs a chain`);
      const { buyer, account } = evmBuyer(method, chain, this.rpcUrls);
      const grant: EvmGrant =
        method === 'eip3009'
          ? { account, tokens: { USDC: 10n }, approvePermit2: false }
          : { account, tokens: { USDT: 10n }, approvePermit2: true };
      this.grants.set(chain.caip2, [...(this.grants.get(chain.caip2) ?? []), grant]);
      buyers.push(buyer);
    }
    return buyers;
  }

  /** A buyer holding only native coin on the chain (for the never-mined transfers). */
  nativeHolder(chain: DevnetEvmChain): { account: PrivateKeyAccount; caip10: string; unit: string } {
    const account = privateKeyToAccount(generatePrivateKey());
    this.grants.set(chain.caip2, [
      ...(this.grants.get(chain.caip2) ?? []),
      { account, tokens: {}, approvePermit2: false },
    ]);
    return {
      account,
      caip10: `${chain.caip2}:${account.address}`,
      unit: `caip19/${chain.nativeToken.caip19}`.toLowerCase(),
    };
  }

  async fund(): Promise<void> {
    const { manifest } = this.devnet;
    await Promise.all([
      ...manifest.evm.map((chain) =>
        fundEvmAccounts(chain, manifest.faucet.evmPrivateKey, this.grants.get(chain.caip2) ?? [], parseEther('10')),
      ),
      this.devnet.fund({ solana: this.solanaAddresses }),
    ]);
  }
}

/** Mixes in the order given, one after the other (a third each for three kinds). */
function mixed(
  size: number,
  kinds: { method: Method; chain?: DevnetEvmChain }[],
): { method: Method; chain?: DevnetEvmChain }[] {
  return Array.from({ length: size }, (_unused, index) => kinds[index % kinds.length]!);
}

function describeMix(buyers: Buyer[]): string {
  const counts = new Map<string, number>();
  for (const buyer of buyers) {
    const key = buyer.method === 'solana' ? METHOD_NAMES.solana : `${METHOD_NAMES[buyer.method]} ${buyer.chain}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count} ${key}`).join(', ');
}

// ---------------------------------------------------------------------------------------------------------------
// The service

interface Bench {
  devnet: Devnet;
  dataDir: string;
  /** The benchmark's PostgreSQL cluster, for its CPU time. */
  clusterDir: string;
  proxies: CountingRpcProxy[];
  /** Node URL -> proxy URL, for the service's CHAINS file. */
  proxyUrls: Map<string, string>;
}

const timedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });

/** The service's connections to PostgreSQL, as shipped (`DATABASE_POOL_SIZE`); PgBouncer is given as many. */
const SERVICE_POOL_SIZE = 20;

/**
 * A fresh database and a `paygate start` process whose CHAINS file sends every RPC call through the proxies; with
 * `pooled`, its requests reach PostgreSQL through PgBouncer in transaction mode (unnamed statements, sessions
 * direct), as many processes in front of one database run in production.
 */
async function startService(bench: Bench, name: string, evmConfirmations: number, pooled = false): Promise<Service> {
  const database = await startEmbeddedPostgres(bench.dataDir, { database: `bench_${name}` });
  const db = connect(database.url, 2);
  let partner: Awaited<ReturnType<typeof createPartner>>;
  const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const collector = await collectorAddresses(keys);
  try {
    await migrateToLatest(db, database.url);
    partner = await createPartner(db, 'Bench partner');
    // The faucet's credit is the operator's funding: the collector's network fees are paid out of it.
    await recordFunding(db, await bench.devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));
  } finally {
    await db.destroy();
  }
  const networks = networksFromDevnet(bench.devnet.manifest).map((network) => ({
    ...network,
    rpcUrl: bench.proxyUrls.get(network.rpcUrl ?? '') ?? network.rpcUrl,
    confirmations: network.namespace === 'eip155' ? evmConfirmations : network.confirmations,
  }));
  const chainsFile = path.join(bench.dataDir, `chains-${name}.json`);
  await fs.writeFile(chainsFile, JSON.stringify(networks, null, 2));
  const pooler = pooled ? await startPgBouncer(database.url, SERVICE_POOL_SIZE) : undefined;
  const spawned = await startBenchService(pooler?.url ?? database.url, bench.dataDir, {
    CHAINS: chainsFile,
    PRICE_SOURCE: 'fixed',
    COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
    COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
    DATABASE_POOL_SIZE: String(SERVICE_POOL_SIZE),
    ...(pooler ? { DATABASE_SESSION_URL: database.url, DATABASE_PREPARED_STATEMENTS: 'false' } : {}),
  });
  const problems: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null, isProblem: (line: string) => boolean) => {
    let pending = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      const complete = lines.filter((line) => line.trim() && isProblem(line));
      problems.push(...complete);
      problemExamples.push(...complete.slice(0, Math.max(0, 3 - problemExamples.length)));
    });
  };
  collect(spawned.child.stderr, () => true);
  collect(spawned.child.stdout, isWarningLine);
  const created = await fetch(`${spawned.url}/v1/merchants`, {
    method: 'POST',
    headers: { 'api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
  });
  const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
  const client = new GatewayClient({
    baseUrl: spawned.url,
    auth: { apiKey: partner.apiKey },
    fetch: timedFetch,
    retry: { retries: 2 },
  });
  const statements = await StatementStats.open(database.url);
  return {
    spawned,
    client,
    apiKey: partner.apiKey,
    merchantId,
    problems,
    statements,
    stop: async () => {
      await statements.close();
      await spawned.stop();
      await pooler?.stop();
    },
  };
}

/** A log line of the service at level warn (40) or worse. */
function isWarningLine(line: string): boolean {
  try {
    return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 40;
  } catch {
    return false;
  }
}

async function createPayment(service: Service): Promise<string> {
  const response = await timedFetch(`${service.spawned.url}/v1/payments`, {
    method: 'POST',
    headers: {
      'api-key': service.apiKey,
      'merchant-id': service.merchantId,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: AMOUNT }, referenceId: randomUUID() }),
  });
  const body = (await response.json()) as { paymentId?: string };
  if (!response.ok || !body.paymentId)
    throw new Error(`creating a payment answered ${response.status}: ${JSON.stringify(body)}`);
  return body.paymentId;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
}

function pickOption(options: PaymentOption[], account: string, unit: string): PaymentOption {
  const option = options.find(
    (candidate) =>
      candidate.amount.unit.toLowerCase() === unit && candidate.account.toLowerCase() === account.toLowerCase(),
  );
  if (!option)
    throw new Error(`no option ${unit} among ${options.map((candidate) => candidate.amount.unit).join(', ')}`);
  return option;
}

/** Long-polls the status until final or the deadline (performance.now() time); records it on the outcome. */
async function followToFinal(service: Service, outcome: Outcome, startedAt: number, deadline: number): Promise<void> {
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    try {
      const status = await service.client.getStatus(outcome.paymentId, {
        maxPollMs: Math.min(LONG_POLL_MS, Math.ceil(left)),
      });
      outcome.status = status.status;
      if (status.failureCode !== undefined) outcome.failureCode = status.failureCode;
      if (status.isFinal) {
        outcome.finalMs = performance.now() - startedAt;
        return;
      }
    } catch (error) {
      outcome.error = `status: ${messageOf(error)}`;
      await sleep(200);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

/** One payment from its options request to succeeded; the RPC calls the service made meanwhile. */
async function payAlone(bench: Bench, service: Service, buyer: Buyer): Promise<{ ms: number; calls: number }> {
  const paymentId = await createPayment(service);
  const before = snapshot(bench.proxies);
  const started = performance.now();
  const { options } = await service.client.getOptions(paymentId, { accounts: [buyer.account] });
  const option = pickOption(options, buyer.account, buyer.unit);
  const results = await executeOptionActions({ client: service.client, paymentId, option, signers: buyer.signers });
  const confirmed = await service.client.confirm(paymentId, { optionId: option.id, results }, { maxPollMs: 0 });
  const outcome: Outcome = { buyer, paymentId, status: confirmed.status };
  if (!confirmed.isFinal) await followToFinal(service, outcome, started, started + 120_000);
  const elapsed = performance.now() - started;
  if (outcome.status !== 'succeeded')
    throw new Error(
      `a single ${METHOD_NAMES[buyer.method]} payment ended ${outcome.status} ${outcome.failureCode ?? ''}`,
    );
  return { ms: elapsed, calls: totalCalls(countsBetween(before, snapshot(bench.proxies))) };
}

async function singles(
  bench: Bench,
  service: Service,
  buyers: Buyer[],
  samples: number,
  title: string,
): Promise<{ meanMs: number; perMethod: Map<Method, number[]> }> {
  write(title);
  write(
    `${'method'.padEnd(34)} ${'n'.padStart(3)} ${'mean ms'.padStart(9)} ${'p50 ms'.padStart(9)} ${'max ms'.padStart(9)} ${'RPC calls/payment'.padStart(18)}`,
  );
  const perMethod = new Map<Method, number[]>();
  const all: number[] = [];
  for (const buyer of buyers) {
    const times: number[] = [];
    const calls: number[] = [];
    for (let index = 0; index < samples; index++) {
      const sample = await payAlone(bench, service, buyer);
      times.push(sample.ms);
      calls.push(sample.calls);
    }
    perMethod.set(buyer.method, times);
    all.push(...times);
    const sorted = [...times].sort((a, b) => a - b);
    const label = `${METHOD_NAMES[buyer.method]} ${buyer.chain.slice(0, 16)}`;
    write(
      `${label.padEnd(34)} ${String(samples).padStart(3)} ${mean(times).toFixed(1).padStart(9)} ${percentile(sorted, 0.5).toFixed(1).padStart(9)} ${sorted.at(-1)!.toFixed(1).padStart(9)} ${mean(calls).toFixed(1).padStart(18)}`,
    );
  }
  const meanMs = mean(all);
  write(
    `${'one payment (mean of all above)'.padEnd(34)} ${String(all.length).padStart(3)} ${meanMs.toFixed(1).padStart(9)}`,
  );
  return { meanMs, perMethod };
}

/** Background RPC calls while nothing is being paid. */
async function idleCalls(bench: Bench): Promise<RpcCounts> {
  await sleep(1_000);
  const before = snapshot(bench.proxies);
  await sleep(IDLE_MS);
  return countsBetween(before, snapshot(bench.proxies));
}

/**
 * Many buyers at once, in lock step so the service's RPC calls can be told apart by stage: every options request
 * at the same moment; when all are answered, every buyer executes its option's actions (EVM signatures locally,
 * the Solana build through the gateway's fetch and a local signature); then every confirm (maxPollMs=0); then
 * status long-polls until each payment is final or the run's time limit passes. The payments are created before.
 */
async function crowd(
  bench: Bench,
  service: Service,
  buyers: Buyer[],
  capMs: number,
  pace: Pace = 'lockstep',
): Promise<CrowdRun> {
  const ids = await pMap(buyers, () => createPayment(service), { concurrency: 50 });
  const outcomes: Outcome[] = buyers.map((buyer, index) => ({
    buyer,
    paymentId: ids[index]!,
    status: 'requires_action',
  }));
  const mark = (): Mark => ({
    at: performance.now(),
    counts: snapshot(bench.proxies),
    cpu: {
      service: processCpuMs(service.spawned.child.pid),
      postgres: postgresCpuMs(bench.clusterDir),
      machine: machineCpuMs(),
    },
  });
  await service.statements.reset();
  const start = mark();
  const deadline = start.at + capMs;
  const getOptions = async (outcome: Outcome) => {
    try {
      const { options } = await service.client.getOptions(outcome.paymentId, { accounts: [outcome.buyer.account] });
      outcome.option = pickOption(options, outcome.buyer.account, outcome.buyer.unit);
    } catch (error) {
      outcome.error = `options: ${messageOf(error)}`;
    }
  };
  const execute = async (outcome: Outcome) => {
    if (!outcome.option) return;
    try {
      outcome.results = await executeOptionActions({
        client: service.client,
        paymentId: outcome.paymentId,
        option: outcome.option,
        signers: outcome.buyer.signers,
      });
    } catch (error) {
      outcome.error = `actions: ${messageOf(error)}`;
    }
  };
  const confirm = async (outcome: Outcome) => {
    if (!outcome.option || !outcome.results) return;
    try {
      const status = await service.client.confirm(
        outcome.paymentId,
        { optionId: outcome.option.id, results: outcome.results },
        { maxPollMs: 0 },
      );
      outcome.confirmedMs = performance.now() - start.at;
      outcome.status = status.status;
      if (status.failureCode !== undefined) outcome.failureCode = status.failureCode;
      if (status.isFinal) outcome.finalMs = outcome.confirmedMs;
    } catch (error) {
      outcome.error = `confirm: ${messageOf(error)}`;
      outcome.results = undefined;
    }
  };
  const follow = (outcome: Outcome) =>
    outcome.results && outcome.finalMs === undefined ? followToFinal(service, outcome, start.at, deadline) : undefined;

  let stages: CrowdRun['stages'];
  if (pace === 'own') {
    await Promise.all(
      outcomes.map(async (outcome) => {
        await getOptions(outcome);
        await execute(outcome);
        await confirm(outcome);
        await follow(outcome);
      }),
    );
  } else {
    await Promise.all(outcomes.map(getOptions));
    const options = mark();
    await Promise.all(outcomes.map(execute));
    const actions = mark();
    await Promise.all(outcomes.map(confirm));
    stages = { options, actions, confirms: mark() };
    await Promise.all(outcomes.map(follow));
  }
  const end = mark();
  return {
    size: buyers.length,
    pace,
    outcomes,
    capMs,
    start,
    end,
    ...(stages ? { stages } : {}),
    allFinal: outcomes.every((outcome) => outcome.finalMs !== undefined),
    statements: await service.statements.read(TOP_STATEMENTS),
  };
}

interface StuckConfirm {
  paymentId: string;
  hash: Hex;
  confirmAnswer: string;
  chain: DevnetEvmChain;
}

/**
 * A native-coin confirm whose transfer is never mined: the option's `eth_sendTransaction` (to, value, data as
 * offered) signed by the buyer with a nonce far above its next one, so the node keeps it queued for ever.
 */
async function stuckConfirm(
  service: Service,
  chain: DevnetEvmChain,
  holder: { account: PrivateKeyAccount; caip10: string; unit: string },
): Promise<StuckConfirm> {
  const paymentId = await createPayment(service);
  const { options } = await service.client.getOptions(paymentId, { accounts: [holder.caip10] });
  const option = pickOption(options, holder.caip10, holder.unit);
  const action = option.actions[0];
  if (option.actions.length !== 1 || action?.type !== 'walletRpc' || action.data.method !== 'eth_sendTransaction') {
    throw new Error(`the native option's actions are not one eth_sendTransaction: ${JSON.stringify(option.actions)}`);
  }
  const [request] = JSON.parse(action.data.params) as [{ to: Hex; value?: Hex; data?: Hex }];
  const address = holder.account.address;
  const nonce = Number(await nodeCall(chain.rpcUrl, 'eth_getTransactionCount', [address, 'pending'])) + STUCK_NONCE_GAP;
  const gasPrice = BigInt((await nodeCall(chain.rpcUrl, 'eth_gasPrice', [])) as string);
  const gas = BigInt(
    (await nodeCall(chain.rpcUrl, 'eth_estimateGas', [
      { from: address, to: request.to, value: request.value, data: request.data },
    ])) as string,
  );
  const raw = await holder.account.signTransaction({
    chainId: chain.chainId,
    type: 'eip1559',
    nonce,
    to: request.to,
    value: request.value ? BigInt(request.value) : 0n,
    ...(request.data ? { data: request.data } : {}),
    gas,
    maxFeePerGas: gasPrice * 2n + parseGwei('1'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
  const hash = (await nodeCall(chain.rpcUrl, 'eth_sendRawTransaction', [raw])) as Hex;
  if (hash.toLowerCase() !== keccak256(raw).toLowerCase())
    throw new Error(`the node named the transfer ${hash}, not ${keccak256(raw)}`);
  let confirmAnswer: string;
  try {
    const status = await service.client.confirm(
      paymentId,
      { optionId: option.id, results: [{ type: 'walletRpc', data: [hash] }] },
      { maxPollMs: 0 },
    );
    confirmAnswer = status.status;
  } catch (error) {
    confirmAnswer = `refused (${messageOf(error)})`;
  }
  return { paymentId, hash, confirmAnswer, chain };
}

function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${count} x ${value}`).join(', ');
}

function printRpcTable(rows: [string, RpcPhases | undefined, number][]): void {
  write(
    `${`service RPC calls, ${CROWD} buyers at once`.padEnd(44)} ${rows.map(([label]) => label.padStart(16)).join('')}`,
  );
  const line = (label: string, value: (phases: RpcPhases, size: number) => string) =>
    write(
      `${label.padEnd(44)} ${rows.map(([, phases, size]) => (phases ? value(phases, size) : 'n/a').padStart(16)).join('')}`,
    );
  line('idle, before the run (calls/s)', (phases) => phases.idlePerSecond.toFixed(1));
  line('during options requests (per payment)', (phases, size) => (phases.options / size).toFixed(2));
  line('during fetch (Solana build) and signing', (phases, size) => (phases.actions / size).toFixed(2));
  line('during confirm requests', (phases, size) => (phases.confirms / size).toFixed(2));
  line('after confirms until all final', (phases, size) => (phases.afterConfirms / size).toFixed(2));
  line('total per payment (target <= 5)', (phases, size) => (phases.total / size).toFixed(2));
  line('total calls', (phases) => String(phases.total));
  line('HTTP requests carrying them', (phases) => String(phases.httpRequests));
  for (const [label, phases, size] of rows) {
    if (!phases) continue;
    write(
      `  top methods, ${label}: ${phases.top.map(([method, count]) => `${method} ${(count / size).toFixed(2)}`).join(', ')}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------

export async function runPipelineBenchmark(): Promise<void> {
  const benchStarted = performance.now();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-pipeline-'));
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const database = await startEmbeddedPostgres(dataDir, { settings: STATEMENT_STATS_SETTINGS });
  const { manifest } = devnet;
  const [chainA, chainB] = manifest.evm as [DevnetEvmChain, DevnetEvmChain];
  const proxies = [
    new CountingRpcProxy('A', chainA.rpcUrl),
    new CountingRpcProxy('B', chainB.rpcUrl),
    new CountingRpcProxy('S', manifest.solana.rpcUrl),
  ];
  const proxyUrls = new Map<string, string>();
  for (const proxy of proxies) proxyUrls.set(proxy.upstream, await proxy.start());
  const bench: Bench = { devnet, dataDir, clusterDir: path.join(dataDir, 'postgres'), proxies, proxyUrls };
  let service: Service | undefined;
  try {
    write(
      `devnet: ${chainA.caip2} (A) and ${chainB.caip2} (B), ${chainA.blockTimeMs} ms blocks; ${manifest.solana.caip2} (S), ${manifest.solana.slotMs} ms slots`,
    );
    write(
      `one paygate process (job concurrency as shipped), ${os.cpus().length} CPUs shared with the nodes, PostgreSQL and this script`,
    );
    write('the service reaches every node through a counting JSON-RPC proxy; the buyers go to the nodes directly');
    write(`load average at the start: ${loadAverage()}`);

    // Buyers (all fresh except alice for the single payments), funded before anything is timed.
    const rpcUrls = Object.fromEntries(manifest.evm.map((chain) => [chain.caip2, chain.rpcUrl]));
    const factory = new BuyerFactory(devnet, rpcUrls);
    const thirds = [
      { method: 'eip3009' as const, chain: chainA },
      { method: 'permit2' as const, chain: chainA },
      { method: 'solana' as const },
    ];
    const fifths = [
      { method: 'eip3009' as const, chain: chainA },
      { method: 'eip3009' as const, chain: chainB },
      { method: 'permit2' as const, chain: chainA },
      { method: 'permit2' as const, chain: chainB },
      { method: 'solana' as const },
    ];
    const crowdBuyers = await factory.make(mixed(CROWD, thirds));
    const crowdOwnBuyers = await factory.make(mixed(CROWD, thirds));
    const largeBuyers = await factory.make(mixed(LARGE_CROWD, fifths));
    const largeOwnBuyers = await factory.make(mixed(LARGE_CROWD, fifths));
    const warmUpBuyers = await factory.make(mixed(CROWD, thirds));
    const pooledWarmUpBuyers = await factory.make(mixed(CROWD, thirds));
    const pooledBuyers = await factory.make(mixed(LARGE_CROWD, fifths));
    const honestBuyers = await factory.make(mixed(CROWD, thirds));
    const abusedBuyers = await factory.make(mixed(CROWD, thirds));
    const stuckHolders = Array.from({ length: STUCK_CONFIRMS }, () => factory.nativeHolder(chainA));
    const deepBuyers = await factory.make(mixed(CROWD, thirds));
    const deepOwnBuyers = await factory.make(mixed(CROWD, thirds));
    const fundStarted = performance.now();
    await factory.fund();
    const evmFunded = [...factory.grants.values()].reduce((sum, grants) => sum + grants.length, 0);
    write(
      `funded ${evmFunded} fresh EVM buyers (tokens, Permit2 approvals) and ${factory.solanaAddresses.length} Solana buyers in ${seconds(performance.now() - fundStarted)} s (not timed)`,
    );

    const alice = manifest.buyers[0]!;
    const aliceSigners: Signers = {
      eip155: evmSignerFromAccount(privateKeyToAccount(alice.evmPrivateKey), { rpcUrls }),
      solana: solanaSignerFromKeyPair(alice.solanaSecretKey),
    };
    const aliceAs = (method: Method): Buyer => {
      const chain = method === 'solana' ? manifest.solana : chainA;
      const token = chain.tokens.find((candidate) => candidate.symbol === (method === 'permit2' ? 'USDT' : 'USDC'))!;
      const address = method === 'solana' ? alice.solanaAddress : alice.evmAddress;
      return {
        method,
        chain: chain.caip2,
        account: `${chain.caip2}:${address}`,
        unit: `caip19/${token.caip19}`.toLowerCase(),
        signers: aliceSigners,
      };
    };
    const aliceBuyers = (['eip3009', 'permit2', 'solana'] as const).map(aliceAs);

    // Depth 1: one payment alone, then 100 and 1,000 at once.
    service = await startService(bench, 'depth1', 1);
    write();
    const one = await singles(
      bench,
      service,
      aliceBuyers,
      SINGLE_SAMPLES,
      `1. one payment alone, depth 1: ${SINGLE_SAMPLES} per method, one after another, buyer alice, options request to succeeded`,
    );
    const idle1 = await idleCalls(bench);
    write();
    write(`2. ${CROWD} buyers at once, depth 1 (${describeMix(crowdBuyers)})`);
    const crowd1 = await crowd(bench, service, crowdBuyers, CROWD_CAP_MS);
    printCrowd(`${CROWD} at once, in lockstep`, crowd1, one.meanMs);
    const rpc1 = rpcPhases(crowd1, idle1, IDLE_MS);
    const crowd1Own = await crowd(bench, service, crowdOwnBuyers, CROWD_CAP_MS, 'own');
    printCrowd(`${CROWD} at once, each at its own pace`, crowd1Own, one.meanMs);

    write();
    write(
      `3. ${LARGE_CROWD} buyers at once, depth 1 (${describeMix(largeBuyers)}); payments created before, time from the first options request`,
    );
    const large = await crowd(bench, service, largeBuyers, LARGE_CAP_MS);
    printCrowd(`${LARGE_CROWD} at once, in lockstep`, large);
    const largeOwn = await crowd(bench, service, largeOwnBuyers, LARGE_CAP_MS, 'own');
    printCrowd(`${LARGE_CROWD} at once, each at its own pace`, largeOwn);
    const rate = (run: CrowdRun) => succeeded(run) / ((run.end.at - run.start.at) / 1000);
    const largeCalls = totalCalls(countsBetween(largeOwn.start.counts, largeOwn.end.counts));
    write(
      `  ${rate(largeOwn).toFixed(1)} payments/s for this one process at the buyers' own pace, ${rate(large).toFixed(1)} in lockstep (target >= 100); service RPC calls ${largeCalls} (${(largeCalls / LARGE_CROWD).toFixed(2)} per payment)`,
    );
    const largeCpu = cpuBetween(largeOwn.start, largeOwn.end);
    if (largeCpu)
      write(
        `  at its CPU per payment, one core given to the service alone would finish ${(1000 / (largeCpu.serviceMs / LARGE_CROWD)).toFixed(0)} payments/s (its database and nodes elsewhere)`,
      );
    const problems1 = service.problems.length;
    await service.stop();
    service = undefined;

    write();
    write(
      `3b. ${LARGE_CROWD} buyers at once at their own pace, depth 1, the service's requests through PgBouncer ${await pgBouncerVersion()} in transaction mode (${SERVICE_POOL_SIZE} server connections, unnamed statements; sessions direct)`,
    );
    service = await startService(bench, 'pooled', 1, true);
    const pooledWarmUp = await crowd(bench, service, pooledWarmUpBuyers, CROWD_CAP_MS, 'own');
    write(`  warm-up of the new process: ${succeeded(pooledWarmUp)}/${CROWD} succeeded (not counted)`);
    const pooled = await crowd(bench, service, pooledBuyers, LARGE_CAP_MS, 'own');
    printCrowd(`${LARGE_CROWD} at once, each at its own pace, through PgBouncer`, pooled);
    const pooledShare = (rate(pooled) / rate(largeOwn)) * 100;
    write(
      `  ${rate(pooled).toFixed(1)} payments/s through PgBouncer, ${pooledShare.toFixed(0)} % of the direct ${rate(largeOwn).toFixed(1)} (target >= 90 %)`,
    );
    const problemsPooled = service.problems.length;
    await service.stop();
    service = undefined;

    // Abuse: honest payments alone, then beside confirms whose transfers never get mined (a fresh database each).
    write();
    write(
      `6. abuse, depth 1: ${CROWD} honest buyers at once (${describeMix(honestBuyers)}), alone and beside ${STUCK_CONFIRMS} native-ETH confirms never mined`,
    );
    service = await startService(bench, 'abuse', 1);
    // A new process is slower at first (code not yet optimised, connections not yet open): warmed up before both runs.
    const warmUp = await crowd(bench, service, warmUpBuyers, CROWD_CAP_MS, 'own');
    write(`  warm-up of the new process: ${succeeded(warmUp)}/${CROWD} succeeded (not counted)`);
    const honest = await crowd(bench, service, honestBuyers, CROWD_CAP_MS);
    printCrowd('honest only', honest);
    const stuck: StuckConfirm[] = [];
    for (const holder of stuckHolders) stuck.push(await stuckConfirm(service, chainA, holder));
    write(
      `  ${STUCK_CONFIRMS} stuck confirms sent (transfer nonce +${STUCK_NONCE_GAP}), answered: ${tally(stuck.map((entry) => entry.confirmAnswer))}`,
    );
    const abused = await crowd(bench, service, abusedBuyers, ABUSE_CAP_MS);
    printCrowd(`beside ${STUCK_CONFIRMS} stuck`, abused);
    const stuckStatuses = await Promise.all(
      stuck.map(async (entry) => (await service!.client.getStatus(entry.paymentId, { maxPollMs: 0 })).status),
    );
    const stuckOnNode = await Promise.all(
      stuck.map(async (entry) => {
        const transaction = (await nodeCall(entry.chain.rpcUrl, 'eth_getTransactionByHash', [entry.hash])) as {
          blockNumber: string | null;
        } | null;
        return transaction === null
          ? 'unknown to the node'
          : transaction.blockNumber === null
            ? 'pending on the node'
            : 'mined';
      }),
    );
    const honestP95 = percentile(latencies(honest), 0.95);
    const abusedP95 = percentile(latencies(abused), 0.95);
    const change = ((abusedP95 - honestP95) / honestP95) * 100;
    write(
      `  honest p95 ${ms(honestP95, honest.capMs)} ms alone, ${ms(abusedP95, abused.capMs)} ms beside the stuck confirms: ` +
        `${Number.isFinite(change) ? `${change >= 0 ? '+' : ''}${change.toFixed(0)} %` : `more than +${(((abused.capMs - honestP95) / honestP95) * 100).toFixed(0)} %`} (target < 20 %)`,
    );
    write(
      `  the ${STUCK_CONFIRMS} stuck payments at the end of the run: ${tally(stuckStatuses)}; their transfers: ${tally(stuckOnNode)}`,
    );
    const problemsAbuse = service.problems.length;
    await service.stop();
    service = undefined;

    // Depth 12 on the EVM chains: one payment alone, then 100 at once.
    service = await startService(bench, 'depth12', DEEP_CONFIRMATIONS);
    write();
    const deepOne = await singles(
      bench,
      service,
      aliceBuyers,
      DEEP_SINGLE_SAMPLES,
      `4. depth ${DEEP_CONFIRMATIONS} on the EVM chains (Solana unchanged): one payment alone, ${DEEP_SINGLE_SAMPLES} per method (fewer, to bound the run)`,
    );
    const idle12 = await idleCalls(bench);
    const deepCrowd = await crowd(bench, service, deepBuyers, DEEP_CROWD_CAP_MS);
    printCrowd(
      `${CROWD} at once in lockstep, depth ${DEEP_CONFIRMATIONS} (${describeMix(deepBuyers)})`,
      deepCrowd,
      deepOne.meanMs,
    );
    const rpc12 = rpcPhases(deepCrowd, idle12, IDLE_MS);
    const deepOwn = await crowd(bench, service, deepOwnBuyers, DEEP_CROWD_CAP_MS, 'own');
    printCrowd(`${CROWD} at once at their own pace, depth ${DEEP_CONFIRMATIONS}`, deepOwn, deepOne.meanMs);
    const problems12 = service.problems.length;
    await service.stop();
    service = undefined;

    write();
    write(
      `5. RPC calls the service made (every JSON-RPC call through the proxies, batch elements one by one; A/B = EVM chains, S = Solana)`,
    );
    write('   phases are the wall-clock stages of the run, so background calls falling in them are counted too');
    printRpcTable([
      ['depth 1', rpc1, CROWD],
      [`depth ${DEEP_CONFIRMATIONS}`, rpc12, CROWD],
    ]);

    write();
    write(`${'summary'.padEnd(52)} ${'measured'.padEnd(24)} target`);
    const penalty = (run: CrowdRun, oneMs: number) =>
      run.allFinal
        ? `${(allFinalMs(run) / oneMs).toFixed(1)}x`
        : `>${((run.end.at - run.start.at) / oneMs).toFixed(1)}x`;
    const row = (label: string, measured: string, target: string) =>
      write(`${label.padEnd(52)} ${measured.padEnd(24)} ${target}`);
    row('one payment alone, depth 1 (mean)', `${ms(one.meanMs)} ms`, '');
    row(
      `${CROWD} at once, depth 1: all succeeded`,
      `${succeeded(crowd1Own)}/${CROWD} (lockstep ${succeeded(crowd1)})`,
      `${CROWD}/${CROWD}`,
    );
    row(
      `${CROWD} at once, depth 1: concurrency penalty`,
      `${penalty(crowd1Own, one.meanMs)} (lockstep ${penalty(crowd1, one.meanMs)})`,
      '<= 3x',
    );
    row(
      `${LARGE_CROWD} at once: all succeeded`,
      `${succeeded(largeOwn)}/${LARGE_CROWD} (lockstep ${succeeded(large)})`,
      `${LARGE_CROWD}/${LARGE_CROWD}`,
    );
    row(
      `${LARGE_CROWD} at once: payments/s per process`,
      `${rate(largeOwn).toFixed(1)} (lockstep ${rate(large).toFixed(1)})`,
      '>= 100',
    );
    row(
      `${LARGE_CROWD} at once through PgBouncer: payments/s`,
      `${rate(pooled).toFixed(1)} (${pooledShare.toFixed(0)} % of direct)`,
      '>= 90 % of direct',
    );
    if (largeCpu)
      row(
        `${LARGE_CROWD} at once: CPU per payment, service / PostgreSQL`,
        `${(largeCpu.serviceMs / LARGE_CROWD).toFixed(1)} / ${(largeCpu.postgresMs / LARGE_CROWD).toFixed(1)} ms`,
        '',
      );
    row(
      `depth ${DEEP_CONFIRMATIONS}: ${CROWD} at once / one alone (${ms(deepOne.meanMs)} ms)`,
      `${penalty(deepOwn, deepOne.meanMs)} (lockstep ${penalty(deepCrowd, deepOne.meanMs)})`,
      '<= 3x',
    );
    row(
      `service RPC calls per payment, depth 1 / ${DEEP_CONFIRMATIONS}`,
      `${(rpc1.total / CROWD).toFixed(1)} / ${(rpc12.total / CROWD).toFixed(1)}`,
      '<= 5, not growing',
    );
    row(
      `honest p95 beside ${STUCK_CONFIRMS} stuck confirms`,
      Number.isFinite(change)
        ? `${change >= 0 ? '+' : ''}${change.toFixed(0)} %`
        : `> +${(((abused.capMs - honestP95) / honestP95) * 100).toFixed(0)} %`,
      '< 20 %',
    );
    write(
      `service warnings and stderr lines (LOG_LEVEL=warn): depth 1 ${problems1}, through PgBouncer ${problemsPooled}, abuse ${problemsAbuse}, depth ${DEEP_CONFIRMATIONS} ${problems12}`,
    );
    for (const line of problemExamples) write(`  e.g. ${line.slice(0, 200)}`);
    write(`whole benchmark: ${seconds(performance.now() - benchStarted)} s; load average at the end: ${loadAverage()}`);
  } finally {
    await service?.stop();
    for (const proxy of proxies) await proxy.stop();
    await database.stop();
    await devnet.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
