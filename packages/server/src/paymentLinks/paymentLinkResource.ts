import { type Static, Type } from '@sinclair/typebox';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, PaymentLinksTable } from '../db/schema.ts';
import { Nullable } from '../http/schemas.ts';
import { Stats } from '../payments/listStatistics.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_QUANTITY, MAX_USES } from './paymentLinkTerms.ts';

export type PaymentLinkRow = Selectable<PaymentLinksTable>;

export const PAYMENT_LINK_STATUSES = ['active', 'inactive', 'expired', 'spent'] as const;
export type PaymentLinkStatus = (typeof PAYMENT_LINK_STATUSES)[number];

const MinorUnits = Type.String({
  maxLength: 32,
  description: 'Positive integer in the currency minor units, e.g. `1000` for 10.00 USD',
});

export const FixedPrice = Type.Object(
  { unit: Type.String({ maxLength: 16, description: '`iso4217/<CODE>`, e.g. `iso4217/USD`' }), value: MinorUnits },
  {
    additionalProperties: false,
    description: 'A fixed price per item: each visit pays it (times the quantity chosen)',
  },
);

export const BuyerChosenPrice = Type.Object(
  {
    unit: Type.String({ maxLength: 16, description: '`iso4217/<CODE>`, e.g. `iso4217/USD`' }),
    minimum: MinorUnits,
    maximum: MinorUnits,
    preset: Type.Optional(Nullable({ ...MinorUnits, description: 'The amount the page suggests; between the bounds' })),
  },
  { additionalProperties: false, description: 'The buyer chooses the amount, within these bounds' },
);

/** The terms a create takes and an update may change. */
export const LinkTermsFields = {
  amount: Type.Optional(Nullable(FixedPrice)),
  customAmount: Type.Optional(Nullable(BuyerChosenPrice)),
  imageUrl: Type.Optional(
    Nullable(Type.String({ maxLength: 2048, description: 'An HTTPS image the page shows; the buyer loads it' })),
  ),
  quantity: Type.Optional(
    Nullable(
      Type.Object(
        { maximum: Type.Integer({ minimum: 1, maximum: MAX_QUANTITY }) },
        { additionalProperties: false, description: 'The buyer chooses how many (1 to maximum) of a fixed price' },
      ),
    ),
  ),
  maxUses: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: MAX_USES,
        description:
          'How many payments the link may hold: succeeded ones, and open ones until they end unpaid. Once as many succeeded, the link is spent.',
      }),
    ),
  ),
  expiresAt: Type.Optional(Nullable(Type.Integer({ description: 'Unix seconds when the link stops making payments' }))),
};

export const Description = Type.String({
  minLength: 1,
  maxLength: MAX_DESCRIPTION_LENGTH,
  description: 'What the buyer pays for, shown on the page',
});

export const PaymentLink = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'The public page: each visit makes a new payment and goes to its checkout' }),
  merchantId: Type.String(),
  status: Type.Union(
    PAYMENT_LINK_STATUSES.map((status) => Type.Literal(status)),
    {
      description:
        'active: takes visits; inactive: deactivated; expired: past expiresAt; spent: maxUses payments succeeded',
    },
  ),
  active: Type.Boolean(),
  description: Type.String(),
  amount: Nullable(FixedPrice),
  customAmount: Nullable(BuyerChosenPrice),
  imageUrl: Nullable(Type.String()),
  quantity: Nullable(Type.Object({ maximum: Type.Integer() })),
  maxUses: Nullable(Type.Integer()),
  uses: Type.Integer({ description: 'Payments that count against maxUses now: succeeded, and open ones' }),
  expiresAt: Nullable(Type.Integer({ description: 'Unix seconds' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  stats: Type.Optional({
    ...Stats,
    description: "The link's payments, as GET /v1/payments?paymentLinkId= shows them in its stats",
  }),
});

export type PaymentLinkView = Static<typeof PaymentLink>;

/** Payments of the link that hold a use: succeeded, and those a buyer may still pay (`now`) or is paying. */
export async function usesOfLinks(
  db: Kysely<Database>,
  linkIds: readonly string[],
  now: Date,
): Promise<Map<string, { held: number; succeeded: number }>> {
  if (!linkIds.length) return new Map();
  const rows = await db
    .selectFrom('payments')
    .select([
      'payment_link_id',
      sql<string>`count(*) FILTER (WHERE status IN ('processing', 'succeeded') OR (status = 'requires_action' AND expires_at > ${now}))`.as(
        'held',
      ),
      sql<string>`count(*) FILTER (WHERE status = 'succeeded')`.as('succeeded'),
    ])
    .where('payment_link_id', 'in', linkIds)
    .groupBy('payment_link_id')
    .execute();
  return new Map(
    rows.map((row) => [row.payment_link_id!, { held: Number(row.held), succeeded: Number(row.succeeded) }]),
  );
}

export function linkStatusOf(link: PaymentLinkRow, succeeded: number, now: Date): PaymentLinkStatus {
  if (!link.active) return 'inactive';
  if (link.expires_at && link.expires_at <= now) return 'expired';
  if (link.max_uses !== null && succeeded >= link.max_uses) return 'spent';
  return 'active';
}

export function paymentLinkUrl(checkoutUrl: string, linkId: string): string {
  return `${checkoutUrl.replace(/\/+$/, '')}/l/${linkId}`;
}

export function toPaymentLinkView(
  link: PaymentLinkRow,
  uses: { held: number; succeeded: number } | undefined,
  context: { checkoutUrl: string; now: Date },
): PaymentLinkView {
  const unit = `iso4217/${link.currency}`;
  return {
    id: link.id,
    url: paymentLinkUrl(context.checkoutUrl, link.id),
    merchantId: link.merchant_id,
    status: linkStatusOf(link, uses?.succeeded ?? 0, context.now),
    active: link.active,
    description: link.description,
    amount: link.amount === null ? null : { unit, value: link.amount },
    customAmount:
      link.minimum_amount === null || link.maximum_amount === null
        ? null
        : { unit, minimum: link.minimum_amount, maximum: link.maximum_amount, preset: link.preset_amount },
    imageUrl: link.image_url,
    quantity: link.max_quantity === null ? null : { maximum: link.max_quantity },
    maxUses: link.max_uses,
    uses: uses?.held ?? 0,
    expiresAt: link.expires_at ? Math.floor(link.expires_at.getTime() / 1000) : null,
    createdAt: link.created_at.toISOString(),
    updatedAt: link.updated_at.toISOString(),
  };
}
