/**
 * Transactions left the collector on a network that the database's journals do not hold (restored to a point older
 * than the chain, or the key used outside the service). A new one is refused: whatever the missing ones paid, the
 * database may decide to pay again.
 */
export class CollectorJournalBehindError extends Error {
  override readonly name = 'CollectorJournalBehindError';

  constructor(
    readonly chain: string,
    readonly missing: bigint,
    /** How they were found, for the operator: the nonces on EVM, the newest signature on Solana. */
    readonly evidence: string,
  ) {
    super(
      `the collector sent ${missing} transaction(s) on ${chain} that the database does not hold (${evidence}): ` +
        'the service sends nothing more from it there until they are reconciled (see Backups in the README)',
    );
  }
}
