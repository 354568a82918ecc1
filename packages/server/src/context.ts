import type {
  FastifyInstance,
  FastifyBaseLogger,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ChainRegistry } from './chains/registry.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { ChainServices } from './gateway/chainServices.ts';
import type { LogoFetchOptions } from './merchants/logo.ts';
import type { MerchantCache } from './merchants/merchantCache.ts';
import type { WebhookDeliveryOptions } from './webhooks/deliveryOptions.ts';
import type { Registry } from 'prom-client';
import type { FormTokenSigner } from './gateway/dataCollection/formToken.ts';
import type { CredentialVerifier } from './http/auth.ts';
import type { CursorCodec } from './http/cursor.ts';
import type { RateLimiter } from './http/rateLimit.ts';
import type { Logger } from './log.ts';
import type { PaymentStatusWaiter } from './payments/statusWaiter.ts';
import type { AddressScreening } from './screening/addressScreening.ts';

/** Everything a request handler may use; built once per process by `createRuntime` and passed to the app. */
export interface AppContext {
  config: Config;
  db: Db;
  /** The database's connection URL, for the connections that cannot share the pool (LISTEN, job workers). */
  databaseUrl: string;
  chains: ChainRegistry;
  clock: Clock;
  /** Merchant rows for the hot read paths; serves from memory only while this process receives their changes. */
  merchants: MerchantCache;
  /** The chain services the wallet gateway pays through; without them the gateway offers and confirms nothing. */
  chainServices?: ChainServices;
  /** The process's logger; the app logs through it and each background part through a child. */
  logger: Logger;
  /** Signs and checks the list cursors (D9). */
  cursors: CursorCodec;
  /** Signs and checks the links of buyer-data forms. */
  formTokens: FormTokenSigner;
  /** Wakes long-polls when a payment's status changes, in any process. */
  statusWaiter: PaymentStatusWaiter;
  rateLimiter: RateLimiter;
  /** Counts dashboard sign-in attempts per address (`config.dashboard`). */
  signInLimiter: RateLimiter;
  /** Verifies API keys, wallet apps and dashboard sessions, remembering answers briefly. */
  credentials: CredentialVerifier;
  /** The registry `/metrics` serves. */
  metrics: Registry;
  /** Screens buyers' accounts and payout destinations (SCREENING); a no-op when off. */
  screening: AddressScreening;
  /** Submits a confirmed payment in this process at once; without it, any process's submission sweep takes it. */
  submissions?: { soon(paymentId: string, check?: { gas?: bigint }): void };
  /** Sends pending on-chain refunds in this process soon; without it, the refund sender's next round takes them. */
  refunds?: { soon(): void };
  /** Overrides of the logo fetch, for tests only (a private test host, its CA, a DNS table). */
  logoFetch?: Partial<LogoFetchOptions>;
  /** Overrides of webhook delivery, for tests only (a private receiver, its CA, short retries and timeouts). */
  webhookDelivery?: Partial<WebhookDeliveryOptions>;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
