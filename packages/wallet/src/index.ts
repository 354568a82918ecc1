export { PAYMENT_ID_PATTERN, isPaymentLink, parsePaymentLink } from './paymentLink.ts';
export type { PaymentLink, PaymentLinkOptions } from './paymentLink.ts';
export { GatewayClient, GatewayError, GatewayNetworkError } from './gatewayClient.ts';
export type {
  GatewayAuth,
  GatewayClientOptions,
  GatewayErrorIssue,
  RetryOptions,
} from './gatewayClient.ts';
export type * from './gatewayTypes.ts';
