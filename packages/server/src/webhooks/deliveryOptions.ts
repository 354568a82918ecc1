import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retrySchedule.ts';
import type { SendOptions } from './send.ts';

export interface WebhookDeliveryOptions extends SendOptions {
  retry: RetryPolicy;
  /**
   * A delivery waits behind older pending deliveries of the same object to the same endpoint, so a payment's events
   * arrive in order, but only while the older one is younger than this: one event a receiver keeps refusing must not
   * hold back the rest for days.
   */
  orderingWindowMs: number;
}

export const DEFAULT_DELIVERY_OPTIONS: WebhookDeliveryOptions = {
  allowPrivateHosts: false,
  timeoutMs: 10_000,
  retry: DEFAULT_RETRY_POLICY,
  orderingWindowMs: 60 * 60_000,
};

/** Production settings with the context's test-only overrides applied. */
export function deliveryOptions(overrides: Partial<WebhookDeliveryOptions> | undefined): WebhookDeliveryOptions {
  return { ...DEFAULT_DELIVERY_OPTIONS, ...overrides };
}
