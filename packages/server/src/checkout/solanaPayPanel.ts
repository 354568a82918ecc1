import type { AppContext } from '../context.ts';
import type { PaymentRow } from '../payments/paymentResource.ts';
import { solanaPayRequestFor } from '../solanaPay/solanaPayRequests.ts';
import { transactionRequestLink } from '../solanaPay/transactionRequestSchemas.ts';
import { transferRequestUri } from '../solanaPay/transferRequestUri.ts';
import type { AcceptedChoice } from './checkoutPage.ts';
import { qrCodeSvg } from './qrCode.ts';
import { attributes, html, lines, type SafeHtml, trustedHtml } from './html.ts';

/** The message a wallet shows under the merchant's name. */
function requestMessage(payment: Pick<PaymentRow, 'id'>): string {
  return `Payment ${payment.id}`;
}

/**
 * A Solana Pay transfer request for each SPL token the payment can be paid with: its QR code and its text to copy,
 * for any Solana wallet. Each panel is shown while its token is the chosen one (without JavaScript, the preselected
 * one). The first page load makes the payment's request in the token: a fresh reference key and the quoted amount.
 */
export async function solanaPayPanels(
  ctx: AppContext,
  payment: PaymentRow,
  merchantName: string,
  accepted: readonly AcceptedChoice[],
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
        message: requestMessage(payment),
      });
      const id = `solana-pay-${request.reference}`;
      return html`<section class="any-wallet solana-pay"${attributes({ id, 'data-pay-panel': '', 'data-asset': choice.asset })}${choice.checked ? '' : html` hidden`} aria-labelledby="${id}-heading">
  <h3 id="${id}-heading">Pay ${choice.amountText} from any Solana wallet</h3>
  <figure class="qr">
${trustedHtml(await qrCodeSvg(uri, `Solana Pay QR code: ${choice.amountText} on ${choice.networkName}`))}
    <figcaption>Scan with a Solana Pay wallet. It sends exactly ${choice.amountText} on ${choice.networkName}.</figcaption>
  </figure>
  <p><a class="button" href="${uri}">Open in a Solana wallet</a></p>
  <p class="solana-pay-sponsored">No SOL for the fee? <a${attributes({ href: transactionRequestLink(ctx.config.baseUrl, request.reference), 'data-solana-pay-transaction-request': '' })}>Pay with the fee paid for you</a> in a wallet that takes Solana Pay transaction requests.</p>
  <p><label for="${id}-uri">Solana Pay request</label> <input type="text" readonly class="copy-text"${attributes({ id: `${id}-uri`, value: uri, 'data-solana-pay-uri': '' })}> <button type="button" class="button copy" ${attributes({ 'data-copy': `${id}-uri` })} hidden>Copy</button></p>
</section>`;
    }),
  );
  return lines(panels);
}
