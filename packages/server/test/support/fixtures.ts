import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { PaymentsTable } from '../../src/db/schema.ts';
import type { TransitionContext } from '../../src/payments/transitions.ts';
import { call, newPartner, type TestPartner, type TestServer } from './testServer.ts';

/**
 * A fresh partner, its merchant and payments of 10.00 USD written straight into the database, for tests below the
 * API; unpaid and expiring in 10 minutes unless `columns` say otherwise.
 */
export async function insertMerchantWithPayments(
  db: Db,
  merchantId: string,
  paymentIds: string[],
  columns: Partial<Insertable<PaymentsTable>> = {},
): Promise<TestPartner> {
  const partner = await newPartner(db);
  await db
    .insertInto('merchants')
    .values({ id: merchantId, partner_id: partner.partnerId, name: merchantId, email: `${merchantId}@shop.example` })
    .execute();
  await db
    .insertInto('payments')
    .values(
      paymentIds.map((id) => ({
        id,
        partner_id: partner.partnerId,
        merchant_id: merchantId,
        reference_id: id,
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() + 600_000),
        ...columns,
      })),
    )
    .execute();
  return partner;
}

/** Creates a merchant through the API, as a partner's backend would. */
export async function createMerchant(
  server: { url: string },
  apiKey: string,
  body: Record<string, unknown> = { merchantName: 'Corner Shop', merchantEmail: 'owner@corner-shop.com' },
) {
  const result = await call(server, '/v1/merchants', {
    method: 'POST',
    headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
    body,
  });
  if (result.status !== 201) throw new Error(`merchant not created: ${result.status} ${result.text}`);
  return result.body.merchant as {
    id: string;
    name: string;
    email: string;
    status: string;
    iconUrl: string | null;
    createdAt: string;
  };
}

export const BASE_USDC = 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const BASE_EURC = 'eip155:8453/erc20:0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42';
export const SOLANA_USDC = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const BASE_ACCOUNT = 'eip155:8453:0x1111111111111111111111111111111111111111';
export const BASE_ACCOUNT_2 = 'eip155:8453:0x2222222222222222222222222222222222222222';
export const SOLANA_ACCOUNT = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** Creates a payment through the API for `merchantId`. */
export async function createPayment(
  server: { url: string },
  apiKey: string,
  merchantId: string,
  body: Record<string, unknown> = {},
  path = '/v1/payments',
) {
  const result = await call(server, path, {
    method: 'POST',
    headers: { 'api-key': apiKey, 'merchant-id': merchantId },
    body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${randomUUID()}`, ...body },
  });
  if (result.status !== 201) throw new Error(`payment not created: ${result.status} ${result.text}`);
  return result.body as {
    paymentId: string;
    gatewayUrl: string;
    status: string;
    expiresAt: number;
    isFinal: boolean;
    pollInMs?: number;
  };
}

/**
 * What `changePaymentStatus` needs, read from the test's server when used (it is started in `beforeAll`), so a test
 * can move a payment as the chain follower would; `now` is the wall clock unless the test keeps its own.
 */
export function transitionsOf(server: () => TestServer, now: () => Date = () => new Date()): TransitionContext {
  return {
    get db() {
      return server().db;
    },
    get chains() {
      return server().ctx.chains;
    },
    get baseUrl() {
      return server().url;
    },
    get now() {
      return now();
    },
  };
}
