/** Why the service refuses a buyer's authorisation or transfer; no money has moved when one is thrown. */
export type PaymentRefusalCode =
  | 'recipient_mismatch'
  | 'amount_mismatch'
  | 'token_mismatch'
  | 'payer_mismatch'
  | 'authorization_expired'
  | 'authorization_not_yet_valid'
  | 'nonce_already_used'
  | 'not_bound_to_payment'
  | 'invalid_signature'
  | 'insufficient_balance'
  | 'allowance_missing'
  | 'approval_failed'
  | 'proxy_not_deployed'
  | 'simulation_failed'
  | 'transfer_not_found'
  | 'transfer_reverted'
  | 'transfer_already_used'
  | 'permit_already_used'
  | 'reference_mismatch'
  | 'transfer_predates_option'
  | 'option_outdated';

export class PaymentRefusedError extends Error {
  override readonly name = 'PaymentRefusedError';

  constructor(
    readonly code: PaymentRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The collector's nonce on the network is ahead of the journal's next one: transactions left the collector that the
 * database does not hold (restored to a point older than the chain, or the key used outside the service). A new one
 * is refused: whatever the missing ones paid, the database may decide to pay again.
 */
export class CollectorJournalBehindError extends Error {
  override readonly name = 'CollectorJournalBehindError';

  constructor(
    readonly chain: string,
    /** The next nonce the journal would give. */
    readonly journalNonce: bigint,
    /** The collector's nonce the node reported, counting its pending transactions. */
    readonly chainNonce: bigint,
  ) {
    super(
      `the collector sent ${chainNonce - journalNonce} transaction(s) on ${chain} that the database does not hold ` +
        `(its nonce there is ${chainNonce}, the journal's next ${journalNonce}): the service sends nothing more from it ` +
        'there until they are reconciled (see Backups in the README)',
    );
  }

  get missing(): bigint {
    return this.chainNonce - this.journalNonce;
  }
}
