import {
  type Address,
  concatHex,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  type PublicClient,
  zeroHash,
} from 'viem';
import type { Db } from '../../db/database.ts';
import { DETERMINISTIC_DEPLOYER } from './deposits/addresses.ts';
import { hasCode } from './deposits/factory.ts';
import { PaymentRefusedError } from './errors.ts';
import type { Relayer } from './relayer.ts';
import { permitPullerBytecode } from './permitPuller/contracts.ts';

export const PERMIT_PULLER_DEPLOYMENT_PURPOSE = 'permit_puller_deployment';

/** The puller's creation code with its collector, as the deployment proxy receives it after the salt. */
function pullerInitCode(collector: Address): Hex {
  return concatHex([permitPullerBytecode, encodeAbiParameters([{ type: 'address' }], [collector])]);
}

/**
 * Where the collector's permit puller is (or will be) on every network: CREATE2 through the deterministic deployment
 * proxy, so a buyer's permit names the same spender whichever network it is signed for.
 */
export function permitPullerAddress(collector: Address): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: DETERMINISTIC_DEPLOYER,
    salt: zeroHash,
    bytecode: pullerInitCode(collector),
  });
}

/** Whether the network holds the collector's puller, so its pulls may be journaled. */
export function permitPullerDeployed(client: PublicClient, collector: Address): Promise<boolean> {
  return hasCode(client, permitPullerAddress(collector));
}

/**
 * Refuses a permit on a network where the puller can never be: it is not deployed and the network has no deterministic
 * deployment proxy to deploy it through.
 */
export async function requirePermitPullerDeployable(client: PublicClient, chain: string): Promise<void> {
  if (!(await hasCode(client, DETERMINISTIC_DEPLOYER)))
    throw new PaymentRefusedError(
      'proxy_not_deployed',
      `${chain} has no deterministic deployment proxy at ${DETERMINISTIC_DEPLOYER} to deploy the permit puller through`,
    );
}

/**
 * Journals the puller's deployment on a network that lacks it, once: a pull sent to an address without code would
 * "succeed" while moving nothing, so no pull is journaled before the puller's code is there, and the payments that
 * wait for it are submitted again once it is. Deployed the first time a permit pays on the network, not at set-up,
 * paid by the collector through the relayer's journal as the deposit factory is. Two processes that journal it at
 * once cost one failed deployment's gas, nothing more: the second finds the address taken and reverts.
 */
export async function deployPermitPuller(db: Db, relayer: Relayer, client: PublicClient, chain: string): Promise<void> {
  const journaled = await db
    .selectFrom('evm_transactions')
    .select('id')
    .where('chain', '=', chain)
    .where('from_address', '=', relayer.address.toLowerCase())
    .where('purpose', '=', PERMIT_PULLER_DEPLOYMENT_PURPOSE)
    .where('status', '<>', 'failed')
    .executeTakeFirst();
  if (journaled) {
    await relayer.broadcast(journaled.id);
    return;
  }
  if (!(await hasCode(client, DETERMINISTIC_DEPLOYER)))
    throw new Error(
      `${chain} has no deterministic deployment proxy at ${DETERMINISTIC_DEPLOYER} to deploy the permit puller`,
    );
  await relayer.submit({
    chain,
    to: DETERMINISTIC_DEPLOYER,
    data: concatHex([zeroHash, pullerInitCode(relayer.address)]),
    purpose: PERMIT_PULLER_DEPLOYMENT_PURPOSE,
  });
}
