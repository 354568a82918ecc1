import { collectorAddresses, loadCollectorKeys } from '../chains/collectorKeys.ts';
import { Relayer } from '../chains/evm/relayer.ts';
import { solanaRpc } from '../chains/solana/rpc.ts';
import { commitmentFor } from '../chains/solana/transactionSender.ts';
import { acceptTransactions, UnjournaledTransactions } from '../chains/solana/unjournaledTransactions.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { terminalPassphrase } from '../terminalPassphrase.ts';
import { UserFacingError } from '../userFacingError.ts';
import { configuredNetworks } from './collectorAudit.ts';

/** What accepting the collector's unjournaled transactions did: the EVM journal's nonce moved, or Solana's signatures. */
export type AcceptedTransactions =
  | { namespace: 'eip155'; journalNonce: bigint | undefined; chainNonce: bigint }
  | { namespace: 'solana'; signatures: string[] };

/**
 * `paygate collector accept-unjournaled`: the collector's transactions on the network that the journals do not hold
 * are taken as sent (on EVM the journal's next nonce moves up to the chain's; on Solana their signatures are
 * recorded), with the collector key and networks as the service has them (the devnet's from the running one).
 */
export async function acceptUnjournaledTransactions(
  db: Db,
  config: Config,
  caip2: string,
): Promise<AcceptedTransactions> {
  const network = (await configuredNetworks(config)).find((candidate) => candidate.caip2 === caip2);
  if (!network?.rpcUrl) throw new UserFacingError(`${caip2} is not a network of CHAINS with an RPC URL`);
  const keys = await loadCollectorKeys(process.env, config.dataDir, config.chains === 'devnet', {
    existing: true,
    prompt: terminalPassphrase(),
  });
  if (network.namespace === 'eip155') {
    const relayer = new Relayer({ db, networks: [network], privateKey: keys.evmPrivateKey });
    return { namespace: 'eip155', ...(await relayer.acceptUnjournaled(caip2)) };
  }
  const unjournaled = new UnjournaledTransactions({
    db,
    rpc: solanaRpc(network.rpcUrl, { network: caip2 }),
    network: caip2,
    collector: (await collectorAddresses(keys)).solana,
    commitment: commitmentFor(network.confirmations),
  });
  const signatures = await unjournaled.find();
  await acceptTransactions(db, caip2, signatures);
  return { namespace: 'solana', signatures };
}
