import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import { paygateFetch } from './paygateFetch.ts';
import { type RetryOptions, retryPolicy } from './retryPolicy.ts';

export interface PaygateClientOptions {
  /** The API's address, e.g. `https://pay.example.com`. */
  baseUrl: string;
  /** A partner API key (`sk_...`), sent as `Api-Key`. */
  apiKey: string;
  /** An API version (`Pay-Version`, e.g. `2026-02-18`); the partner's pinned version when left out. */
  apiVersion?: string;
  retry?: RetryOptions;
  /** The fetch to send with; the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
  /** Makes idempotency keys; `crypto.randomUUID` by default. */
  newIdempotencyKey?: () => string;
}

/** A typed client of the paygate API: `client.GET('/v1/merchants')`, `client.POST('/v1/payments', {...})`. */
export type PaygateClient = Client<paths>;

/**
 * A client whose methods are typed from the service's OpenAPI document (openapi-fetch): each returns
 * `{ data, error, response }`, `data` on 2xx and the API's error body (`{ message, code, details?, issues? }`) in
 * `error` otherwise. Creates carry an idempotency key and are retried safely; see `paygateFetch`.
 */
export function createPaygateClient(options: PaygateClientOptions): PaygateClient {
  const headers: Record<string, string> = { 'Api-Key': options.apiKey };
  if (options.apiVersion) headers['Pay-Version'] = options.apiVersion;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: paygateFetch({
      policy: retryPolicy(options.retry),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.newIdempotencyKey ? { newIdempotencyKey: options.newIdempotencyKey } : {}),
    }),
  });
}
