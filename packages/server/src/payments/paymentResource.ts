import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import { type MerchantsTable, PAYMENT_SOURCES, type PaymentSource, type PaymentsTable } from '../db/schema.ts';
import { Nullable } from '../http/schemas.ts';
import { logoUrl } from '../merchants/merchantResource.ts';
import { fiatCurrency } from './currencies.ts';
import { PAYMENT_EXCEPTION_TYPES, type PaymentException } from './paymentExceptions.ts';
import { effectiveFailureCode, effectiveStatus, isTerminal, listStatusName, pollHintMs } from './stateMachine.ts';

export type PaymentRow = Selectable<PaymentsTable>;
export type MerchantRow = Selectable<MerchantsTable>;

/** Where the API says a payment came from: its origin when it has one (migration 0060), else its stored source. */
export function paymentSource(row: Pick<PaymentRow, 'source' | 'origin'>): PaymentSource {
  return row.origin ?? row.source;
}

const AmountDisplay = Type.Object({
  assetSymbol: Type.String(),
  assetName: Type.String(),
  decimals: Type.Integer(),
  iconUrl: Type.Optional(Type.String()),
  networkName: Type.Optional(Type.String()),
  networkIconUrl: Type.Optional(Type.String()),
});

export const FiatAmount = Type.Object({
  unit: Type.String({ description: '`iso4217/<CODE>`' }),
  value: Type.String({ description: 'Minor units' }),
  display: AmountDisplay,
});

export const TokenAmount = Type.Object({
  unit: Type.String({ description: '`caip19/<asset id>`' }),
  value: Type.String({ description: 'Minor units of the token' }),
  display: Nullable(AmountDisplay),
});

const Settlement = Type.Object({
  settled: Type.Boolean(),
  amount: Type.Optional(TokenAmount),
  txHash: Type.Optional(Type.String()),
});

const PaymentExceptionView = Type.Object({
  id: Type.String({ description: 'Prefix `exc_`; `POST /v1/refunds {paymentId, exceptionId}` sends it back' }),
  type: Type.Union(
    PAYMENT_EXCEPTION_TYPES.map((type) => Type.Literal(type)),
    {
      description:
        'underpaid: less than asked was received (the payment fails `underpaid` at its expiry unless the rest ' +
        'arrives); overpaid: the payment succeeded and the excess is kept apart; paid_late: sent after the payment ' +
        'closed; wrong_token: a token the payment does not take; refused: a transfer to the collector whose confirm ' +
        'was refused (another sender than the option was made for, no reference, a merchant not taking payments); ' +
        "held: sent by an account the operator's address screening blocks, held by the operator: never credited, " +
        'never sent back by itself',
    },
  ),
  amount: { ...TokenAmount, description: 'underpaid: all received so far; overpaid: the excess; else the transfer' },
  expected: Type.Optional({ ...TokenAmount, description: 'underpaid: what the payment asks for in that token' }),
  transaction: Type.Object({ networkId: Type.String(), hash: Type.String() }),
  fromAccountCaip10: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  refundId: Type.Optional(Type.String({ description: 'The refund sending it back, once asked for' })),
  acceptedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'paid_late: when the merchant accepted it as the payment (`POST /v1/payments/{id}/exceptions/{exceptionId}/accept`)',
    }),
  ),
});

/** An amount of the payment's currency without its display (the payment's own `fiatAmount` has it). */
function CurrencyAmount(description: string) {
  return Type.Object(
    { unit: Type.String({ description: '`iso4217/<CODE>`' }), value: Type.String({ description: 'Minor units' }) },
    { description },
  );
}

export const PaymentItem = Type.Object({
  paymentId: Type.String(),
  merchant: Type.Object({
    id: Type.String(),
    name: Type.Optional(Type.String()),
    iconUrl: Type.Optional(Nullable(Type.String())),
  }),
  referenceId: Type.String(),
  source: Type.Union(
    PAYMENT_SOURCES.map((source) => Type.Literal(source)),
    {
      description:
        "api: created by a partner (`POST /v1/payments`, `POST /v1/merchant/payment`); x402: made by the x402 facilitator when it settled an agent's payment (`POST /v1/x402/settle`); payment_link: made by a visit to a payment link (`paymentLinkId` names it); point_of_sale: charged on a paired point-of-sale device",
    },
  ),
  paymentLinkId: Type.Optional(Type.String({ description: 'paygate extension: the payment link whose visit made it' })),
  status: Type.Union(
    ['requires_action', 'processing', 'succeeded', 'failed', 'expired'].map((status) => Type.Literal(status)),
  ),
  isTerminal: Type.Boolean(),
  cancelled: Type.Optional(
    Type.Literal(true, {
      description:
        'Present on a cancelled payment (by the merchant before it was paid, or declined by the buyer), which the lists name `failed`',
    }),
  ),
  fiatAmount: Type.Optional(FiatAmount),
  tokenAmount: Type.Optional(TokenAmount),
  buyer: Type.Optional(
    Type.Object({
      accountCaip10: Type.String(),
      accountProviderName: Type.Optional(Type.String()),
      accountProviderIcon: Type.Optional(Type.String()),
    }),
  ),
  transaction: Type.Optional(
    Type.Object({ networkId: Type.String(), hash: Type.Optional(Type.String()), nonce: Type.Optional(Type.Integer()) }),
  ),
  fees: Type.Optional(
    Type.Object({ total: TokenAmount, fixed: Type.Optional(TokenAmount), percentage: Type.Optional(Type.String()) }),
  ),
  settlement: Type.Optional(Settlement),
  refundedAmount: Type.Optional(
    CurrencyAmount('Once the payment has refunds: what the succeeded refunds of its amount returned'),
  ),
  pendingRefundAmount: Type.Optional(
    CurrencyAmount('Once the payment has refunds: what the refunds of its amount still on their way (pending) return'),
  ),
  exceptions: Type.Optional(
    Type.Array(PaymentExceptionView, {
      description: 'What the buyer sent that did not simply pay the payment; absent when nothing did',
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  lastUpdatedAt: Type.String({ format: 'date-time' }),
  settledAt: Type.Optional(Type.String({ format: 'date-time' })),
});

export function fiatAmountOf(currencyCode: string, minorUnits: string) {
  const currency = fiatCurrency(currencyCode);
  return {
    unit: `iso4217/${currencyCode}`,
    value: minorUnits,
    display: {
      assetSymbol: currency?.symbol ?? currencyCode,
      assetName: currency?.name ?? currencyCode,
      decimals: currency?.decimals ?? 2,
    },
  };
}

export function tokenAmountOf(chains: ChainRegistry, asset: string, value: string) {
  const token = chains.token(asset);
  const network = token && chains.network(token.chain);
  return {
    unit: `caip19/${asset}`,
    value,
    display: token
      ? {
          assetSymbol: token.symbol,
          assetName: token.name,
          decimals: token.decimals,
          ...(token.iconUrl ? { iconUrl: token.iconUrl } : {}),
          ...(network ? { networkName: network.name } : {}),
          ...(network?.iconUrl ? { networkIconUrl: network.iconUrl } : {}),
        }
      : null,
  };
}

/** A payment exception as the API shows it. */
function toPaymentExceptionView(chains: ChainRegistry, exception: PaymentException) {
  return {
    id: exception.id,
    type: exception.type,
    amount: tokenAmountOf(chains, exception.asset, exception.amount),
    ...(exception.expected ? { expected: tokenAmountOf(chains, exception.asset, exception.expected) } : {}),
    transaction: { networkId: exception.network.slice(exception.network.indexOf(':') + 1), hash: exception.txHash },
    fromAccountCaip10: exception.from,
    createdAt: exception.at,
    ...(exception.refundId ? { refundId: exception.refundId } : {}),
    ...(exception.acceptedAt ? { acceptedAt: exception.acceptedAt } : {}),
  };
}

/**
 * The payment as the merchant list and `GET /v1/payments/{id}` show it; objects without data are omitted. Its refund
 * amounts are read apart, for a whole page at once (`refundAmountsOf`).
 */
export function toPaymentItem(
  row: PaymentRow,
  merchant: Pick<MerchantRow, 'id' | 'name' | 'logo_file'>,
  chains: ChainRegistry,
  baseUrl: string,
  now: Date,
) {
  const status = effectiveStatus(row, now);
  const token = (value: string | null) =>
    row.token_asset && value !== null ? tokenAmountOf(chains, row.token_asset, value) : undefined;
  const tokenAmount = token(row.token_value);
  const feeTotal = token(row.fee_total);
  const feeFixed = token(row.fee_fixed);
  const settledAmount = token(row.settlement_amount);
  const settled = row.settlement_tx_hash !== null && row.settled_at !== null && settledAmount !== undefined;
  return {
    paymentId: row.id,
    merchant: {
      id: merchant.id,
      name: merchant.name,
      iconUrl: merchant.logo_file ? logoUrl(baseUrl, merchant.logo_file) : null,
    },
    referenceId: row.reference_id,
    source: paymentSource(row),
    ...(row.payment_link_id ? { paymentLinkId: row.payment_link_id } : {}),
    status: listStatusName(status),
    isTerminal: isTerminal(status),
    ...(status === 'cancelled' ? { cancelled: true as const } : {}),
    fiatAmount: fiatAmountOf(row.fiat_currency, row.fiat_value),
    ...(tokenAmount ? { tokenAmount } : {}),
    ...(row.buyer_account
      ? {
          buyer: {
            accountCaip10: row.buyer_account,
            ...(row.buyer_provider_name ? { accountProviderName: row.buyer_provider_name } : {}),
            ...(row.buyer_provider_icon ? { accountProviderIcon: row.buyer_provider_icon } : {}),
          },
        }
      : {}),
    ...(row.network
      ? {
          transaction: {
            networkId: row.network.slice(row.network.indexOf(':') + 1),
            ...(row.tx_hash ? { hash: row.tx_hash } : {}),
            ...(row.tx_nonce !== null ? { nonce: Number(row.tx_nonce) } : {}),
          },
        }
      : {}),
    ...(feeTotal
      ? {
          fees: {
            total: feeTotal,
            ...(feeFixed ? { fixed: feeFixed } : {}),
            ...(row.fee_percentage ? { percentage: row.fee_percentage } : {}),
          },
        }
      : {}),
    ...(status === 'succeeded'
      ? {
          settlement: settled
            ? { settled: true, amount: settledAmount, txHash: row.settlement_tx_hash as string }
            : { settled: false },
        }
      : {}),
    ...(row.exceptions.length
      ? { exceptions: row.exceptions.map((exception) => toPaymentExceptionView(chains, exception)) }
      : {}),
    createdAt: row.created_at.toISOString(),
    lastUpdatedAt: row.updated_at.toISOString(),
    ...(settled && row.settled_at ? { settledAt: row.settled_at.toISOString() } : {}),
  };
}

const PaidInfo = Type.Object({
  optionAmount: { ...TokenAmount, description: 'The amount of the option the buyer paid, in its token' },
  txId: Type.String({ description: 'The hash (on Solana the signature) of the transaction that paid' }),
});

/** What the buyer paid and with which transaction, once the payment's transaction is known. */
function paidInfo(row: PaymentRow, chains: ChainRegistry) {
  return row.token_asset && row.token_value && row.tx_hash
    ? { optionAmount: tokenAmountOf(chains, row.token_asset, row.token_value), txId: row.tx_hash }
    : null;
}

/**
 * `GET /v1/payments/{id}`: the list item, with what was paid, why a failed payment failed and its settlement transfer.
 * Its status is the payment's own, `cancelled` included, as the operation's document and the payment's status, the
 * gateway and the timeline say; only the list folds a cancelled payment into `failed` (D9).
 */
export const PaymentDetail = Type.Object({
  ...PaymentItem.properties,
  status: Type.Union(
    ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'].map((status) =>
      Type.Literal(status),
    ),
  ),
  settlement: Type.Optional(
    Type.Object({
      ...Settlement.properties,
      successful: Type.Optional(
        Type.Object(
          { txId: Type.String(), amount: TokenAmount },
          { description: 'Once settled: the settlement transfer and the amount it paid the merchant' },
        ),
      ),
    }),
  ),
  info: Type.Optional({ ...PaidInfo, description: 'Once the paying transaction is known; absent before' }),
  failureCode: Type.Optional(
    Type.String({ description: 'Why a failed payment failed, when known (e.g. transfer_reverted)' }),
  ),
});

export function toPaymentDetail(
  row: PaymentRow,
  merchant: Pick<MerchantRow, 'id' | 'name' | 'logo_file'>,
  chains: ChainRegistry,
  baseUrl: string,
  now: Date,
) {
  const item = toPaymentItem(row, merchant, chains, baseUrl, now);
  const { settlement } = item;
  const status = effectiveStatus(row, now);
  const info = paidInfo(row, chains);
  const failureCode = status === 'failed' ? effectiveFailureCode(row, now) : undefined;
  return {
    ...item,
    status,
    ...(settlement?.settled && settlement.amount && settlement.txHash
      ? { settlement: { ...settlement, successful: { txId: settlement.txHash, amount: settlement.amount } } }
      : {}),
    ...(info ? { info } : {}),
    ...(failureCode ? { failureCode } : {}),
  };
}

export const PaymentStatusView = Type.Object({
  status: Type.String(),
  isFinal: Type.Boolean(),
  pollInMs: Type.Optional(Type.Integer({ minimum: 0 })),
  info: Nullable(PaidInfo),
  failureCode: Type.Optional(Type.String()),
});

/** The gateway-style status (D8, D10): `info` once succeeded, `failureCode` only when failed. */
export function toStatusView(row: PaymentRow, chains: ChainRegistry, now: Date) {
  const status = effectiveStatus(row, now);
  const pollInMs = pollHintMs(status);
  return {
    status,
    isFinal: isTerminal(status),
    ...(pollInMs === undefined ? {} : { pollInMs }),
    info: status === 'succeeded' ? paidInfo(row, chains) : null,
    ...(status === 'failed' ? { failureCode: effectiveFailureCode(row, now) ?? 'failed' } : {}),
  };
}
