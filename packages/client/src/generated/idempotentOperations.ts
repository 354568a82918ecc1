// Generated from the service's OpenAPI document by `npm run generate -w @paygate/client`; do not edit.

/** The operations that take an Idempotency-Key header: the client sends one and may retry them. */
export const IDEMPOTENT_OPERATIONS: readonly string[] = [
  'POST /v1/merchant/payment',
  'POST /v1/merchants',
  'POST /v1/merchants/{merchantId}/settlements/crypto',
  'POST /v1/payment-links',
  'POST /v1/payments',
  'POST /v1/refunds',
];
