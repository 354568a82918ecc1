/**
 * Browser entry: everything a web checkout needs with an injected (EIP-1193) wallet, importing nothing Node-only
 * and neither viem nor @solana/kit, so a bundle of it stays small.
 */
export { PAYMENT_ID_PATTERN, isPaymentLink, parsePaymentLink } from './paymentLink.ts';
export type { PaymentLink, PaymentLinkOptions } from './paymentLink.ts';
export { GatewayClient, GatewayError, GatewayNetworkError } from './gatewayClient.ts';
export type { GatewayAuth, GatewayClientOptions, GatewayErrorIssue, RetryOptions } from './gatewayClient.ts';
export { executeOptionActions, payWithOption } from './payWithOption.ts';
export type { ExecuteOptionParams, PayableOption, PayResult, PayWithOptionParams } from './payWithOption.ts';
export { evmSignerFromEip1193 } from './eip1193Signer.ts';
export type { Eip1193Provider } from './eip1193Signer.ts';
export { SUPPORTED_METHODS } from './signers.ts';
export type { EvmSigner, Signers, SolanaSigner } from './signers.ts';
export {
  InvalidActionError,
  MissingSignerError,
  TransactionRevertedError,
  UnknownChainError,
  UnsupportedActionError,
  UserRejectedError,
  WalletError,
  WalletProviderError,
} from './walletErrors.ts';
export type * from './gatewayTypes.ts';
