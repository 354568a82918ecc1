import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { PriceUnavailableError } from '../../chains/prices/priceSource.ts';
import type { ExchangeRate } from '../../chains/prices/exchangeRate.ts';
import { ApiError, type Issue } from '../../http/errors.ts';
import type { PaymentRow } from '../../payments/paymentResource.ts';
import type { OptionRow } from '../optionLookup.ts';
import { buyerDataSchema, type CollectDataField, collectDataFields } from './buyerDataSchema.ts';
import type { DataEncryptionKey } from '../../dataEncryptionKey.ts';
import {
  type DataThreshold,
  effectiveDataThreshold,
  isAboveDataThreshold,
  type MerchantDataThreshold,
} from './threshold.ts';
import { type BuyerData, buyerDataFromFields, validateBuyerData } from './validateBuyerData.ts';

/** `collectData` of an option or of the options response (D14). */
export interface CollectData {
  url: string;
  schema: Record<string, unknown>;
  fields: CollectDataField[];
}

/** The scope of buyer data given for a payment as a whole, whichever account pays it. */
export const ANY_ACCOUNT = '*';

/** The key buyer data is encrypted with; without one the service cannot take buyer data at all. */
export function dataEncryptionKeyOf(ctx: AppContext): DataEncryptionKey {
  const key = ctx.config.dataEncryptionKey;
  if (!key) {
    throw new ApiError(
      'service_unavailable',
      'This payment asks for buyer data, which this service cannot store: DATA_ENCRYPTION_KEY is not configured.',
    );
  }
  return key;
}

function thresholdOf(currency: string | null, amount: string | null): DataThreshold | null {
  return amount === null ? null : { currency, amount: BigInt(amount) };
}

/** The threshold of a payment's merchant: its override, else its partner's; null when no data is asked for. */
export async function dataThresholdOfPayment(
  db: Db,
  payment: Pick<PaymentRow, 'merchant_id'>,
): Promise<DataThreshold | null> {
  const row = await db
    .selectFrom('merchants')
    .innerJoin('partners', 'partners.id', 'merchants.partner_id')
    .select([
      'merchants.data_threshold_override as override',
      'merchants.data_threshold_currency as merchantCurrency',
      'merchants.data_threshold_amount as merchantAmount',
      'partners.data_threshold_currency as partnerCurrency',
      'partners.data_threshold_amount as partnerAmount',
    ])
    .where('merchants.id', '=', payment.merchant_id)
    .executeTakeFirstOrThrow();
  const merchantThreshold = thresholdOf(row.merchantCurrency, row.merchantAmount);
  const merchant: MerchantDataThreshold =
    row.override === 'threshold' && merchantThreshold
      ? { kind: 'threshold', threshold: merchantThreshold }
      : { kind: row.override === 'never' ? 'never' : 'inherit' };
  return effectiveDataThreshold(thresholdOf(row.partnerCurrency, row.partnerAmount), merchant);
}

/**
 * The price of one unit of `currency` in the payment's currency, read through the tokens pegged to `currency`
 * until one is priced; null when none is.
 */
async function currencyRate(ctx: AppContext, currency: string, paymentCurrency: string): Promise<ExchangeRate | null> {
  if (!ctx.chainServices) return null;
  const pegged = ctx.chains.tokens().filter((token) => token.peggedTo === currency);
  for (const token of pegged) {
    try {
      return (await ctx.chainServices.prices.quote(paymentCurrency, token)).rate;
    } catch (error) {
      if (!(error instanceof PriceUnavailableError)) throw error;
    }
  }
  return null;
}

/** Whether paying this payment asks for buyer data now (D14). */
export async function paymentNeedsBuyerData(ctx: AppContext, payment: PaymentRow): Promise<boolean> {
  const threshold = await dataThresholdOfPayment(ctx.db, payment);
  if (!threshold) return false;
  const differs = threshold.currency !== null && threshold.currency !== payment.fiat_currency;
  const rate = differs ? await currencyRate(ctx, threshold.currency as string, payment.fiat_currency) : null;
  return isAboveDataThreshold({ currency: payment.fiat_currency, amount: BigInt(payment.fiat_value) }, threshold, rate);
}

/** The scopes (accounts, or `*`) that already gave data for the payment. */
async function scopesWithData(db: Db, paymentId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('buyer_data').select('scope').where('payment_id', '=', paymentId).execute();
  return new Set(rows.map((row) => row.scope));
}

export interface BuyerDataRequest {
  /** The top-level `collectData` of the options response: a form for the payment as a whole. */
  paymentForm: CollectData;
  /** An option's `collectData`: a form for its account, or null once data covers that account. */
  forAccount(caip10: string): CollectData | null;
}

/** What the options response asks for, or null when the payment needs no buyer data. */
export async function buyerDataRequest(ctx: AppContext, payment: PaymentRow): Promise<BuyerDataRequest | null> {
  if (!(await paymentNeedsBuyerData(ctx, payment))) return null;
  // Refused now (503) rather than after the buyer filled in a form the service cannot store.
  dataEncryptionKeyOf(ctx);
  const tokens = ctx.formTokens;
  const given = await scopesWithData(ctx.db, payment.id);
  const schema = buyerDataSchema(ctx.clock.now());
  const fields = collectDataFields(schema);
  const expiresAt = Math.floor(payment.expires_at.getTime() / 1000);
  const form = (scope: string): CollectData => ({
    url: `${ctx.config.checkoutUrl}/collect/${tokens.sign({ paymentId: payment.id, scope, expiresAt })}`,
    schema,
    fields,
  });
  return {
    paymentForm: form(ANY_ACCOUNT),
    forAccount: (caip10) => (given.has(caip10) || given.has(ANY_ACCOUNT) ? null : form(caip10)),
  };
}

function associatedData(paymentId: string, scope: string): string {
  return `paygate buyer data\u0000${paymentId}\u0000${scope}`;
}

/** Stores buyer data, encrypted and bound to its payment and scope; a later answer replaces an earlier one. */
export async function storeBuyerData(
  ctx: AppContext,
  paymentId: string,
  scope: string,
  source: 'form' | 'confirm',
  data: BuyerData,
): Promise<void> {
  const encrypted = dataEncryptionKeyOf(ctx).encrypt(
    Buffer.from(JSON.stringify(data), 'utf8'),
    associatedData(paymentId, scope),
  );
  const row = {
    key_id: encrypted.keyId,
    nonce: encrypted.nonce,
    ciphertext: encrypted.ciphertext,
    auth_tag: encrypted.authTag,
    source,
  };
  await ctx.db
    .insertInto('buyer_data')
    .values({ payment_id: paymentId, scope, ...row })
    .onConflict((conflict) => conflict.columns(['payment_id', 'scope']).doUpdateSet({ ...row, updated_at: new Date() }))
    .execute();
}

/** The buyer data given for a payment and scope, decrypted; undefined when none was given. */
export async function readBuyerData(
  db: Db,
  key: DataEncryptionKey,
  paymentId: string,
  scope: string,
): Promise<BuyerData | undefined> {
  const row = await db
    .selectFrom('buyer_data')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('scope', '=', scope)
    .executeTakeFirst();
  if (!row) return undefined;
  const plaintext = key.decrypt(
    { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag },
    associatedData(paymentId, scope),
  );
  return JSON.parse(plaintext.toString('utf8')) as BuyerData;
}

/**
 * On confirm: an option offered as needing buyer data is paid only with valid `collectedData` (stored here) or
 * after the form was submitted for its account or for the whole payment. Otherwise 400 `params_validation`,
 * before anything is submitted, so the payment stays payable.
 */
export async function requireBuyerData(
  ctx: AppContext,
  payment: PaymentRow,
  option: OptionRow,
  collectedData: { fields: { id: string; value: unknown }[] } | undefined,
): Promise<void> {
  if (!option.requires_buyer_data) return;
  if (!collectedData) {
    const given = await scopesWithData(ctx.db, payment.id);
    if (given.has(option.account) || given.has(ANY_ACCOUNT)) return;
    throw ApiError.validation(
      [
        {
          field: 'collectedData',
          message:
            "is required: this option needs buyer data; send it per the option's collectData.schema or submit the form at collectData.url first",
        },
      ],
      'This option needs buyer data.',
    );
  }
  const { data, problems } = buyerDataFromFields(collectedData.fields);
  const result = validateBuyerData(data, ctx.clock.now());
  if (!result.ok || problems.size) {
    const all = new Map([...problems, ...(result.ok ? [] : result.problems)]);
    const issues: Issue[] = [...all].map(([id, message]) => ({ field: `collectedData.${id}`, message }));
    throw ApiError.validation(issues, 'The buyer data does not match the schema.');
  }
  await storeBuyerData(ctx, payment.id, option.account, 'confirm', result.data);
}
