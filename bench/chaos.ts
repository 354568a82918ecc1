import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
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
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { sql } from 'kysely';
import pMap from 'p-map';
import { type Address, createPublicClient, createWalletClient, erc20Abi, type Hex, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { collectorAddresses } from '../packages/server/src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../packages/server/src/chains/devnetNetworks.ts';
import type { NetworkInfo } from '../packages/server/src/chains/registry.ts';
import { readSolanaBalances } from '../packages/server/src/chains/solana/readSolanaBalances.ts';
import { solanaRpc } from '../packages/server/src/chains/solana/rpc.ts';
import { connect, type Db, migrateToLatest } from '../packages/server/src/db/database.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { recordFunding } from '../packages/server/src/ledger/funding.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { parseTransferRequestUri } from '../packages/server/src/solanaPay/transferRequestUri.ts';
import { EVENT_TYPES } from '../packages/server/src/webhooks/events.ts';
import { createTestCertificate } from '../packages/server/test/support/logoServer.ts';
import { payAsWallet } from '../packages/server/test/solanaPay/support.ts';
import {
  type ReplicatedPostgres,
  startReplicatedPostgres,
} from '../packages/server/test/support/replicatedPostgres.ts';
import { ChaosFront } from './chaosFront.ts';
import { ServiceProcesses } from './chaosServices.ts';
import { type FaultCounts, FaultProxy, type FaultRates, NO_FAULTS } from './faultProxy.ts';
import { type EvmGrant, fundEvmAccounts } from './fundBuyers.ts';
import { closeServer, listenOnLoopback, ROOT } from './support.ts';

/**
 * The chaos run: several `paygate start` processes on one PostgreSQL, behind a load balancer, take payments of every
 * method while processes are killed, PostgreSQL is stopped and every chain node is reached through a proxy that
 * drops, delays, fails and serves stale heads. Settlements, webhooks and refunds run throughout. At the end every
 * payment must be final, no buyer charged twice or lost, every webhook delivered, every settlement made once and
 * the ledger's audit balanced against the chain.
 */
export interface ChaosOptions {
  payments: number;
  processes: number;
  /** Buyers paying at the same time. */
  buyersAtOnce: number;
  /** A process is killed every so often (a random wait in this range), and started again after a while; null: never. */
  killEveryMs: [number, number] | null;
  restartAfterMs: [number, number];
  /**
   * What befalls PostgreSQL once, when `databaseOutageAt` of the buyers started: `stop` stops it for
   * `databaseOutageMs`; `failover` runs a primary with a synchronous standby, SIGKILLs the primary and promotes the
   * standby `databaseOutageMs` later (the services are given both hosts).
   */
  databaseFault: 'stop' | 'failover';
  databaseOutageAt: number;
  databaseOutageMs: number;
  faults: FaultRates;
  /** Share of webhook deliveries the receiver answers 500. */
  receiverFailureRate: number;
  /** Share of succeeded payments partly refunded on chain. */
  refundShare: number;
  settlementIntervalMs: number;
  /** Longest wait for everything to finish after the last buyer. */
  drainLimitMs: number;
  log: (line: string) => void;
}

export const FULL_CHAOS: ChaosOptions = {
  payments: 500,
  processes: 3,
  buyersAtOnce: 25,
  killEveryMs: [5_000, 15_000],
  restartAfterMs: [500, 3_000],
  databaseFault: 'stop',
  databaseOutageAt: 0.4,
  databaseOutageMs: 10_000,
  faults: { drop: 0.05, delay: 0.2, maxDelayMs: 5_000, error: 0.3, stale: 0.2 },
  receiverFailureRate: 0.1,
  refundShare: 0.1,
  settlementIntervalMs: 3_000,
  drainLimitMs: 900_000,
  log: (line) => process.stdout.write(`${line}\n`),
};

export type Method = 'eip3009' | 'permit2' | 'native' | 'solana' | 'deposit' | 'solanaPay';
export const METHOD_NAMES: Record<Method, string> = {
  eip3009: 'EIP-3009 USDC',
  permit2: 'Permit2 USDT',
  native: 'native ETH',
  solana: 'Solana USDC',
  deposit: 'deposit address USDC',
  solanaPay: 'Solana Pay USDC',
};

export interface Buyer {
  index: number;
  method: Method;
  chain: DevnetEvmChain | undefined;
  /** CAIP-10 account that pays. */
  account: string;
  /** CAIP-19 asset it pays in. */
  asset: string;
  signers: Signers;
  evmKey?: Hex;
  solanaSecretKey?: string;
  /** Token (or, for native, wei) balance once funded. */
  startBalance: bigint;
}

export interface Outcome {
  buyer: Buyer;
  paymentId?: string;
  /** The buyer's transfer or signed authorization left its hands (confirm sent, transfer broadcast). */
  paid: boolean;
  /** What it was asked to pay, in the token's minor units. */
  asked?: bigint;
  /** Hashes of transactions the buyer sent itself (native, deposit): their gas is not part of the payment. */
  ownTransactions: Hex[];
  status?: string;
  error?: string;
  /** A refund was made (accepted by the service). */
  refundRequested: boolean;
  /** The refund was asked once the payment was settled. */
  refundAfterSettlement?: boolean;
  /** The refund was refused until the end because the merchant's balance did not cover it. */
  refundRefusedForBalance?: boolean;
}

export interface ChaosReport {
  payments: number;
  byStatus: Record<string, number>;
  byMethod: Record<string, number>;
  paid: number;
  /** Why buyers that did not pay gave up, by message, with how many gave that reason. */
  gaveUp: Record<string, number>;
  lost: string[];
  chargedWrongly: string[];
  notFinal: string[];
  kills: number;
  crashes: string[];
  refusedStarts: number;
  errorLines: number;
  errorExamples: string[];
  databaseOutages: number;
  outageAnswers: Record<string, number>;
  /** With `databaseFault: 'failover'`: how long the service was without its database, in ms. */
  failover?: FailoverTimes;
  rpcFaults: FaultCounts;
  http: Record<string, number>;
  serverErrors: string[];
  refusals: string[];
  unavailableWithoutRetryAfter: number;
  lostToProcessDeath: number;
  webhooks: { events: number; deliveries: number; received: number; duplicates: number; missing: string[] };
  settlements: { batches: number; confirmed: number; problems: string[] };
  refunds: {
    requested: number;
    succeeded: number;
    /** Of those made, how many were asked once their payment was settled (paid from later payments). */
    afterSettlement: number;
    /** Refused to the end (409 insufficient_balance): the merchant's balance never covered them. */
    refusedForBalance: number;
    problems: string[];
  };
  audit: { exitCode: number | null; differences: string[] };
  drainMs: number;
  totalMs: number;
  problems: string[];
}

export interface FailoverTimes {
  /** From the primary's death to the standby's promotion (the wait chosen) and how long `pg_ctl promote` took. */
  untilPromotionMs: number;
  promoteMs: number;
  /** From the primary's death, and from the promotion, to the first write answered 2xx through the balancer. */
  firstWriteAfterDeathMs?: number;
  firstWriteAfterPromotionMs?: number;
  /** From the primary's death, and from the promotion, to the first payment that succeeded after it. */
  firstSucceededAfterDeathMs?: number;
  firstSucceededAfterPromotionMs?: number;
}

const AMOUNT_RANGE: [number, number] = [50, 500];
const REQUEST_TIMEOUT_MS = 40_000;
const FOLLOW_LIMIT_MS = 600_000;
const RETRY_LIMIT_MS = 120_000;

const between = ([low, high]: [number, number]) => low + Math.random() * (high - low);
const messageOf = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));

class Unretryable extends Error {}

/**
 * Retries `work` on anything thrown (a balancer 502, a 503, a dropped connection) until it answers or time runs out;
 * an Unretryable refusal ends it at once.
 */
async function retrying<T>(what: string, work: () => Promise<T>, limitMs = RETRY_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  let wait = 250;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Unretryable) throw error;
      if (Date.now() > deadline) throw new Error(`${what}: ${messageOf(error)}`);
      await sleep(wait);
      wait = Math.min(wait * 2, 3_000);
    }
  }
}

/** One API call through the balancer; 5xx and 429 throw to be retried, other refusals throw Unretryable. */
async function api(
  base: string,
  apiKey: string,
  method: string,
  pathName: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<any> {
  const response = await fetch(`${base}${pathName}`, {
    method,
    headers: { 'api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status >= 500 || response.status === 429) throw new Error(`${method} ${pathName}: ${response.status}`);
  if (!response.ok) throw new Unretryable(`${method} ${pathName}: ${response.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

function retryingApi(...args: Parameters<typeof api>): Promise<any> {
  return retrying(`${args[2]} ${args[3]}`, () => api(...args));
}

// ---------------------------------------------------------------------------------------------------------------
// The world: devnet, PostgreSQL, proxies, receiver, processes

interface World {
  devnet: Devnet;
  dataDir: string;
  database: ChaosDatabase;
  db: Db;
  proxies: FaultProxy[];
  front: ChaosFront;
  frontUrl: string;
  services: ServiceProcesses;
  receiver: WebhookReceiver;
  apiKey: string;
  merchantId: string;
  /** Asset -> settlement destination (CAIP-10). */
  destinations: Map<string, string>;
  /** Environment of `paygate` commands run against the same database and chains, without the fault proxies. */
  commandEnv: Record<string, string>;
}

/** What buyers and the checks at the end use: the balancer, the partner's merchant, the chains and the database. */
export type Shop = Pick<World, 'devnet' | 'db' | 'frontUrl' | 'apiKey' | 'merchantId' | 'destinations'>;

/** The PostgreSQL of a run: one embedded server, or a primary with a synchronous standby (`failover`). */
interface ChaosDatabase {
  url: string;
  stop(): Promise<void>;
  replicated?: ReplicatedPostgres;
}

async function startChaosDatabase(dataDir: string, fault: ChaosOptions['databaseFault']): Promise<ChaosDatabase> {
  if (fault === 'failover') {
    const replicated = await startReplicatedPostgres({ database: 'chaos' });
    return { url: replicated.url, stop: () => replicated.stop(), replicated };
  }
  const embedded: EmbeddedDatabase = await startEmbeddedPostgres(path.join(dataDir, 'database'), { database: 'chaos' });
  return embedded;
}

export interface WebhookReceiver {
  url: string;
  /** Event ids received, per endpoint path, with how often each came. */
  received: Map<string, Map<string, number>>;
  requests: number;
  refused: number;
  close(): Promise<void>;
}

export async function startReceiver(
  certificate: { key: string; cert: string },
  failureRate: number,
): Promise<WebhookReceiver> {
  const received = new Map<string, Map<string, number>>();
  const receiver = { url: '', received, requests: 0, refused: 0, close: async () => {} };
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests += 1;
      if (Math.random() < failureRate) {
        receiver.refused += 1;
        response.writeHead(500).end('not now');
        return;
      }
      let id = '(no id)';
      try {
        id = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id);
      } catch {
        id = '(unparsable body)';
      }
      const byId = received.get(request.url ?? '/') ?? new Map<string, number>();
      byId.set(id, (byId.get(id) ?? 0) + 1);
      received.set(request.url ?? '/', byId);
      response.writeHead(200).end('ok');
    });
  });
  receiver.url = await listenOnLoopback(server, 'https');
  receiver.close = () => closeServer(server);
  return receiver;
}

/**
 * The partner's merchant, through the balancer: a settlement destination of its own for each token of each network,
 * and webhook endpoints at the receiver for every event type.
 */
export async function openShop(
  frontUrl: string,
  apiKey: string,
  networks: NetworkInfo[],
  receiverUrl: string,
): Promise<{ merchantId: string; destinations: Map<string, string> }> {
  const merchant = await retryingApi(
    frontUrl,
    apiKey,
    'POST',
    '/v1/merchants',
    { merchantName: 'Chaos Shop', merchantEmail: 'chaos@shop.example' },
    { 'idempotency-key': randomUUID() },
  );
  const merchantId = merchant.merchant.id as string;
  const destinations = new Map<string, string>();
  for (const network of networks) {
    for (const token of network.tokens) {
      const destination =
        network.namespace === 'eip155'
          ? `${network.caip2}:${privateKeyToAccount(generatePrivateKey()).address}`
          : `${network.caip2}:${await solanaSignerFromKeyPair(new Uint8Array(randomBytes(32))).address()}`;
      destinations.set(token.caip19, destination);
    }
  }
  await retryingApi(
    frontUrl,
    apiKey,
    'POST',
    `/v1/merchants/${merchantId}/settlements/crypto`,
    { settlements: [...destinations].map(([asset, destination]) => ({ asset, destination })) },
    { 'idempotency-key': randomUUID() },
  );
  // An endpoint takes at most 8 event types: two endpoints share them.
  for (const [index, events] of [EVENT_TYPES.slice(0, 8), EVENT_TYPES.slice(8)].entries()) {
    if (!events.length) continue;
    await retryingApi(
      frontUrl,
      apiKey,
      'POST',
      '/v1/webhooks',
      { url: `${receiverUrl}/endpoint-${index}`, events },
      { 'idempotency-key': randomUUID() },
    );
  }
  return { merchantId, destinations };
}

async function startWorld(options: ChaosOptions): Promise<World> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-chaos-'));
  // PostgreSQL runs as its own user when this runs as root: it must pass through to its cluster folder.
  await fs.chmod(dataDir, 0o711);
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const database = await startChaosDatabase(dataDir, options.databaseFault);
  const db = connect(database.url, 4);
  await migrateToLatest(db, database.url);
  const partner = await createPartner(db, 'Chaos partner');

  const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const collector = await collectorAddresses(keys);
  await recordFunding(db, await devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));

  const networks = networksFromDevnet(devnet.manifest);
  const proxies: FaultProxy[] = [];
  const proxied = [];
  for (const network of networks) {
    const proxy = new FaultProxy(network.caip2, network.rpcUrl ?? '', options.faults);
    proxies.push(proxy);
    proxied.push({ ...network, rpcUrl: await proxy.start() });
  }
  const servicesDir = path.join(dataDir, 'services');
  await fs.mkdir(servicesDir);
  const chainsFile = path.join(dataDir, 'chains-through-faults.json');
  const directChainsFile = path.join(dataDir, 'chains.json');
  await fs.writeFile(chainsFile, JSON.stringify(proxied));
  await fs.writeFile(directChainsFile, JSON.stringify(networks));

  const certificate = await createTestCertificate();
  const caFile = path.join(dataDir, 'receiver-ca.pem');
  await fs.writeFile(caFile, certificate.cert);
  const receiver = await startReceiver(certificate, options.receiverFailureRate);

  let services: ServiceProcesses | undefined;
  const front = new ChaosFront(() => services?.live() ?? []);
  const frontUrl = await front.start();
  const shared = {
    COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
    COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PRICE_SOURCE: 'fixed',
  };
  // PostgreSQL comes back on the same port and socket after a stop, so the URL holds for every start; with a
  // standby, the URL names both servers and the service finds the writable one.
  services = new ServiceProcesses(options.processes, database.url, servicesDir, {
    ...shared,
    CHAINS: chainsFile,
    BASE_URL: frontUrl,
    SETTLEMENT_INTERVAL_MS: String(options.settlementIntervalMs),
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    NODE_EXTRA_CA_CERTS: caFile,
  });
  await services.startAll();

  const { merchantId, destinations } = await openShop(frontUrl, partner.apiKey, networks, receiver.url);
  const world: World = {
    devnet,
    dataDir,
    database,
    db,
    proxies,
    front,
    frontUrl,
    services,
    receiver,
    apiKey: partner.apiKey,
    merchantId,
    destinations,
    commandEnv: { ...shared, DATABASE_URL: database.url, CHAINS: directChainsFile, DATA_DIR: servicesDir },
  };
  return world;
}

// ---------------------------------------------------------------------------------------------------------------
// Buyers

const METHODS: Method[] = ['eip3009', 'permit2', 'native', 'solana', 'deposit', 'solanaPay', 'eip3009'];

function tokenOf(chain: DevnetEvmChain, symbol: string) {
  const token = chain.tokens.find((candidate) => candidate.symbol === symbol);
  if (!token) throw new Error(`${chain.caip2} has no ${symbol}`);
  return token;
}

export async function makeBuyers(devnet: Devnet, count: number): Promise<Buyer[]> {
  const { manifest } = devnet;
  const rpcUrls = Object.fromEntries(manifest.evm.map((chain) => [chain.caip2, chain.rpcUrl]));
  const solanaUsdc = manifest.solana.tokens.find((token) => token.symbol === 'USDC');
  if (!solanaUsdc) throw new Error('the devnet Solana has no USDC');
  const grants = new Map<string, EvmGrant[]>();
  const solanaAddresses: string[] = [];
  const buyers: Buyer[] = [];
  for (let index = 0; index < count; index += 1) {
    const method = METHODS[index % METHODS.length] as Method;
    // The second EIP-3009 slot of each round pays on the second chain.
    const chain = manifest.evm[index % METHODS.length === METHODS.length - 1 ? 1 : 0] as DevnetEvmChain;
    if (method === 'solana' || method === 'solanaPay') {
      const seed = new Uint8Array(randomBytes(32));
      const signer = solanaSignerFromKeyPair(seed);
      const address = await signer.address();
      solanaAddresses.push(address);
      buyers.push({
        index,
        method,
        chain: undefined,
        account: `${manifest.solana.caip2}:${address}`,
        asset: solanaUsdc.caip19,
        signers: { solana: signer },
        solanaSecretKey: getBase58Decoder().decode(new Uint8Array([...seed, ...getBase58Encoder().encode(address)])),
        startBalance: 0n,
      });
      continue;
    }
    const evmKey = generatePrivateKey();
    const account = privateKeyToAccount(evmKey);
    const symbol = method === 'permit2' ? 'USDT' : 'USDC';
    const grant: EvmGrant = {
      account,
      tokens: method === 'native' ? {} : { [symbol]: 10n },
      approvePermit2: method === 'permit2',
    };
    grants.set(chain.caip2, [...(grants.get(chain.caip2) ?? []), grant]);
    buyers.push({
      index,
      method,
      chain,
      account: `${chain.caip2}:${account.address}`,
      asset: method === 'native' ? chain.nativeToken.caip19 : tokenOf(chain, symbol).caip19,
      signers: { eip155: evmSignerFromAccount(account, { rpcUrls }) },
      evmKey,
      startBalance: 0n,
    });
  }
  await Promise.all([
    ...manifest.evm.map((chain) =>
      fundEvmAccounts(chain, manifest.faucet.evmPrivateKey, grants.get(chain.caip2) ?? [], parseEther('10')),
    ),
    devnet.fund({ solana: solanaAddresses }),
  ]);
  const balances = await balancesOf(devnet, buyers);
  for (const buyer of buyers) buyer.startBalance = balances.get(buyer.account) ?? 0n;
  return buyers;
}

/** Each buyer's balance of the asset it pays in (wei for native coin), read from the nodes directly. */
async function balancesOf(devnet: Devnet, buyers: Buyer[]): Promise<Map<string, bigint>> {
  const balances = new Map<string, bigint>();
  const { manifest } = devnet;
  const solanaBuyers = buyers.filter((buyer) => !buyer.chain);
  const solanaUsdc = manifest.solana.tokens.find((token) => token.symbol === 'USDC')?.address ?? '';
  const owners = solanaBuyers.map((buyer) => buyer.account.slice(buyer.account.lastIndexOf(':') + 1));
  const solana = await readSolanaBalances(solanaRpc(manifest.solana.rpcUrl), owners, [solanaUsdc]);
  for (const [index, buyer] of solanaBuyers.entries())
    balances.set(buyer.account, solana[owners[index] as string]?.tokens[solanaUsdc] ?? 0n);
  await pMap(
    buyers.filter((buyer) => buyer.chain),
    async (buyer) => {
      const chain = buyer.chain as DevnetEvmChain;
      const client = createPublicClient({ transport: http(chain.rpcUrl) });
      const owner = buyer.account.slice(buyer.account.lastIndexOf(':') + 1) as Address;
      const token = chain.tokens.find((candidate) => candidate.caip19 === buyer.asset);
      balances.set(
        buyer.account,
        token
          ? await client.readContract({
              address: token.address as Address,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [owner],
            })
          : await client.getBalance({ address: owner }),
      );
    },
    { concurrency: 16 },
  );
  return balances;
}

const HTML_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (value: string) =>
  value.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => HTML_ENTITIES[entity] ?? entity);

/**
 * In the checkout page's panel for `asset`, the attribute `data-<name>`'s value, or the value of the input or the
 * address of the link it marks.
 */
function panelAttribute(page: string, asset: string, name: string): string | undefined {
  for (const panel of page.split('data-pay-panel').slice(1)) {
    const panelAsset = /data-asset="([^"]*)"/.exec(panel)?.[1];
    if (!panelAsset || unescapeHtml(panelAsset).toLowerCase() !== asset.toLowerCase()) continue;
    const value =
      new RegExp(`data-${name}="([^"]+)"`).exec(panel)?.[1] ??
      new RegExp(`(?:value|href)="([^"]*)"[^>]*data-${name}\\b`).exec(panel)?.[1];
    return value === undefined ? undefined : unescapeHtml(value);
  }
  return undefined;
}

async function checkoutPage(world: Shop, paymentId: string): Promise<string> {
  return retrying('checkout page', async () => {
    const response = await fetch(`${world.frontUrl}/${paymentId}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`checkout page: ${response.status}`);
    return response.text();
  });
}

/** A plain ERC-20 transfer to the deposit address the checkout page shows. */
async function payDeposit(world: Shop, buyer: Buyer, outcome: Outcome): Promise<void> {
  const chain = buyer.chain as DevnetEvmChain;
  const uri = panelAttribute(await checkoutPage(world, outcome.paymentId as string), buyer.asset, 'deposit-uri');
  const match =
    uri && /^ethereum:(0x[0-9a-fA-F]{40})@\d+\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(uri);
  if (!match) throw new Error(`no deposit request for ${buyer.asset} on the checkout page (${uri})`);
  outcome.asked = BigInt(match[3] as string);
  const wallet = createWalletClient({
    account: privateKeyToAccount(buyer.evmKey as Hex),
    chain: {
      id: chain.chainId,
      name: chain.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [chain.rpcUrl] } },
    },
    transport: http(chain.rpcUrl),
  });
  const hash = await wallet.writeContract({
    address: match[1] as Address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [match[2] as Address, outcome.asked],
  });
  outcome.ownTransactions.push(hash);
  outcome.paid = true;
}

/** A Solana Pay transfer request from the checkout page, paid as a plain wallet does. */
async function paySolanaPay(world: Shop, buyer: Buyer, outcome: Outcome): Promise<void> {
  const uri = panelAttribute(await checkoutPage(world, outcome.paymentId as string), buyer.asset, 'solana-pay-uri');
  const request = uri ? parseTransferRequestUri(uri) : null;
  if (!request?.amount) throw new Error(`no Solana Pay request for ${buyer.asset} on the checkout page (${uri})`);
  outcome.asked = BigInt(Math.round(Number(request.amount) * 1e6));
  await payAsWallet(world.devnet.manifest.solana.rpcUrl, buyer.solanaSecretKey as string, [{ request }]);
  outcome.paid = true;
}

/** The gateway flow of a wallet: options, the option's actions, confirm (repeated with the same results if lost). */
async function payThroughGateway(client: GatewayClient, buyer: Buyer, outcome: Outcome): Promise<void> {
  const paymentId = outcome.paymentId as string;
  const { options } = await retrying('options', () => client.getOptions(paymentId, { accounts: [buyer.account] }));
  const option = options.find(
    (candidate: PaymentOption) =>
      candidate.amount.unit.toLowerCase() === `caip19/${buyer.asset}`.toLowerCase() &&
      candidate.account.toLowerCase() === buyer.account.toLowerCase(),
  );
  if (!option) throw new Error(`no option in ${buyer.asset}`);
  outcome.asked = BigInt(option.amount.value);
  // A native transfer is sent by the wallet itself: doing the actions twice would pay twice, so it is done once.
  const results: WalletRpcResult[] =
    buyer.method === 'native'
      ? await executeOptionActions({ client, paymentId, option, signers: buyer.signers })
      : await retrying('actions', () => executeOptionActions({ client, paymentId, option, signers: buyer.signers }));
  if (buyer.method === 'native') {
    outcome.paid = true;
    for (const result of results)
      for (const value of result.data)
        if (/^0x[0-9a-f]{64}$/i.test(String(value))) outcome.ownTransactions.push(value as Hex);
  }
  const refusal = await retrying('confirm', async () => {
    try {
      await client.confirm(paymentId, { optionId: option.id, results }, { maxPollMs: 0 });
      return undefined;
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status !== undefined && status >= 400 && status < 500 && status !== 429) return messageOf(error);
      throw error;
    }
  });
  // Refused for good: a signature moved nothing (a native transfer already left the wallet and is followed).
  if (refusal && buyer.method !== 'native') throw new Error(`confirm refused: ${refusal}`);
  outcome.paid = true;
}

async function followToFinal(client: GatewayClient, outcome: Outcome): Promise<void> {
  const deadline = Date.now() + FOLLOW_LIMIT_MS;
  while (Date.now() < deadline) {
    try {
      const status = await client.getStatus(outcome.paymentId as string, { maxPollMs: 20_000 });
      outcome.status = status.status;
      if (status.isFinal) return;
    } catch {
      await sleep(500);
    }
  }
}

/** How long a refund after settlement waits for its payment's batch, and for the merchant's balance to cover it. */
const REFUND_AFTER_SETTLEMENT_WAIT_MS = 60_000;

/**
 * Half of a succeeded payment sent back on chain. Every other buyer's refund waits until its payment is settled
 * first: it is then paid from what the merchant is owed of later payments, or refused (409 `insufficient_balance`)
 * while those hold too little, and asked again until they cover it or the wait ends.
 */
async function refundHalf(world: Shop, buyer: Buyer, outcome: Outcome): Promise<void> {
  const readPayment = () =>
    retryingApi(world.frontUrl, world.apiKey, 'GET', `/v1/payments/${outcome.paymentId}`, undefined, {
      'merchant-id': world.merchantId,
    });
  let payment = await readPayment();
  const afterSettlement = buyer.index % 2 === 0;
  const deadline = Date.now() + REFUND_AFTER_SETTLEMENT_WAIT_MS;
  while (afterSettlement && payment.settlement?.settled !== true && Date.now() < deadline) {
    await sleep(1_000);
    payment = await readPayment();
  }
  outcome.refundAfterSettlement = afterSettlement && payment.settlement?.settled === true;
  const half = Math.max(1, Math.floor(Number(payment.amount?.value ?? 2) / 2));
  for (;;) {
    try {
      await retryingApi(
        world.frontUrl,
        world.apiKey,
        'POST',
        '/v1/refunds',
        { paymentId: outcome.paymentId, amount: { unit: 'iso4217/USD', value: String(half) }, send: true },
        { 'merchant-id': world.merchantId, 'idempotency-key': `chaos-refund-${buyer.index}-${Date.now()}` },
      );
      outcome.refundRequested = true;
      return;
    } catch (error) {
      if (!(error instanceof Unretryable) || !error.message.includes('insufficient_balance')) throw error;
      if (Date.now() > deadline) {
        outcome.refundRefusedForBalance = true;
        return;
      }
      await sleep(2_000);
    }
  }
}

export async function runBuyer(
  world: Shop,
  buyer: Buyer,
  options: Pick<ChaosOptions, 'refundShare'>,
): Promise<Outcome> {
  const outcome: Outcome = { buyer, paid: false, ownTransactions: [], refundRequested: false };
  const client = new GatewayClient({
    baseUrl: world.frontUrl,
    auth: { apiKey: world.apiKey },
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
    retry: { retries: 3 },
  });
  try {
    const created = await retryingApi(
      world.frontUrl,
      world.apiKey,
      'POST',
      '/v1/payments',
      {
        amount: { unit: 'iso4217/USD', value: String(Math.round(between(AMOUNT_RANGE))) },
        referenceId: `chaos-${buyer.index}`,
      },
      { 'merchant-id': world.merchantId, 'idempotency-key': `chaos-buyer-${buyer.index}` },
    );
    outcome.paymentId = created.paymentId as string;
    if (buyer.method === 'deposit') await payDeposit(world, buyer, outcome);
    else if (buyer.method === 'solanaPay') await paySolanaPay(world, buyer, outcome);
    else await payThroughGateway(client, buyer, outcome);
    await followToFinal(client, outcome);
    if (outcome.status === 'succeeded' && Math.random() < options.refundShare) await refundHalf(world, buyer, outcome);
  } catch (error) {
    outcome.error = messageOf(error);
  }
  // A buyer that gave up before paying declines the payment, as the checkout's cancel does.
  if (outcome.paymentId && !outcome.paid) {
    await retrying('cancel', async () => {
      try {
        await client.cancel(outcome.paymentId as string);
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status === undefined || status >= 500 || status === 429) throw error;
      }
    }).catch(() => {});
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------------------------
// Faults

interface FaultLog {
  databaseOutages: number;
  outageAnswers: Record<string, number>;
  /** With a standby: when the primary was killed and when its promotion was asked, and how long that took. */
  failover?: { killedAt: number; promotedAt: number; promoteMs: number };
}

/** Requests straight to each process while PostgreSQL is down: each answer is counted by status. */
async function probeWhileDown(world: World, paymentIds: string[], untilMs: number, log: FaultLog): Promise<void> {
  const paymentId = paymentIds[0] ?? 'pay_none';
  const probes: { method: string; path: string; body?: object; headers?: Record<string, string> }[] = [
    { method: 'GET', path: `/v1/payments/${paymentId}`, headers: { 'merchant-id': world.merchantId } },
    { method: 'GET', path: `/v1/gateway/payment/${paymentId}/status` },
    {
      method: 'POST',
      path: '/v1/payments',
      body: { amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'chaos-probe' },
      headers: { 'merchant-id': world.merchantId, 'idempotency-key': randomUUID() },
    },
  ];
  while (Date.now() < untilMs) {
    await Promise.all(
      world.services.live().flatMap((base) =>
        probes.map(async (probe) => {
          let key: string;
          try {
            const response = await fetch(`${base}${probe.path}`, {
              method: probe.method,
              headers: {
                'api-key': world.apiKey,
                ...(probe.body ? { 'content-type': 'application/json' } : {}),
                ...probe.headers,
              },
              ...(probe.body ? { body: JSON.stringify(probe.body) } : {}),
              signal: AbortSignal.timeout(15_000),
            });
            const body = (await response.json().catch(() => ({}))) as { code?: string };
            key =
              response.status === 503
                ? `503 ${body.code}${response.headers.get('retry-after') ? ' with Retry-After' : ' WITHOUT Retry-After'}`
                : String(response.status);
          } catch (error) {
            key = `no answer (${messageOf(error)})`;
          }
          log.outageAnswers[key] = (log.outageAnswers[key] ?? 0) + 1;
        }),
      ),
    );
    await sleep(500);
  }
}

/** Kills a process now and then, and stops PostgreSQL once, until `done` resolves. */
async function injectFaults(
  world: World,
  options: ChaosOptions,
  started: () => number,
  paymentIds: string[],
  done: Promise<unknown>,
): Promise<FaultLog> {
  const log: FaultLog = { databaseOutages: 0, outageAnswers: {} };
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const outage = (async () => {
    while (!finished && started() < options.payments * options.databaseOutageAt) await sleep(200);
    if (finished || options.databaseOutageMs <= 0) return;
    const { replicated } = world.database;
    if (replicated) {
      options.log(`killing the PostgreSQL primary; its standby is promoted ${options.databaseOutageMs / 1000} s later`);
      await replicated.killPrimary();
      const killedAt = Date.now();
      log.databaseOutages += 1;
      await probeWhileDown(world, paymentIds, killedAt + options.databaseOutageMs, log);
      const promotedAt = Date.now();
      await replicated.promoteStandby();
      log.failover = { killedAt, promotedAt, promoteMs: Date.now() - promotedAt };
      options.log(`standby promoted in ${log.failover.promoteMs} ms`);
      return;
    }
    options.log(`stopping PostgreSQL for ${options.databaseOutageMs / 1000} s`);
    await world.database.stop();
    log.databaseOutages += 1;
    await probeWhileDown(world, paymentIds, Date.now() + options.databaseOutageMs, log);
    world.database = await startEmbeddedPostgres(path.join(world.dataDir, 'database'), { database: 'chaos' });
    options.log('PostgreSQL started again');
  })();
  const kills = (async () => {
    const killEveryMs = options.killEveryMs;
    while (!finished && killEveryMs) {
      await Promise.race([sleep(between(killEveryMs)), done]);
      if (finished) return;
      await world.services.killOne(between(options.restartAfterMs));
    }
  })();
  await Promise.all([outage, kills]);
  return log;
}

// ---------------------------------------------------------------------------------------------------------------
// The end: drain and checks

export const FINAL = ['succeeded', 'failed', 'expired', 'cancelled'];

interface Pending {
  open: number;
  refunds: number;
  batches: number;
  unsettled: number;
  deliveries: number;
  /** Deposits of listed tokens not yet swept to the collector and entered in the ledger. */
  unswept: number;
}

async function pending(db: Db, merchantId: string): Promise<Pending> {
  const { rows } = await sql<{ [key in keyof Pending]: string }>`
    SELECT
      (SELECT count(*) FROM payments WHERE merchant_id = ${merchantId} AND status <> ALL(${FINAL})) AS open,
      (SELECT count(*) FROM refunds WHERE merchant_id = ${merchantId} AND status = 'pending') AS refunds,
      (SELECT count(*) FROM settlement_batches WHERE merchant_id = ${merchantId} AND status IN ('claimed', 'sent')) AS batches,
      (SELECT count(*) FROM payments p WHERE p.merchant_id = ${merchantId} AND p.status = 'succeeded'
        AND NOT EXISTS (SELECT 1 FROM settlement_batch_payments sp JOIN settlement_batches b ON b.id = sp.batch_id
                        WHERE sp.payment_id = p.id AND b.status = 'confirmed')) AS unsettled,
      (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS deliveries,
      (SELECT count(*) FROM evm_deposits WHERE swept_by IS NULL AND asset IS NOT NULL) AS unswept`.execute(db);
  const row = rows[0] as { [key in keyof Pending]: string };
  return {
    open: Number(row.open),
    refunds: Number(row.refunds),
    batches: Number(row.batches),
    unsettled: Number(row.unsettled),
    deliveries: Number(row.deliveries),
    unswept: Number(row.unswept),
  };
}

export const isDrained = (state: Pending) => Object.values(state).every((count) => count === 0);

export async function drain(
  world: Shop,
  options: Pick<ChaosOptions, 'drainLimitMs'>,
): Promise<{ ms: number; left: Pending }> {
  const started = Date.now();
  let left = await pending(world.db, world.merchantId).catch(() => undefined);
  while (!left || !isDrained(left)) {
    if (Date.now() - started > options.drainLimitMs) break;
    await sleep(2_000);
    left = await pending(world.db, world.merchantId).catch(() => left);
  }
  return { ms: Date.now() - started, left: left ?? (await pending(world.db, world.merchantId)) };
}

/** How long writes and payments stopped after the primary died, from the balancer's answers and the events. */
async function failoverTimes(
  world: World,
  { killedAt, promotedAt, promoteMs }: NonNullable<FaultLog['failover']>,
): Promise<FailoverTimes> {
  const firstWrite = world.front.writesSucceededSentAt.filter((sentAt) => sentAt > killedAt).sort((a, b) => a - b)[0];
  // An event is written in the transaction of its payment's change, stamped with that transaction's start.
  const firstSucceeded = await world.db
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.min('created_at').as('at'))
    .where('type', '=', 'payment.succeeded')
    .where('created_at', '>', new Date(killedAt))
    .executeTakeFirst();
  const succeededAt = firstSucceeded?.at ? new Date(firstSucceeded.at).getTime() : undefined;
  return {
    untilPromotionMs: promotedAt - killedAt,
    promoteMs,
    firstWriteAfterDeathMs: firstWrite === undefined ? undefined : firstWrite - killedAt,
    firstWriteAfterPromotionMs: firstWrite === undefined ? undefined : firstWrite - promotedAt,
    firstSucceededAfterDeathMs: succeededAt === undefined ? undefined : succeededAt - killedAt,
    firstSucceededAfterPromotionMs: succeededAt === undefined ? undefined : succeededAt - promotedAt,
  };
}

async function gasPaid(chain: DevnetEvmChain, hashes: Hex[]): Promise<bigint> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  let total = 0n;
  for (const hash of hashes) {
    const receipt = await client.getTransactionReceipt({ hash });
    total += receipt.gasUsed * receipt.effectiveGasPrice;
  }
  return total;
}

/**
 * A buyer whose payment succeeded was charged once what it was asked, less what was refunded to it; any other buyer
 * was charged nothing (a signature the service could not use in time moves no money).
 */
export async function checkBuyers(
  world: Shop,
  outcomes: Outcome[],
  report: Pick<ChaosReport, 'lost' | 'chargedWrongly'>,
): Promise<void> {
  const ends = await balancesOf(
    world.devnet,
    outcomes.map((outcome) => outcome.buyer),
  );
  const statuses = new Map(
    (
      await world.db
        .selectFrom('payments')
        .select(['id', 'status'])
        .where('merchant_id', '=', world.merchantId)
        .execute()
    ).map((row) => [row.id, row.status as string]),
  );
  const refunded = new Map<string, bigint>();
  for (const refund of await world.db
    .selectFrom('refunds')
    .select(['payment_id', 'token_value'])
    .where('merchant_id', '=', world.merchantId)
    .where('status', '=', 'succeeded')
    .where('method', '=', 'onchain')
    .execute())
    refunded.set(refund.payment_id, (refunded.get(refund.payment_id) ?? 0n) + BigInt(refund.token_value ?? 0));
  for (const outcome of outcomes) {
    const { buyer } = outcome;
    const status = outcome.paymentId ? statuses.get(outcome.paymentId) : undefined;
    const gas = buyer.method === 'native' && buyer.chain ? await gasPaid(buyer.chain, outcome.ownTransactions) : 0n;
    const spent = buyer.startBalance - (ends.get(buyer.account) ?? 0n) - gas;
    const back = outcome.paymentId ? (refunded.get(outcome.paymentId) ?? 0n) : 0n;
    const label = `buyer ${buyer.index} (${METHOD_NAMES[buyer.method]}, ${outcome.paymentId ?? 'no payment'}, ${status ?? 'no status'})`;
    if (status === 'succeeded') {
      if (spent + back !== outcome.asked)
        report.chargedWrongly.push(`${label}: asked ${outcome.asked}, charged ${spent + back}, refunded ${back}`);
    } else if (spent !== 0n) {
      report.lost.push(`${label}: charged ${spent}${outcome.error ? `; ${outcome.error}` : ''}`);
    }
  }
}

export async function checkWebhooks(
  world: Shop & Pick<World, 'receiver'>,
  report: Pick<ChaosReport, 'webhooks'>,
): Promise<void> {
  const deliveries = await world.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.event_id', 'd.status', 'e.url'])
    .where(
      'e.partner_id',
      '=',
      (
        await world.db
          .selectFrom('merchants')
          .select('partner_id')
          .where('id', '=', world.merchantId)
          .executeTakeFirstOrThrow()
      ).partner_id,
    )
    .execute();
  const { rows: undelivered } = await sql<{ event_id: string; endpoint: string }>`
    SELECT ev.id AS event_id, ep.url AS endpoint FROM webhook_events ev
    JOIN webhook_endpoints ep ON ep.partner_id = ev.partner_id AND ev.type = ANY(ep.events)
    WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.endpoint_id = ep.id)`.execute(
    world.db,
  );
  const events = new Set(deliveries.map((delivery) => delivery.event_id));
  report.webhooks.events = events.size;
  report.webhooks.deliveries = deliveries.length;
  for (const row of undelivered)
    report.webhooks.missing.push(`event ${row.event_id} has no delivery to ${row.endpoint}`);
  let received = 0;
  let duplicates = 0;
  for (const byId of world.receiver.received.values())
    for (const count of byId.values()) {
      received += count;
      duplicates += count - 1;
    }
  report.webhooks.received = received;
  report.webhooks.duplicates = duplicates;
  for (const delivery of deliveries) {
    const endpointPath = new URL(delivery.url).pathname;
    if (delivery.status !== 'succeeded' || !world.receiver.received.get(endpointPath)?.get(delivery.event_id))
      report.webhooks.missing.push(`event ${delivery.event_id} to ${endpointPath}: ${delivery.status}, not received`);
  }
}

/** Each succeeded payment in one confirmed batch, and each destination holding exactly what its batches sent. */
export async function checkSettlements(world: Shop, report: Pick<ChaosReport, 'settlements'>): Promise<void> {
  const batches = await world.db
    .selectFrom('settlement_batches')
    .select(['id', 'asset', 'destination', 'amount', 'status'])
    .where('merchant_id', '=', world.merchantId)
    .execute();
  report.settlements.batches = batches.length;
  report.settlements.confirmed = batches.filter((batch) => batch.status === 'confirmed').length;
  const { rows: twice } = await sql<{ payment_id: string; batches: string }>`
    SELECT sp.payment_id, count(*) AS batches FROM settlement_batch_payments sp
    JOIN settlement_batches b ON b.id = sp.batch_id
    WHERE b.merchant_id = ${world.merchantId} AND b.status = 'confirmed'
    GROUP BY sp.payment_id HAVING count(*) > 1`.execute(world.db);
  for (const row of twice) report.settlements.problems.push(`${row.payment_id} settled in ${row.batches} batches`);
  const sent = new Map<string, bigint>();
  for (const batch of batches)
    if (batch.status === 'confirmed') sent.set(batch.asset, (sent.get(batch.asset) ?? 0n) + BigInt(batch.amount));
  const { manifest } = world.devnet;
  for (const [asset, amount] of sent) {
    const destination = world.destinations.get(asset) as string;
    const owner = destination.slice(destination.lastIndexOf(':') + 1);
    let held: bigint;
    if (asset.startsWith('solana:')) {
      const mint = asset.slice(asset.lastIndexOf(':') + 1);
      const balances = await readSolanaBalances(solanaRpc(manifest.solana.rpcUrl), [owner], [mint]);
      held = balances[owner]?.tokens[mint] ?? 0n;
    } else {
      const chain = manifest.evm.find((candidate) => asset.startsWith(`${candidate.caip2}/`)) as DevnetEvmChain;
      const client = createPublicClient({ transport: http(chain.rpcUrl) });
      const token = chain.tokens.find((candidate) => candidate.caip19 === asset);
      held = token
        ? await client.readContract({
            address: token.address as Address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [owner as Address],
          })
        : await client.getBalance({ address: owner as Address });
    }
    if (held !== amount)
      report.settlements.problems.push(`${asset}: confirmed batches sent ${amount}, the destination holds ${held}`);
  }
}

async function runAudit(world: World, report: ChaosReport): Promise<void> {
  // Vite (the test runner) sets BASE_URL for itself: not a setting of ours.
  const { BASE_URL: _runnerBase, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(ROOT, 'packages/server/bin/paygate.js'), 'audit'], {
    cwd: ROOT,
    env: { ...inherited, ...world.commandEnv, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  report.audit.exitCode = await new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  if (report.audit.exitCode !== 0)
    report.audit.differences = output
      .split('\n')
      .filter((line) => line.trim())
      .slice(0, 40);
}

// ---------------------------------------------------------------------------------------------------------------

function tally<T>(values: T[], key: (value: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[key(value)] = (counts[key(value)] ?? 0) + 1;
  return counts;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const runStarted = Date.now();
  const { log } = options;
  const world = await startWorld(options);
  log(`${options.processes} paygate processes behind a load balancer at ${world.frontUrl}; data in ${world.dataDir}`);
  const report: ChaosReport = {
    payments: options.payments,
    byStatus: {},
    byMethod: {},
    paid: 0,
    gaveUp: {},
    lost: [],
    chargedWrongly: [],
    notFinal: [],
    kills: 0,
    crashes: [],
    refusedStarts: 0,
    errorLines: 0,
    errorExamples: [],
    databaseOutages: 0,
    outageAnswers: {},
    rpcFaults: { requests: 0, dropped: 0, delayed: 0, errored: 0, stale: 0 },
    http: {},
    serverErrors: [],
    refusals: [],
    unavailableWithoutRetryAfter: 0,
    lostToProcessDeath: 0,
    webhooks: { events: 0, deliveries: 0, received: 0, duplicates: 0, missing: [] },
    settlements: { batches: 0, confirmed: 0, problems: [] },
    refunds: { requested: 0, succeeded: 0, afterSettlement: 0, refusedForBalance: 0, problems: [] },
    audit: { exitCode: null, differences: [] },
    drainMs: 0,
    totalMs: 0,
    problems: [],
  };
  try {
    const buyers = await makeBuyers(world.devnet, options.payments);
    log(
      `funded ${buyers.length} fresh buyers: ${JSON.stringify(tally(buyers, (buyer) => METHOD_NAMES[buyer.method]))}`,
    );
    let startedBuyers = 0;
    const paymentIds: string[] = [];
    const buyersDone = pMap(
      buyers,
      async (buyer) => {
        startedBuyers += 1;
        const outcome = await runBuyer(world, buyer, options);
        if (outcome.paymentId) paymentIds.push(outcome.paymentId);
        return outcome;
      },
      { concurrency: options.buyersAtOnce },
    );
    const faults = await injectFaults(world, options, () => startedBuyers, paymentIds, buyersDone);
    const outcomes = await buyersDone;
    log(`buyers done in ${((Date.now() - runStarted) / 1000).toFixed(0)} s; waiting for every process, then draining`);
    await world.services.allUp(120_000);
    const drained = await drain(world, options);
    report.drainMs = drained.ms;
    if (!isDrained(drained.left))
      report.notFinal.push(`still pending after the drain limit: ${JSON.stringify(drained.left)}`);
    for (const proxy of world.proxies) proxy.rates = NO_FAULTS;

    report.databaseOutages = faults.databaseOutages;
    report.outageAnswers = faults.outageAnswers;
    if (faults.failover) report.failover = await failoverTimes(world, faults.failover);
    report.paid = outcomes.filter((outcome) => outcome.paid).length;
    report.gaveUp = tally(
      outcomes.filter((outcome) => !outcome.paid),
      (outcome) => outcome.error ?? '(no error)',
    );
    report.byMethod = tally(outcomes, (outcome) => METHOD_NAMES[outcome.buyer.method]);
    const rows = await world.db
      .selectFrom('payments')
      .select(['id', 'status'])
      .where('merchant_id', '=', world.merchantId)
      .execute();
    report.byStatus = tally(rows, (row) => row.status as string);
    for (const row of rows)
      if (!FINAL.includes(row.status as string)) report.notFinal.push(`${row.id} is ${row.status}`);
    await checkBuyers(world, outcomes, report);
    await checkWebhooks(world, report);
    await checkSettlements(world, report);
    const refunds = await world.db
      .selectFrom('refunds')
      .select(['id', 'status', 'failure_reason'])
      .where('merchant_id', '=', world.merchantId)
      .execute();
    report.refunds.requested = outcomes.filter((outcome) => outcome.refundRequested).length;
    report.refunds.afterSettlement = outcomes.filter(
      (outcome) => outcome.refundRequested && outcome.refundAfterSettlement,
    ).length;
    report.refunds.refusedForBalance = outcomes.filter((outcome) => outcome.refundRefusedForBalance).length;
    report.refunds.succeeded = refunds.filter((refund) => refund.status === 'succeeded').length;
    for (const refund of refunds)
      if (refund.status !== 'succeeded')
        report.refunds.problems.push(`${refund.id}: ${refund.status} ${refund.failure_reason ?? ''}`);
    if (refunds.length !== report.refunds.requested)
      report.refunds.problems.push(`${report.refunds.requested} refunds asked for, ${refunds.length} recorded`);
    await runAudit(world, report);
  } finally {
    report.kills = world.services.kills;
    report.crashes = world.services.crashes;
    report.refusedStarts = world.services.refusedStarts;
    report.errorLines = world.services.errorLines;
    report.errorExamples = world.services.errorExamples;
    for (const proxy of world.proxies)
      for (const key of Object.keys(report.rpcFaults) as (keyof FaultCounts)[])
        report.rpcFaults[key] += proxy.counts[key];
    report.http = Object.fromEntries(
      [...world.front.statuses].sort((a, b) => a[0] - b[0]).map(([status, count]) => [String(status), count]),
    );
    report.serverErrors = world.front.serverErrors.map((error) => `${error.status} ${error.request}: ${error.body}`);
    report.refusals = world.front.refusals.map((refusal) => `${refusal.status} ${refusal.request}: ${refusal.body}`);
    report.unavailableWithoutRetryAfter = world.front.unavailableWithoutRetryAfter;
    report.lostToProcessDeath = world.front.lostToProcessDeath;
    await world.services.stopAll();
    await world.front.stop();
    await world.receiver.close();
    for (const proxy of world.proxies) await proxy.stop();
    await world.db.destroy();
    await world.database.stop();
    await world.devnet.stop();
    report.totalMs = Date.now() - runStarted;
    report.problems = problemsOf(report, world.front.serverErrorCount);
    // What went wrong is read in the processes' logs (process-<n>.log), kept with the run's data.
    if (report.problems.length) log(`the run's data and service logs are kept in ${world.dataDir}`);
    else await fs.rm(world.dataDir, { recursive: true, force: true });
  }
  return report;
}

function problemsOf(report: ChaosReport, serverErrorCount: number): string[] {
  const problems: string[] = [];
  const listed = (label: string, items: string[]) => {
    if (items.length) problems.push(`${label} (${items.length}): ${items.slice(0, 10).join('; ')}`);
  };
  listed('lost', report.lost);
  listed('charged other than asked (twice, say)', report.chargedWrongly);
  listed('not final', report.notFinal);
  listed('processes that exited by themselves', report.crashes);
  listed('webhooks not delivered', report.webhooks.missing);
  listed('settlements', report.settlements.problems);
  listed('refunds', report.refunds.problems);
  if (serverErrorCount) listed(`answers of 500 (${serverErrorCount})`, report.serverErrors);
  if (report.unavailableWithoutRetryAfter)
    problems.push(`${report.unavailableWithoutRetryAfter} answers of 503 without Retry-After`);
  const outageFailures = Object.keys(report.outageAnswers).filter(
    (key) => /^5\d\d$/.test(key) || key.includes('WITHOUT'),
  );
  listed(
    'answers while PostgreSQL was down',
    outageFailures.map((key) => `${key} x ${report.outageAnswers[key]}`),
  );
  if (report.audit.exitCode !== 0) listed(`audit exited ${report.audit.exitCode}`, report.audit.differences);
  if (report.failover && report.failover.firstSucceededAfterDeathMs === undefined)
    problems.push('no payment succeeded after the primary died');
  return problems;
}

export function printChaosReport(report: ChaosReport, write: (line: string) => void): void {
  const seconds = (ms: number) => (ms / 1000).toFixed(0);
  write(
    `payments: ${report.payments} (${Object.entries(report.byMethod)
      .map(([key, count]) => `${count} ${key}`)
      .join(', ')})`,
  );
  write(
    `outcomes: ${Object.entries(report.byStatus)
      .map(([key, count]) => `${count} ${key}`)
      .join(', ')}; buyers that paid ${report.paid}`,
  );
  if (Object.keys(report.gaveUp).length) write(`  buyers that gave up: ${JSON.stringify(report.gaveUp)}`);
  write(
    `faults: ${report.kills} processes killed (SIGKILL), ${report.refusedStarts} restarts refused while PostgreSQL was down; ` +
      `PostgreSQL ${report.failover ? 'primary killed and standby promoted' : 'stopped'} ${report.databaseOutages} time(s)`,
  );
  write(
    `  chain node calls through the fault proxies: ${report.rpcFaults.requests} HTTP requests, ${report.rpcFaults.errored} errors, ` +
      `${report.rpcFaults.dropped} dropped, ${report.rpcFaults.delayed} delayed, ${report.rpcFaults.stale} stale heads`,
  );
  write(`  answers while PostgreSQL was down: ${JSON.stringify(report.outageAnswers)}`);
  const { failover } = report;
  if (failover) {
    const shown = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
    write(
      `  failover: standby promoted ${shown(failover.untilPromotionMs)} after the primary's death (pg_ctl promote ` +
        `${shown(failover.promoteMs)}); first write answered ${shown(failover.firstWriteAfterDeathMs)} after the ` +
        `death (${shown(failover.firstWriteAfterPromotionMs)} after the promotion); first payment succeeded ` +
        `${shown(failover.firstSucceededAfterDeathMs)} after the death (${shown(failover.firstSucceededAfterPromotionMs)} after the promotion)`,
    );
  }
  write(
    `service answers through the balancer: ${JSON.stringify(report.http)}; ${report.lostToProcessDeath} requests lost with a killed process (502 from the balancer)`,
  );
  write(
    `  lines logged at error level: ${report.errorLines}${report.errorExamples.length ? `, e.g. ${report.errorExamples[0]}` : ''}`,
  );
  write(
    `webhooks: ${report.webhooks.events} events, ${report.webhooks.deliveries} deliveries, ${report.webhooks.received} received (${report.webhooks.duplicates} more than once)`,
  );
  write(`settlements: ${report.settlements.batches} batches, ${report.settlements.confirmed} confirmed`);
  write(
    `refunds: ${report.refunds.requested} made (${report.refunds.afterSettlement} after their payment was settled), ` +
      `${report.refunds.succeeded} succeeded on chain; ${report.refunds.refusedForBalance} refused to the end for the merchant's balance`,
  );
  write(`audit: exit ${report.audit.exitCode}`);
  write(`time: ${seconds(report.totalMs)} s in all, ${seconds(report.drainMs)} s to drain after the last buyer`);
  write(
    `lost ${report.lost.length}, charged wrongly ${report.chargedWrongly.length}, not final ${report.notFinal.length}, answers of 500: ${report.serverErrors.length}`,
  );
  if (report.problems.length) for (const problem of report.problems) write(`PROBLEM: ${problem}`);
  else write('clean: nothing lost, nothing paid twice, every payment final, every webhook delivered, audit balanced');
}

/**
 * `npm run bench -- failover`: payments, settlements and refunds through two processes on a primary PostgreSQL with a
 * synchronous standby; the primary is killed (SIGKILL to every process of it) and the standby promoted 5 s later, as
 * an HA manager would once its checks fail. Nothing else fails, so the time without service is the database's alone.
 */
export const FULL_FAILOVER: ChaosOptions = {
  ...FULL_CHAOS,
  payments: 200,
  processes: 2,
  killEveryMs: null,
  databaseFault: 'failover',
  databaseOutageMs: 5_000,
  faults: NO_FAULTS,
  receiverFailureRate: 0.05,
  refundShare: 0.2,
};

export async function runFailoverBenchmark(): Promise<void> {
  const payments = Number(process.env.CHAOS_PAYMENTS) || FULL_FAILOVER.payments;
  const report = await runChaos({ ...FULL_FAILOVER, payments });
  printChaosReport(report, FULL_FAILOVER.log);
  if (report.problems.length) process.exitCode = 1;
}

export async function runChaosBenchmark(): Promise<void> {
  const payments = Number(process.env.CHAOS_PAYMENTS) || FULL_CHAOS.payments;
  const report = await runChaos({ ...FULL_CHAOS, payments });
  printChaosReport(report, FULL_CHAOS.log);
  if (report.problems.length) process.exitCode = 1;
}
