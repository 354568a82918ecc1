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
