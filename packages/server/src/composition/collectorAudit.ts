import fs from 'node:fs/promises';
import path from 'node:path';
import type { DevnetManifest } from '@paygate/devnet';
import { setUpChains } from '../chains/chainConfig.ts';
import { terminalPassphrase } from '../terminalPassphrase.ts';
import { loadCollectorKeys } from '../chains/collectorKeys.ts';
import { networksFromDevnet } from '../chains/devnetNetworks.ts';
import { FixedPriceSource } from '../chains/prices/fixedPriceSource.ts';
import { ChainRegistry } from '../chains/registry.ts';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createChainServices } from './createChainServices.ts';
import { UserFacingError } from '../userFacingError.ts';
import { payoutSenders } from '../payouts/index.ts';
import {
  auditCollector,
  auditDepositAddresses,
  finalReadPoints,
  readAuditedLedger,
  type SolanaBalanceReader,
} from '../ledger/audit.ts';
import { readBalances } from '../chains/evm/index.ts';
import type { SolanaChain } from '../chains/solana/solanaChain.ts';
import { readSolanaBalances } from '../chains/solana/readSolanaBalances.ts';

/**
 * The collector's balances, and the deposit addresses', on the configured networks against the ledger, for `paygate
 * audit`: the networks of CHAINS and the collector keys as the service has them. The devnet is read where the running
 * service keeps it (its manifest in DATA_DIR); the command never starts one.
 *
 * Each network is read where the ledger is (`finalReadPoints`): on EVM the collector and the deposit addresses at
 * one final block, from one read of the head. The ledger is read in one snapshot taken before any head is
 * (`readAuditedLedger`), so it holds nothing a follower recorded after that read, whose block could be above the one
 * read: what can differ is only a final transaction a follower had not recorded yet when the snapshot was taken.
 */
export async function auditConfiguredChains(db: Db, config: Config) {
  const devnet = config.chains === 'devnet';
  const networks = await configuredNetworks(config);
  const chains = new ChainRegistry(networks);
  const services = await createChainServices({
    db,
    networks,
    keys: await loadCollectorKeys(process.env, config.dataDir, devnet, {
      existing: true,
      prompt: terminalPassphrase(),
    }),
    // Balances need no prices.
    prices: new FixedPriceSource({}),
  });
  const clients = services.evm.clients;
  const readPoints = finalReadPoints((network) => clients.for(network));
  const senders = payoutSenders({ db, chains, services, clock: systemClock });
  const ledger = await readAuditedLedger(db);
  return {
    collector: await auditCollector(ledger, chains, senders, readPoints),
    depositAddresses: await auditDepositAddresses(
      ledger,
      chains,
      (network, owners, tokens, blockNumber) => readBalances(clients.for(network), owners, tokens, blockNumber),
      readPoints,
      solanaBalanceReader(services.solana),
    ),
  };
}

/** What merchants' x402 token accounts hold on a Solana network, read through the network's node. */
export function solanaBalanceReader(chain: Pick<SolanaChain, 'networks'>): SolanaBalanceReader {
  return async (network, owners, tokens, commitment) => {
    const solana = chain.networks.get(network.caip2);
    if (!solana) throw new Error(`${network.caip2} is not configured`);
    const balances = await readSolanaBalances(
      solana.rpc,
      owners,
      tokens.map((token) => token.address),
      { commitment },
    );
    return {
      of: (owner, token) => {
        const amount = balances[owner]?.tokens[token.address];
        if (amount === undefined) throw new Error(`no amount read for ${owner} in ${token.caip19}`);
        return amount;
      },
    };
  };
}

/** The networks of CHAINS as the service has them; the devnet's from the running one's manifest (never started). */
export async function configuredNetworks(config: Config) {
  return config.chains === 'devnet'
    ? networksFromDevnet(await runningDevnet(config.dataDir))
    : (await setUpChains(config.chains, config.dataDir, process.env)).registry.networks;
}

async function runningDevnet(dataDir: string): Promise<DevnetManifest> {
  const file = path.join(dataDir, 'devnet', 'manifest.json');
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as DevnetManifest;
  } catch {
    throw new UserFacingError(
      `no devnet manifest at ${file}: the collector is checked against a running devnet (paygate start)`,
    );
  }
}
