import type { X402Terms } from '../gateway/methods/terms.ts';

/**
 * The reasons a verify or settle gives for refusing a payment, as x402 names them: the protocol's general ones
 * (`invalid_payload`, `invalid_network`, ...) and those of the `exact` scheme's EVM and SVM facilitators
 * (`invalid_exact_evm_...`, `..._permit2_...`, `invalid_exact_svm_...` in `@x402/evm` and `@x402/svm`), so that
 * resource servers and agents read paygate's answers as they read x402's own facilitator's.
 */
export const X402_REASONS = {
  invalidX402Version: 'invalid_x402_version',
  unsupportedScheme: 'unsupported_scheme',
  invalidNetwork: 'invalid_network',
  invalidPayload: 'invalid_payload',
  invalidRequirements: 'invalid_payment_requirements',
  transactionState: 'invalid_transaction_state',
  settlementPending: 'settlement_pending',
  // EVM (EIP-3009)
  schemeMismatch: 'invalid_exact_evm_scheme',
  networkMismatch: 'invalid_exact_evm_network_mismatch',
  missingEip712Domain: 'invalid_exact_evm_missing_eip712_domain',
  tokenNameMismatch: 'invalid_exact_evm_token_name_mismatch',
  tokenVersionMismatch: 'invalid_exact_evm_token_version_mismatch',
  recipientMismatch: 'invalid_exact_evm_recipient_mismatch',
  invalidSignature: 'invalid_exact_evm_signature',
  validBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  validAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  valueMismatch: 'invalid_exact_evm_payload_authorization_value_mismatch',
  nonceUsed: 'invalid_exact_evm_nonce_already_used',
  insufficientBalance: 'invalid_exact_evm_insufficient_balance',
  simulationFailed: 'invalid_exact_evm_transaction_simulation_failed',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  // EVM (Permit2, through x402's proxy)
  permit2InvalidSpender: 'invalid_permit2_spender',
  permit2RecipientMismatch: 'invalid_permit2_recipient_mismatch',
  permit2DeadlineExpired: 'permit2_deadline_expired',
  permit2NotYetValid: 'permit2_not_yet_valid',
  permit2AmountMismatch: 'permit2_amount_mismatch',
  permit2TokenMismatch: 'permit2_token_mismatch',
  permit2InvalidSignature: 'invalid_permit2_signature',
  permit2AllowanceRequired: 'permit2_allowance_required',
  permit2InsufficientBalance: 'permit2_insufficient_balance',
  permit2InvalidNonce: 'permit2_invalid_nonce',
  permit2ProxyNotDeployed: 'permit2_proxy_not_deployed',
  permit2SimulationFailed: 'permit2_simulation_failed',
  // Solana (an SPL TransferChecked the agent signs, the collector paying the fee)
  svmSchemeMismatch: 'invalid_exact_svm_unsupported_scheme',
  svmNetworkMismatch: 'invalid_exact_svm_network_mismatch',
  svmMissingFeePayer: 'invalid_exact_svm_payload_missing_fee_payer',
  svmFeePayerNotManaged: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  svmUndecodable: 'invalid_exact_svm_payload_transaction_could_not_be_decoded',
  svmSignatureInvalid: 'invalid_exact_svm_payload_signature_invalid',
  svmInstructionsLength: 'invalid_exact_svm_payload_transaction_instructions_length',
  svmComputeLimit: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
  svmComputeLimitTooHigh: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
  svmComputePrice: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction',
  svmComputePriceTooHigh: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
  svmNoTransfer: 'invalid_exact_svm_payload_no_transfer_instruction',
  svmFeePayerTransferring: 'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
  svmMintMismatch: 'invalid_exact_svm_payload_mint_mismatch',
  svmRecipientMismatch: 'invalid_exact_svm_payload_recipient_mismatch',
  svmAmountMismatch: 'invalid_exact_svm_payload_amount_mismatch',
  svmUnknownFourth: 'invalid_exact_svm_payload_unknown_fourth_instruction',
  svmSimulationFailed: 'invalid_exact_svm_transaction_simulation_failed',
  svmTransactionFailed: 'invalid_exact_svm_transaction_failed',
  svmDuplicate: 'duplicate_settlement',
  // paygate's own: the operator's address screening blocks the payer.
  payerBlocked: 'account_blocked',
} as const;

export type X402Reason = (typeof X402_REASONS)[keyof typeof X402_REASONS];

/** A payment refused by a verify or settle: nothing was recorded or sent. */
export class X402Refusal extends Error {
  override readonly name = 'X402Refusal';

  constructor(
    readonly reason: X402Reason,
    message: string,
  ) {
    super(message);
  }
}

/** The x402 reasons of the chain layer's codes, by how the payload pays: EIP-3009 or Permit2. */
const EVM_FAILURE_REASONS: Record<'x402_eip3009' | 'x402_permit2', Record<string, X402Reason>> = {
  x402_eip3009: {
    invalid_signature: X402_REASONS.invalidSignature,
    nonce_already_used: X402_REASONS.nonceUsed,
    insufficient_balance: X402_REASONS.insufficientBalance,
    simulation_failed: X402_REASONS.simulationFailed,
    recipient_mismatch: X402_REASONS.recipientMismatch,
    authorization_expired: X402_REASONS.validBefore,
    authorization_not_yet_valid: X402_REASONS.validAfter,
    transaction_failed: X402_REASONS.transactionFailed,
  },
  x402_permit2: {
    invalid_signature: X402_REASONS.permit2InvalidSignature,
    nonce_already_used: X402_REASONS.permit2InvalidNonce,
    insufficient_balance: X402_REASONS.permit2InsufficientBalance,
    allowance_missing: X402_REASONS.permit2AllowanceRequired,
    simulation_failed: X402_REASONS.permit2SimulationFailed,
    recipient_mismatch: X402_REASONS.permit2RecipientMismatch,
    authorization_expired: X402_REASONS.permit2DeadlineExpired,
    authorization_not_yet_valid: X402_REASONS.permit2NotYetValid,
    proxy_not_deployed: X402_REASONS.permit2ProxyNotDeployed,
    // x402's own facilitator answers a reverted settle of the proxy with the scheme's general reason.
    transaction_failed: X402_REASONS.transactionFailed,
  },
};

/**
 * The x402 reason of a payment's failure code, for the kind of payload it was paid with: the chain layer's refusals
 * (`PaymentRefusedError` codes, also what a payment fails with when its submission is refused) and a sent transfer's
 * end.
 */
export function reasonOfFailure(code: string | null, kind: X402Terms['kind']): X402Reason {
  if (kind === 'x402_svm') {
    return code === 'transaction_failed' || code === 'blockhash_expired'
      ? X402_REASONS.svmTransactionFailed
      : X402_REASONS.transactionState;
  }
  return (code && EVM_FAILURE_REASONS[kind][code]) || X402_REASONS.transactionState;
}

/** The reason a second use of a payload is refused with, as x402 names a used nonce (or transaction) of its kind. */
export function usedAlreadyReason(kind: X402Terms['kind']): X402Reason {
  return {
    x402_eip3009: X402_REASONS.nonceUsed,
    x402_permit2: X402_REASONS.permit2InvalidNonce,
    x402_svm: X402_REASONS.svmDuplicate,
  }[kind];
}
