import type { AppContext } from '../context.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { solanaPayRequestFor } from '../solanaPay/solanaPayRequests.ts';
import { transactionRequestLink } from '../solanaPay/transactionRequestSchemas.ts';
import { transferRequestUri } from '../solanaPay/transferRequestUri.ts';
import type { AcceptedChoice } from './checkoutPage.ts';
import { qrCodeSvg } from './qrCode.ts';
import { copyButton } from './copyButton.ts';
import { attributes, figure, html, lines, type SafeHtml, trustedHtml } from './html.ts';
import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';
import { translatedHtml } from './translatedHtml.ts';

/**
 * A Solana Pay transfer request for each SPL token the payment can be paid with, for any Solana wallet: its QR code
 * to scan, a link that opens it in a wallet on this device, and a button that copies it. There is no address to
 * send to by hand: a transfer is matched to its payment by the request's reference key. Each panel is shown while
 * its token is the chosen one (without JavaScript, the preselected one). The first page load makes the payment's
 * request in the token: a fresh reference key and the quoted amount.
 */
export async function solanaPayPanels(
  ctx: AppContext,
  payment: PaymentRow,
  merchantName: string,
  accepted: readonly AcceptedChoice[],
  t: Translator,
): Promise<SafeHtml | undefined> {
  const solana = ctx.chainServices?.solana;
  if (!solana) return undefined;
  const requested = accepted.flatMap((choice) => {
    const token = ctx.chains.token(choice.asset);
    if (choice.namespace !== 'solana' || !token || token.method !== 'spl' || !solana.networks.has(choice.network))
      return [];
    return [{ choice, token }];
  });
  if (!requested.length) return undefined;
  const panels = await Promise.all(
    requested.map(async ({ choice, token }) => {
      const request = await solanaPayRequestFor(ctx.db, {
        payment,
        network: choice.network,
        asset: choice.asset,
        mint: token.address,
        decimals: token.decimals,
        recipient: solana.collector.address,
        amount: BigInt(choice.amount),
      });
      const uri = transferRequestUri({
        recipient: request.recipient,
        amount: BigInt(request.amount),
        decimals: request.decimals,
        splToken: request.mint,
        references: [request.reference],
        label: merchantName,
        // What a wallet shows under the merchant's name.
        message: t('solanaPay.walletMessage', { reference: payment.id }),
      });
      const id = `solana-pay-${request.reference}`;
      const amount = choice.amountText;
      const network = choice.networkName;
      const feePaidLink = html`<a${attributes({ href: transactionRequestLink(ctx.config.baseUrl, request.reference), 'data-solana-pay-transaction-request': '' })}>${t('solanaPay.feePaidLink')}</a>`;
      return html`<section class="any-wallet solana-pay"${attributes({ id, 'data-pay-panel': '', 'data-asset': choice.asset })}${choice.checked ? '' : html` hidden`} aria-labelledby="${id}-heading">
  <h3 id="${id}-heading">${translatedHtml(t, 'solanaPay.heading', { amount: figure(amount) })}</h3>
  <p class="way-hint">${t('solanaPay.caption', { amount, network })}</p>
  <figure class="qr">
${trustedHtml(await qrCodeSvg(uri, t('solanaPay.qrLabel', { amount, network })))}
  </figure>
  <p class="open-in-wallet"><a class="button" href="${uri}" data-solana-pay-uri>${t('solanaPay.open')}</a> ${copyButton(t('solanaPay.copyRequest'), uri)}</p>
  <p class="solana-pay-sponsored">${translatedHtml(t, 'solanaPay.feePaid', { link: feePaidLink })}</p>
</section>`;
    }),
  );
  return lines(panels);
}
