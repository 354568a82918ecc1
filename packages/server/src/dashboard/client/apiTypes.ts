import type { Static } from '@sinclair/typebox';
import type { Merchant, MerchantWithSettlementsEnvelope } from '../../merchants/merchantResource.ts';
import type { PaymentList } from '../../payments/paymentListPage.ts';
import type { PaymentDetail, TokenAmount } from '../../payments/paymentResource.ts';
import type { RefundView } from '../../refunds/refundResource.ts';
import type { SessionView } from '../sessionCookie.ts';

// The API's answers as its own schemas describe them (types only: nothing of the server is bundled).
export type Session = Static<typeof SessionView>;
export type PaymentListAnswer = Static<typeof PaymentList>;
export type PaymentItem = PaymentListAnswer['data'][number];
export type ListStats = PaymentListAnswer['stats'];
export type PaymentDetailAnswer = Static<typeof PaymentDetail> & { refunds?: RefundView[] };
export type TokenAmountView = Static<typeof TokenAmount>;
export type MerchantView = Static<typeof Merchant>;
export interface MerchantListAnswer {
  data: MerchantView[];
  nextCursor: string | null;
}
export type MerchantDetail = Static<typeof MerchantWithSettlementsEnvelope>['merchant'];

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
