import { GatewayClient, type RetryOptions } from '@paygate/wallet/browser';
import type { CheckoutTransport } from './seams.ts';

export interface BrowserTransportOptions {
  /**
   * Where the integrator mounted `createCheckoutHandler` (`@paygate/checkout/server`), e.g. `/api/checkout` or a full
   * URL; the gateway's paths are appended to it.
   */
  endpoint: string;
  fetch?: typeof fetch;
  retry?: RetryOptions;
}

/**
 * The transport of a page: the gateway's calls go to the integrator's own server route, which adds the key. The page
 * never holds a credential.
 */
export function browserTransport(options: BrowserTransportOptions): CheckoutTransport {
  const base = typeof location === 'undefined' ? undefined : location.href;
  return new GatewayClient({
    baseUrl: new URL(options.endpoint, base).href,
    auth: 'proxy',
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
}
