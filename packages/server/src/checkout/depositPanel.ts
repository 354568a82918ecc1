import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';
import { copyButton } from './copyButton.ts';
import { attributes, figure, html, lines, type SafeHtml, trustedHtml } from './html.ts';
import { qrCodeSvg } from './qrCode.ts';
import { translatedHtml } from './translatedHtml.ts';
import { wayChoice } from './wayChoice.ts';

/** One listed ERC-20 token paid by a plain transfer to the payment's deposit address, from any wallet. */
export interface DepositChoice {
  /** CAIP-19 id of the token: the accepted list's radio value that shows this panel. */
  asset: string;
  network: string;
  networkName: string;
  chainId: number;
  symbol: string;
  /** The token's contract; absent for the native coin. */
  tokenAddress?: string;
  /** The payment's deposit address. */
  address: string;
  /** Token minor units, fixed for the payment. */
  amount: string;
  amountText: string;
  /** The amount as a wallet's amount field takes it, e.g. `10.5`. */
  decimalAmount: string;
  /** The same exact amount for a person to read, in the page's language: `10,5` in German. */
  exactAmountText: string;
  /** The EIP-681 request the QR code carries. */
  uri: string;
  checked: boolean;
  /** What transfers of less than asked brought so far: the amount above is then the rest. */
  receivedText?: string;
}

/**
 * "Pay from any wallet" for each token and native coin on an EVM network, in two ways the buyer chooses between:
 * scan (or open) the EIP-681 request, which fills in the address, token and amount; or send by hand to the
 * payment's deposit address, shown as text with the exact amount, the network and the token's contract. Shown while
 * its token is the chosen one (the page's script follows the pick; without JavaScript, the preselected one shows).
 */
export async function depositPanels(choices: readonly DepositChoice[], t: Translator): Promise<SafeHtml | undefined> {
  if (!choices.length) return undefined;
  const panels = await Promise.all(
    choices.map(async (choice) => {
      const id = `deposit-${choice.chainId}-${choice.symbol.toLowerCase()}`;
      const amount = choice.amountText;
      const network = choice.networkName;
      const [requestQr, addressQr] = await Promise.all([
        qrCodeSvg(choice.uri, t('deposit.qrLabel', { amount, network })),
        qrCodeSvg(choice.address, t('deposit.addressQrLabel', { network })),
      ]);
      const heading = choice.receivedText
        ? translatedHtml(t, 'deposit.headingRest', { amount: figure(amount) })
        : translatedHtml(t, 'deposit.heading', { amount: figure(amount) });
      return html`<section class="any-wallet evm-deposit"${attributes({ id, 'data-pay-panel': '', 'data-asset': choice.asset, 'data-deposit-uri': choice.uri })}${choice.checked ? '' : html` hidden`} aria-labelledby="${id}-heading">
  <h3 id="${id}-heading">${heading}</h3>${
    choice.receivedText
      ? html`
  <p class="deposit-received" role="status">${translatedHtml(t, 'deposit.received', { amount: figure(choice.receivedText) })}</p>`
      : ''
  }
  ${wayChoice(id, `${id}-heading`, t)}
  <div class="way-part" data-way="scan">
    <p class="way-hint">${t('deposit.scanHint')}</p>
    <figure class="qr">
${trustedHtml(requestQr)}
    </figure>
    <p class="open-in-wallet"><a class="button" href="${choice.uri}">${t('deposit.open')}</a></p>
  </div>
  <div class="way-part" data-way="send">
    <p class="way-hint">${t('deposit.sendHint', { network })}</p>
    <figure class="qr-address">
${trustedHtml(addressQr)}
    </figure>
    <dl class="send-details">
      <div><dt>${t('deposit.address')}</dt><dd><code class="address" data-deposit-address>${choice.address}</code> ${copyButton(t('deposit.copyAddress'), choice.address)}</dd></div>
      <div><dt>${t('deposit.exactAmount')}</dt><dd><span class="figure"><span data-deposit-amount>${choice.exactAmountText}</span> ${choice.symbol}</span> ${copyButton(t('deposit.copyAmount'), choice.decimalAmount)}</dd></div>
      <div><dt>${t('deposit.network')}</dt><dd data-deposit-network>${t('deposit.networkValue', { network, chainId: String(choice.chainId) })}</dd></div>${
        choice.tokenAddress
          ? html`
      <div><dt>${t('deposit.contract', { symbol: choice.symbol })}</dt><dd><code class="address">${choice.tokenAddress}</code></dd></div>`
          : ''
      }
    </dl>
  </div>
</section>`;
    }),
  );
  return lines(panels);
}
