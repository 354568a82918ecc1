import { type Kysely, sql } from 'kysely';

/**
 * x402 payments on EVM networks pay their merchant's own address, not the collector: a CREATE2 deposit address of
 * the collector's factory whose salt is keyed by the merchant, so the buyer's signature names the merchant and a
 * payload made for one merchant pays no other. `x402_payments.pay_to` is the address a payment's payload pays (null
 * where it pays the collector, as on Solana). What such a transfer brought is a deposit at that address until it is
 * swept; `evm_deposits.address_merchant_id` names the merchant whose own address it is, and its sweeps are the
 * merchant's (one for every payment that paid the address), where a payment's deposit address is swept for the
 * payment.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE x402_payments ADD COLUMN pay_to text;
    ALTER TABLE evm_deposits ADD COLUMN address_merchant_id text;
  `.execute(db);
}
