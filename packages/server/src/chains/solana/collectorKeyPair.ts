import { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey } from '@solana/kit';
import type { CollectorKeys } from '../collectorKeys.ts';

export interface SolanaCollector {
  address: string;
  /** Non-extractable: the private key can sign but never be read back or logged. */
  keyPair: CryptoKeyPair;
}

export async function solanaCollector(keys: Pick<CollectorKeys, 'solanaSeedHex'>): Promise<SolanaCollector> {
  const keyPair = await createKeyPairFromPrivateKeyBytes(Buffer.from(keys.solanaSeedHex, 'hex'));
  return { address: await getAddressFromPublicKey(keyPair.publicKey), keyPair };
}
