import { type Selectable, sql, type Transaction } from 'kysely';
import type { Namespace } from '../chains/caip.ts';
import type { AppContext } from '../context.ts';
import type { Database, X402PaymentsTable } from '../db/schema.ts';
import { processingChanges } from '../gateway/confirmation.ts';
import type { WalletResult } from '../gateway/methods/terms.ts';
import { newId } from '../ids.ts';
import type { MerchantRow, PaymentRow } from '../payments/paymentResource.ts';
import { announcedColumns, announceWritten, changePaymentStatus } from '../payments/transitions.ts';
import { X402_TRANSFER_PURPOSE } from './x402Eip3009Method.ts';
import type { CheckedX402Payment } from './x402Requirements.ts';

/** How long after its claim an x402 payment's submission is left to the settling request before any sweep takes it. */
const SUBMISSION_GRACE_MS = 5_000;
/** The longest an x402 payment's expiry is set ahead: it is processing from its start, so the expiry only informs. */
const MAX_EXPIRY_MS = 24 * 60 * 60 * 1000;

export type X402PaymentRow = Selectable<X402PaymentsTable> & { merchant_id: string };

/** The x402 payment of an authorisation, if one was made, with its merchant. */
export async function x402PaymentOf(
  ctx: AppContext,
  identity: CheckedX402Payment['identity'],
): Promise<X402PaymentRow | undefined> {
  return ctx.db
    .selectFrom('x402_payments as x402')
    .innerJoin('payments', 'payments.id', 'x402.payment_id')
    .selectAll('x402')
    .select('payments.merchant_id')
    .where('x402.asset', '=', identity.asset)
    .where('x402.payer', '=', identity.payer)
    .where('x402.nonce', '=', identity.nonce)
    .executeTakeFirst();
}

/** Another settle of the same authorisation got there first; the claim's writes are undone. */
class ClaimTaken extends Error {}

/**
 * Makes the merchant's payment of the authorisation, `processing` at once, in one transaction: the payment (source
 * `x402`, announced `payment.created`), its authorisation (unique per token, payer and nonce: of concurrent claims in
 * any processes exactly one commits), the authorisation as the payment's one option and accepted confirmation (which
 * the gateway's submissions send, even after a restart), and the change to `processing`. The claim holds the lease
 * of waiting for the payment's end for `leaseMs`. Returns the payment, or 'taken' when the authorisation has one.
 */
export async function claimX402Payment(
  ctx: AppContext,
  merchant: MerchantRow,
  payment: CheckedX402Payment,
  leaseMs: number,
): Promise<PaymentRow | 'taken'> {
  const now = ctx.clock.now();
  const { identity, terms } = payment;
  const paymentId = newId('pay');
  const expiresAt = new Date(Math.min(payment.validUntil.getTime(), now.getTime() + MAX_EXPIRY_MS));
  const option = {
    id: newId('opt'),
    payment_id: paymentId,
    account: `${payment.network.caip2}:${payment.payer}`,
    asset: payment.token.caip19,
    network: payment.network.caip2,
    method: payment.token.method,
    amount: payment.amount.toString(),
  };
  const results: WalletResult[] = [{ type: 'walletRpc', data: [payment.signature] }];
  try {
    return await ctx.db.transaction().execute(async (trx: Transaction<Database>) => {
      const context = { db: trx, chains: ctx.chains, baseUrl: ctx.config.baseUrl, now };
      const inserted = await trx
        .insertInto('payments')
        .values({
          id: paymentId,
          partner_id: merchant.partner_id,
          merchant_id: merchant.id,
          reference_id: `x402:${identity.asset}:${identity.payer}:${identity.nonce}`,
          fiat_currency: payment.fiat.currency,
          fiat_value: payment.fiat.value,
          expires_at: expiresAt,
          source: 'x402',
          created_at: now,
          updated_at: now,
        })
        .onConflict((conflict) => conflict.columns(['merchant_id', 'reference_id']).doNothing())
        .returningAll()
        .returning(announcedColumns())
        .executeTakeFirst();
      if (!inserted) throw new ClaimTaken();
      const claimed = await trx
        .insertInto('x402_payments')
        .values({
          payment_id: paymentId,
          ...identity,
          signature: payment.signature,
          resource_url: payment.resourceUrl,
          pay_to: payment.merchantAddress,
          waiting_until: sql<Date>`now() + ${leaseMs} * interval '1 millisecond'`,
        })
        .onConflict((conflict) => conflict.columns(['asset', 'payer', 'nonce']).doNothing())
        .returning('payment_id')
        .executeTakeFirst();
      if (!claimed) throw new ClaimTaken();
      await announceWritten(trx, context, inserted, 'payment.created');
      await trx
        .insertInto('payment_options')
        .values({ ...option, quote_expires_at: null, actions: '[]', terms: JSON.stringify(terms) })
        .execute();
      await trx
        .insertInto('payment_confirmations')
        .values({
          payment_id: paymentId,
          option_id: option.id,
          results: JSON.stringify(results),
          terms: JSON.stringify(terms),
          provider_name: null,
          provider_icon: null,
          next_submission_at: sql<Date>`now() + ${SUBMISSION_GRACE_MS} * interval '1 millisecond'`,
        })
        .execute();
      const { payment: processing } = await changePaymentStatus(
        context,
        paymentId,
        'processing',
        processingChanges(ctx.chains, option, { name: null, icon: null }),
      );
      return processing;
    });
  } catch (error) {
    if (error instanceof ClaimTaken) return 'taken';
    throw error;
  }
}

/**
 * Takes the lease of waiting for the payment's end, for `leaseMs`, unless a settle already answered that it
 * succeeded or another one is waiting: the settle that holds it is the one told the outcome.
 */
export async function takeAnswerLease(ctx: AppContext, paymentId: string, leaseMs: number): Promise<boolean> {
  const taken = await ctx.db
    .updateTable('x402_payments')
    .set({ waiting_until: sql<Date>`now() + ${leaseMs} * interval '1 millisecond'` })
    .where('payment_id', '=', paymentId)
    .where('answered_at', 'is', null)
    .where((eb) => eb.or([eb('waiting_until', 'is', null), eb('waiting_until', '<=', sql<Date>`now()`)]))
    .returning('payment_id')
    .executeTakeFirst();
  return taken !== undefined;
}

/** The waiting settle answers without the outcome (not final yet): a later settle of the payload may wait again. */
export async function releaseAnswerLease(ctx: AppContext, paymentId: string): Promise<void> {
  await ctx.db.updateTable('x402_payments').set({ waiting_until: null }).where('payment_id', '=', paymentId).execute();
}

/** Records that a settle answered that the payment succeeded; false when one did before. */
export async function markAnsweredSucceeded(ctx: AppContext, paymentId: string): Promise<boolean> {
  const marked = await ctx.db
    .updateTable('x402_payments')
    .set({ answered_at: sql<Date>`now()`, waiting_until: null })
    .where('payment_id', '=', paymentId)
    .where('answered_at', 'is', null)
    .returning('payment_id')
    .executeTakeFirst();
  return marked !== undefined;
}

/**
 * The transaction that pays the payment, once journaled: the relayer's (its latest version) on EVM networks, the
 * Solana journal's signature on Solana.
 */
export async function sentTransactionOf(
  ctx: AppContext,
  paymentId: string,
  namespace: Namespace,
): Promise<string | undefined> {
  if (namespace === 'solana') {
    const entry = await ctx.db
      .selectFrom('solana_transactions')
      .select('signature')
      .where('purpose', '=', 'payment')
      .where('reference', '=', paymentId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return entry?.signature;
  }
  const row = await ctx.db
    .selectFrom('evm_transactions as transaction')
    .innerJoin('evm_transaction_attempts as attempt', 'attempt.transaction_id', 'transaction.id')
    .select(['transaction.mined_hash', 'attempt.hash'])
    .where('transaction.payment_id', '=', paymentId)
    .where('transaction.purpose', '=', X402_TRANSFER_PURPOSE)
    .orderBy('attempt.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? (row.mined_hash ?? row.hash) : undefined;
}

/** The namespace of a payment's network. */
export function namespaceOf(network: string | null): Namespace {
  return network?.startsWith('solana:') ? 'solana' : 'eip155';
}
