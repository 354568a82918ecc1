import {
  createKeyPairFromBytes,
  createKeyPairFromPrivateKeyBytes,
  getAddressFromPublicKey,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
} from '@solana/kit';
import type { SolanaSigner } from './signers.ts';
import { InvalidActionError } from './walletErrors.ts';

export interface SolanaKeyPairSigner extends SolanaSigner {
  /** The base58 address the key pair signs for. */
  address(): Promise<string>;
}

function keyPairOf(secretKey: Uint8Array | string): Promise<CryptoKeyPair> {
  const bytes = typeof secretKey === 'string' ? new Uint8Array(getBase58Encoder().encode(secretKey)) : secretKey;
  // 64 bytes: seed followed by public key (what wallets export); 32 bytes: the seed alone.
  if (bytes.length === 64) return createKeyPairFromBytes(bytes);
  if (bytes.length === 32) return createKeyPairFromPrivateKeyBytes(bytes);
  throw new TypeError(`A Solana secret key has 64 bytes (or a 32-byte seed), not ${bytes.length}`);
}

/**
 * A `SolanaSigner` holding a key pair, given as bytes or as the base58 text wallets export. It adds its signature
 * to the transaction and returns the whole transaction; it refuses a transaction that does not need its signature.
 */
export function solanaSignerFromKeyPair(secretKey: Uint8Array | string): SolanaKeyPairSigner {
  const keyPair = keyPairOf(secretKey);
  return {
    async address() {
      return getAddressFromPublicKey((await keyPair).publicKey);
    },
    async signTransaction(base64Transaction) {
      let transaction: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>;
      try {
        transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64Transaction));
      } catch (error) {
        throw new InvalidActionError(
          `solana_signTransaction transaction is not a base64 wire transaction: ${(error as Error).message}`,
        );
      }
      const address = await getAddressFromPublicKey((await keyPair).publicKey);
      if (!(address in transaction.signatures)) {
        throw new InvalidActionError(`The transaction does not ask ${address} to sign it`);
      }
      return getBase64EncodedWireTransaction(await partiallySignTransaction([await keyPair], transaction));
    },
  };
}
