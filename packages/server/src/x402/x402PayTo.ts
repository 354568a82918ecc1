import type { Address } from 'viem';
import type { Namespace } from '../chains/caip.ts';
import { merchantDepositAddress } from '../chains/evm/deposits/addresses.ts';
import type { Db } from '../db/database.ts';
import type { ChainServices } from '../gateway/chainServices.ts';

/**
 * The address a merchant's x402 payments on `namespace` pay, the requirements' `payTo`, so the buyer's signature
 * names the merchant and no other merchant can settle the payload as its own. On EVM networks the merchant's own
 * deposit address (the collector's factory's, keyed by the merchant); on Solana the merchant's own owner (a key
 * derived from the collector's seed and the merchant), whose associated token account of the mint is paid. Both are
 * swept to the collector.
 */
export function x402PayTo(services: ChainServices, merchantId: string, namespace: Namespace): string {
  return namespace === 'eip155'
    ? merchantDepositAddress(services.evm.collector, merchantId)
    : services.solana.collector.merchantOwner(merchantId);
}

/**
 * The address an x402 payment on an EVM network must pay, from the payment's merchant: the collector relays only a
 * transfer to it. A payment recorded before payments paid their merchant's address (no `pay_to`) pays the collector.
 */
export async function evmPayToOfPayment(db: Db, services: ChainServices, paymentId: string): Promise<Address> {
  const payment = await db
    .selectFrom('payments')
    .innerJoin('x402_payments as x402', 'x402.payment_id', 'payments.id')
    .select(['payments.merchant_id', 'x402.pay_to'])
    .where('payments.id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return payment.pay_to === null
    ? services.evm.collector
    : merchantDepositAddress(services.evm.collector, payment.merchant_id);
}
