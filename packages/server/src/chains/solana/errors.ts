/** The transaction's blockhash is past its last valid block height: it can never land. The buyer must fetch again. */
export class BlockhashExpiredError extends Error {
  override readonly name = 'BlockhashExpiredError';

  /** `blockHeight` is the height at which the expiry was seen, null when it was recorded earlier. */
  constructor(
    readonly lastValidBlockHeight: bigint,
    readonly blockHeight: bigint | null,
  ) {
    super(
      `the transaction's blockhash expired after block height ${lastValidBlockHeight}${blockHeight === null ? '' : ` (now ${blockHeight})`}`,
    );
  }
}

export type SignedTransactionProblem =
  | 'malformed'
  | 'message_changed'
  | 'buyer_not_a_signer'
  | 'missing_signature'
  | 'invalid_signature'
  | 'unexpected_signature';

/** A transaction returned by a wallet is not the one the service built, or is not signed by the buyer. */
export class SignedTransactionRejectedError extends Error {
  override readonly name = 'SignedTransactionRejectedError';

  constructor(
    readonly code: SignedTransactionProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The node refused the transaction before it could land (its simulation failed); nothing moved. */
export class SolanaTransactionRejectedError extends Error {
  override readonly name = 'SolanaTransactionRejectedError';

  constructor(
    readonly signature: string,
    readonly reason: string,
    readonly logs: readonly string[] = [],
  ) {
    super(`the transaction ${signature} was refused: ${reason}`);
  }
}

/** Another transaction for the same payment (or settlement) may still land or already has. */
export class SolanaTransactionConflictError extends Error {
  override readonly name = 'SolanaTransactionConflictError';

  constructor(
    readonly purpose: string,
    readonly reference: string,
    readonly existingSignature: string,
  ) {
    super(`${purpose} ${reference} already has the transaction ${existingSignature}`);
  }
}
