import { createPrivateKey, createPublicKey, hkdfSync } from 'node:crypto';
import { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey, getBase58Decoder } from '@solana/kit';
import type { CollectorKeys } from '../collectorKeys.ts';

export interface SolanaCollector {
  address: string;
  /** Non-extractable: the private key can sign but never be read back or logged. */
  keyPair: CryptoKeyPair;
  /**
   * The address of the merchant's own Solana owner: its associated token account of a mint is where the merchant's
   * x402 payments in that mint are paid (its `payTo`), so a buyer's transfer names the merchant.
   */
  merchantOwner(merchantId: string): string;
  /** The merchant owner's key pair, non-extractable, to move what its token accounts hold to the collector. */
  merchantOwnerKeyPair(merchantId: string): Promise<CryptoKeyPair>;
}

/**
 * Domain separation of the merchant owners' keys: HKDF-SHA256 of the collector's seed with this label and the
 * merchant's id, so an owner's key reveals nothing of the collector's or of another merchant's, and every process
 * holding the collector's seed derives the same owners without storing a key.
 */
const MERCHANT_OWNER_LABEL = 'paygate/solana/x402-merchant-owner/v1:';
/** An Ed25519 private key in PKCS #8 DER is this prefix and the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function merchantOwnerSeed(collectorSeed: Buffer, merchantId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', collectorSeed, Buffer.alloc(0), `${MERCHANT_OWNER_LABEL}${merchantId}`, 32));
}

/** The Solana address of an Ed25519 seed, computed synchronously (node:crypto), as the requirements are served. */
function addressOfSeed(seed: Buffer): string {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  // The SPKI encoding of an Ed25519 key ends with the 32-byte key itself.
  return getBase58Decoder().decode(new Uint8Array(publicKey.subarray(publicKey.length - 32)));
}

export async function solanaCollector(keys: Pick<CollectorKeys, 'solanaSeedHex'>): Promise<SolanaCollector> {
  const seed = Buffer.from(keys.solanaSeedHex, 'hex');
  const keyPair = await createKeyPairFromPrivateKeyBytes(seed);
  return {
    address: await getAddressFromPublicKey(keyPair.publicKey),
    keyPair,
    merchantOwner: (merchantId) => addressOfSeed(merchantOwnerSeed(seed, merchantId)),
    merchantOwnerKeyPair: (merchantId) => createKeyPairFromPrivateKeyBytes(merchantOwnerSeed(seed, merchantId)),
  };
}
