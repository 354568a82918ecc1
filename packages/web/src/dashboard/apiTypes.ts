import type { paths } from '@paygate/client';

/** What a GET of the API answers (200), as the OpenAPI document generated from the routes' schemas describes it. */
export type Answer<Path extends keyof paths> = paths[Path] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;

export type Session = Answer<'/dashboard/api/session'>;
export type PaymentListAnswer = Answer<'/v1/payments'>;
export type PaymentItem = PaymentListAnswer['data'][number];
export type ListStats = PaymentListAnswer['stats'];
export type PaymentDetailAnswer = Answer<'/v1/payments/{id}'>;
export type TokenAmountView = NonNullable<PaymentDetailAnswer['tokenAmount']>;
export type MerchantListAnswer = Answer<'/v1/merchants'>;
export type MerchantView = MerchantListAnswer['data'][number];
export type MerchantDetail = Answer<'/v1/merchants/{merchantId}'>['merchant'];

/** A webhook endpoint (`GET /v1/webhooks`). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  merchantId: string | null;
  createdAt: string;
}

/** An attempt to deliver an event to an endpoint (`GET /v1/webhooks/{id}/deliveries`). */
export interface DeliveryAttemptView {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  outcome: 'succeeded' | 'will_retry' | 'given_up';
  redelivery: boolean;
  attemptedAt: string;
}

/** An entry of `GET /v1/payments/revenue`: succeeded payments of a UTC day, currency, token and network. */
export interface RevenueDayView {
  day: string;
  currency: string;
  tokenSymbol: string;
  network: string;
  payments: number;
  /** Minor units of the currency. */
  revenue: string;
}
export interface RevenueAnswer {
  data: RevenueDayView[];
}

/** `GET /v1/networks`. */
export interface NetworksAnswer {
  networks: { id: string; name: string; tokens: { asset: string; symbol: string; name: string; decimals: number }[] }[];
}
