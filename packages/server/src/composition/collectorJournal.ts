import { loadCollectorKeys } from '../chains/collectorKeys.ts';
import { Relayer } from '../chains/evm/relayer.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { terminalPassphrase } from '../terminalPassphrase.ts';
import { UserFacingError } from '../userFacingError.ts';
import { configuredNetworks } from './collectorAudit.ts';

/**
 * `paygate collector accept-unjournaled`: the journal of the EVM network takes the collector's nonce on chain as its
 * next, with the collector key and networks as the service has them (the devnet's from the running one).
 */
export async function acceptUnjournaledTransactions(db: Db, config: Config, caip2: string) {
  const network = (await configuredNetworks(config)).find((candidate) => candidate.caip2 === caip2);
  if (network?.namespace !== 'eip155') throw new UserFacingError(`${caip2} is not an EVM network of CHAINS`);
  const keys = await loadCollectorKeys(process.env, config.dataDir, config.chains === 'devnet', {
    existing: true,
    prompt: terminalPassphrase(),
  });
  return new Relayer({ db, networks: [network], privateKey: keys.evmPrivateKey }).acceptUnjournaled(caip2);
}
