import {
  address,
  getBase64Encoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  verifySignature,
  type Transaction,
} from '@solana/kit';
import { SignedTransactionRejectedError } from './errors.ts';

export interface BuyerSignedTransactionCheck {
  /** What the wallet returned from `solana_signTransaction`. */
  signedTransactionBase64: string;
  /** `messageBytesBase64` of the transfer the service built. */
  expectedMessageBytesBase64: string;
  buyer: string;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function decodeBase64(text: string): Uint8Array | null {
  // Strict: a lenient decoder would skip stray characters and accept a different text for the same bytes.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  return new Uint8Array(getBase64Encoder().encode(text));
}

/**
 * Accepts a wallet's signed transaction only when it is the built message byte for byte, the buyer's signature
 * over it is valid, and every other signature slot (the collector's) is still empty: the collector signs last.
 */
export async function verifyBuyerSignedTransaction(check: BuyerSignedTransactionCheck): Promise<Transaction> {
  const wire = decodeBase64(check.signedTransactionBase64);
  let transaction: Transaction | null = null;
  if (wire && wire.length > 0) {
    try {
      transaction = getTransactionDecoder().decode(wire);
    } catch {
      transaction = null;
    }
  }
  // Re-encoding must give back the same bytes, so nothing (trailing bytes, extra signatures) was left unread.
  if (!wire || !transaction || !bytesEqual(new Uint8Array(getTransactionEncoder().encode(transaction)), wire)) {
    throw new SignedTransactionRejectedError(
      'malformed',
      'the signed transaction is not a valid base64 Solana transaction',
    );
  }
  const expected = new Uint8Array(getBase64Encoder().encode(check.expectedMessageBytesBase64));
  if (!bytesEqual(new Uint8Array(transaction.messageBytes), expected)) {
    throw new SignedTransactionRejectedError(
      'message_changed',
      'the signed transaction is not the transaction the service built',
    );
  }
  const buyer = address(check.buyer);
  if (!(buyer in transaction.signatures)) {
    throw new SignedTransactionRejectedError('buyer_not_a_signer', 'the buyer is not a signer of this transaction');
  }
  for (const [signer, signature] of Object.entries(transaction.signatures)) {
    if (signer === buyer) {
      if (!signature)
        throw new SignedTransactionRejectedError('missing_signature', 'the transaction is not signed by the buyer');
      const valid = await verifySignature(await getPublicKeyFromAddress(buyer), signature, transaction.messageBytes);
      if (!valid)
        throw new SignedTransactionRejectedError(
          'invalid_signature',
          "the buyer's signature does not match the transaction",
        );
    } else if (signature) {
      throw new SignedTransactionRejectedError(
        'unexpected_signature',
        `the signature slot of ${signer} must be left empty`,
      );
    }
  }
  return transaction;
}
