import { type Address, concatHex, type PublicClient, zeroHash } from 'viem';
import type { Relayer } from '../relayer.ts';
import { DETERMINISTIC_DEPLOYER, depositFactoryAddress, factoryInitCode } from './addresses.ts';

/** Gas of the factory's deployment through the proxy (about 560,000), with room to spare. */
export const FACTORY_DEPLOYMENT_GAS = 800_000n;

export const DEPOSIT_FACTORY_PURPOSE = 'deposit_factory';

export async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== '0x';
}

/**
 * The factory is deployed on a network the first time a deposit there is swept, not at set-up: any collector on any
 * network that has the deterministic deployment proxy gets it the same way, paid by the collector through the
 * relayer's journal. Returns the relayed transaction, or null when the factory is there already.
 */
export async function deployDepositFactory(
  relayer: Relayer,
  client: PublicClient,
  chain: string,
): Promise<{ id: string } | null> {
  if (await hasCode(client, depositFactoryAddress(relayer.address))) return null;
  return relayer.submit({ chain, ...factoryDeployment(relayer.address) });
}

/** The collector's factory deployment: its creation code, after a zero salt, sent to the deployment proxy. */
export function factoryDeployment(collector: Address) {
  return {
    to: DETERMINISTIC_DEPLOYER,
    data: concatHex([zeroHash, factoryInitCode(collector)]),
    purpose: DEPOSIT_FACTORY_PURPOSE,
    gas: FACTORY_DEPLOYMENT_GAS,
  };
}
