import { formatMinorUnits } from '@paygate/client/money';
import { html, page } from '../checkout/html.ts';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import { effectiveStatus } from '../payments/stateMachine.ts';
import { chargeForReceipt, PaymentIdParams } from './charges.ts';
import { POINT_OF_SALE_PATH } from './devices.ts';
import { pointOfSaleAssets } from './pointOfSaleAssets.ts';

const STATUS_WORDS: Record<string, string> = {
  requires_action: 'Not paid yet',
  processing: 'Payment on its way',
  succeeded: 'Paid',
  failed: 'Not paid: the payment failed',
  expired: 'Not paid: the payment expired',
  cancelled: 'Not paid: cancelled',
};

/**
 * A point-of-sale payment's receipt, for the buyer: the shop, what was paid (with the tip) and when, and the
 * transaction. It is reached by the payment's id, as its checkout page is, and shows nothing more than that page
 * does but the tip; the cashier's note stays on the shop's side.
 */
export function registerShowReceipt(app: App, ctx: AppContext): void {
  app.get(
    `${POINT_OF_SALE_PATH}/receipts/:paymentId`,
    { config: { auth: false }, schema: { hide: true, params: PaymentIdParams } },
    async (request, reply) => {
      const charge = await chargeForReceipt(ctx, request.params.paymentId);
      if (!charge) throw ApiError.notFound('No such receipt.');
      const { style, icon } = await pointOfSaleAssets();
      const decimals = fiatCurrency(charge.fiat_currency)?.decimals ?? 2;
      const money = (value: string) => `${formatMinorUnits(BigInt(value), decimals)} ${charge.fiat_currency}`;
      const status = effectiveStatus(charge, ctx.clock.now());
      const body = html`<main class="receipt-page">
<h1>Receipt</h1>
<p class="receipt-shop">${charge.merchant_name}</p>
<p class="receipt-status ${status}">${STATUS_WORDS[status] ?? status}</p>
<dl>
<dt>Amount</dt><dd>${money(charge.base_value)}</dd>
${charge.tip_value === '0' ? undefined : html`<dt>Tip</dt><dd>${money(charge.tip_value)}</dd>`}
<dt>Total</dt><dd class="receipt-total">${money(String(charge.fiat_value))}</dd>
<dt>Date</dt><dd><time datetime="${charge.created_at.toISOString()}">${charge.created_at.toUTCString()}</time></dd>
<dt>Payment</dt><dd>${charge.id}</dd>
${charge.tx_hash ? html`<dt>Transaction</dt><dd class="hash">${charge.tx_hash}</dd>` : undefined}
${charge.token_symbol ? html`<dt>Paid in</dt><dd>${charge.token_symbol}</dd>` : undefined}
</dl>
</main>`;
      const receipt = page({
        title: `Receipt · ${charge.merchant_name}`,
        stylesheet: `${POINT_OF_SALE_PATH}/assets/${style.name}`,
        icon: `${POINT_OF_SALE_PATH}/assets/${icon.name}`,
        body,
      });
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(receipt);
    },
  );
}
