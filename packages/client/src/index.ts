export { createPaygateClient } from './client.ts';
export type { PaygateClient, PaygateClientOptions } from './client.ts';
export { PaygateNetworkError, paygateFetch, takesIdempotencyKey } from './paygateFetch.ts';
export type { PaygateFetchOptions } from './paygateFetch.ts';
export type { RetryOptions } from './retryPolicy.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  parseWebhookEvent,
  signatureHeader,
  verifyWebhookSignature,
  WebhookSignatureError,
} from './webhooks.ts';
export type { VerifyWebhookSignatureInput, WebhookEvent, WebhookEventType } from './webhooks.ts';
export type { components, operations, paths } from './generated/openapi.ts';
