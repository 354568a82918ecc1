import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, type DevnetBuyer, type FundedAmount, startDevnet } from '@paygate/devnet';
import { type Address, createWalletClient, type Hex, http, type PublicClient, type WalletClient } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { inject } from 'vitest';
import { networksFromDevnet } from '../../../../src/chains/devnetNetworks.ts';
import { EvmClients } from '../../../../src/chains/evm/clients.ts';
import { Relayer } from '../../../../src/chains/evm/relayer.ts';
import type { NetworkInfo, TokenInfo } from '../../../../src/chains/registry.ts';
import { connect, type Db } from '../../../../src/db/database.ts';
import { recordFunding } from '../../../../src/ledger/funding.ts';

export type BuyerName = 'alice' | 'bob' | 'carol' | 'erin' | 'dave';

export interface Buyer {
  account: PrivateKeyAccount;
  address: Address;
  wallet: WalletClient;
}

export interface EvmTestEnvironment {
  devnet: Devnet;
  /** The first EVM chain (eip155:31337). */
  network: NetworkInfo;
  networks: NetworkInfo[];
  clients: EvmClients;
  client: PublicClient;
  db: Db;
  /** A fresh collector, funded by the devnet faucet (recorded as the operator's funding), used by nothing else. */
  collectorKey: Hex;
  /** What the faucet gave the collector: a test on a database of its own records it there as the operator's. */
  funded: FundedAmount[];
  collector: Address;
  relayer: Relayer;
  token(symbol: 'USDC' | 'EURC' | 'USDT' | 'USDS' | 'WETH' | 'ETH'): TokenInfo;
  buyer(name: BuyerName): Buyer;
  close(): Promise<void>;
}

/** A devnet of its own in a temp dir, the run's database and a fresh funded collector with its relayer. */
export async function startEvmTestEnvironment(): Promise<EvmTestEnvironment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-evm-'));
  const devnet = await startDevnet({ dataDir });
  const networks = networksFromDevnet(devnet.manifest).filter((network) => network.namespace === 'eip155');
  const network = networks[0] as NetworkInfo;
  const collectorKey = generatePrivateKey();
  const collector = privateKeyToAccount(collectorKey).address;
  const funded = await devnet.fund({ evm: [collector] });
  const clients = new EvmClients();
  const db = connect(inject('databaseUrl'), 8);
  // The faucet's credit is the operator's funding: the collector's gas is paid out of it.
  await recordFunding(db, funded);
  const relayer = new Relayer({ db, networks, privateKey: collectorKey, clients });
  return {
    devnet,
    network,
    networks,
    clients,
    client: clients.for(network),
    db,
    collectorKey,
    funded,
    collector,
    relayer,
    token: (symbol) => {
      const token = network.tokens.find((candidate) => candidate.symbol === symbol);
      if (!token) throw new Error(`no ${symbol} on ${network.caip2}`);
      return token;
    },
    buyer: (name) => buyerOn(network, devnet.manifest.buyers, name),
    close: async () => {
      await db.destroy();
      await devnet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function buyerOn(network: NetworkInfo, buyers: DevnetBuyer[], name: BuyerName): Buyer {
  const buyer = buyers.find((candidate) => candidate.name === name);
  if (!buyer) throw new Error(`no devnet buyer ${name}`);
  const account = privateKeyToAccount(buyer.evmPrivateKey);
  return {
    account,
    address: account.address,
    wallet: createWalletClient({ account, transport: http(network.rpcUrl) }),
  };
}

/** Seconds since the epoch, as token contracts count time. */
export function nowSeconds(offsetSeconds = 0): bigint {
  return BigInt(Math.floor(Date.now() / 1000) + offsetSeconds);
}
