import { attributes, html, lines, type SafeHtml, trustedHtml } from './html.ts';
import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';
import { qrCodeSvg } from './qrCode.ts';

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
  /** The EIP-681 request the QR code carries. */
  uri: string;
  checked: boolean;
  /** What transfers of less than asked brought so far: the amount above is then the rest. */
  receivedText?: string;
}

function copyable(t: Translator, id: string, label: string, value: string, data: Record<string, string>): SafeHtml {
  return html`<p><label for="${id}">${label}</label> <input type="text" readonly class="copy-text"${attributes({ id, value, ...data })}> <button type="button" class="button copy"${attributes({ 'data-copy': id })} hidden>${t('page.copy')}</button></p>`;
}

/**
 * "Send from any wallet" for each ERC-20 token on an EVM network: the payment's deposit address, the exact amount
 * and the network, each to copy, and an EIP-681 QR code a phone wallet reads. Shown while its token is the chosen
 * one (the page's script follows the pick; without JavaScript, the preselected one shows).
 */
export async function depositPanels(choices: readonly DepositChoice[], t: Translator): Promise<SafeHtml | undefined> {
  if (!choices.length) return undefined;
  const panels = await Promise.all(
    choices.map(async (choice) => {
      const id = `deposit-${choice.chainId}-${choice.symbol.toLowerCase()}`;
      const amount = choice.amountText;
      const network = choice.networkName;
      const qrSvg = await qrCodeSvg(choice.uri, t('deposit.qrLabel', { amount, network }));
      return html`<section class="any-wallet evm-deposit"${attributes({ id, 'data-pay-panel': '', 'data-asset': choice.asset, 'data-deposit-uri': choice.uri })}${choice.checked ? '' : html` hidden`} aria-labelledby="${id}-heading">
  <h3 id="${id}-heading">${choice.receivedText ? t('deposit.headingRest', { amount }) : t('deposit.heading', { amount })}</h3>${
    choice.receivedText
      ? html`
  <p class="deposit-received" role="status">${t('deposit.received', { amount: choice.receivedText })}</p>`
      : ''
  }
  <figure class="qr">
${trustedHtml(qrSvg)}
    <figcaption>${t('deposit.caption', { amount: choice.decimalAmount, symbol: choice.symbol, network })}</figcaption>
  </figure>
  ${copyable(t, `${id}-address`, t('deposit.address'), choice.address, { 'data-deposit-address': '' })}
  ${copyable(t, `${id}-amount`, t('deposit.amount', { symbol: choice.symbol }), choice.decimalAmount, { 'data-deposit-amount': '' })}
  ${copyable(
    t,
    `${id}-network`,
    t('deposit.network'),
    t('deposit.networkValue', { network, chainId: String(choice.chainId) }),
    {
      'data-deposit-network': '',
    },
  )}
  ${choice.tokenAddress ? copyable(t, `${id}-token`, t('deposit.contract', { symbol: choice.symbol }), choice.tokenAddress, {}) : ''}
</section>`;
    }),
  );
  return lines(panels);
}
