import { attributes, html, lines, type SafeHtml, trustedHtml } from './html.ts';

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
  qrSvg: string;
  checked: boolean;
  /** What transfers of less than asked brought so far: the amount above is then the rest. */
  receivedText?: string;
}

function copyable(id: string, label: string, value: string, data: Record<string, string>): SafeHtml {
  return html`<p><label for="${id}">${label}</label> <input type="text" readonly class="copy-text"${attributes({ id, value, ...data })}> <button type="button" class="button copy"${attributes({ 'data-copy': id })} hidden>Copy</button></p>`;
}

/**
 * "Send from any wallet" for each ERC-20 token on an EVM network: the payment's deposit address, the exact amount
 * and the network, each to copy, and an EIP-681 QR code a phone wallet reads. Shown while its token is the chosen
 * one (the page's script follows the pick; without JavaScript, the preselected one shows).
 */
export function depositPanels(choices: readonly DepositChoice[]): SafeHtml | undefined {
  if (!choices.length) return undefined;
  const panels = choices.map((choice) => {
    const id = `deposit-${choice.chainId}-${choice.symbol.toLowerCase()}`;
    return html`<section class="any-wallet evm-deposit"${attributes({ id, 'data-pay-panel': '', 'data-asset': choice.asset, 'data-deposit-uri': choice.uri })}${choice.checked ? '' : html` hidden`} aria-labelledby="${id}-heading">
  <h3 id="${id}-heading">${choice.receivedText ? `Send the remaining ${choice.amountText}` : `Send ${choice.amountText} from any wallet`}</h3>${
    choice.receivedText
      ? html`
  <p class="deposit-received" role="status">Received ${choice.receivedText} so far, less than the payment asks.</p>`
      : ''
  }
  <figure class="qr">
${trustedHtml(choice.qrSvg)}
    <figcaption>Scan with a wallet app. Send exactly ${choice.decimalAmount} ${choice.symbol} on ${choice.networkName} to this payment's own address. If you send less, the rest is asked for here; another token does not pay it.</figcaption>
  </figure>
  ${copyable(`${id}-address`, 'Address', choice.address, { 'data-deposit-address': '' })}
  ${copyable(`${id}-amount`, `Amount (${choice.symbol})`, choice.decimalAmount, { 'data-deposit-amount': '' })}
  ${copyable(`${id}-network`, 'Network', `${choice.networkName} (chain id ${choice.chainId})`, {
    'data-deposit-network': '',
  })}
  ${choice.tokenAddress ? copyable(`${id}-token`, `${choice.symbol} contract`, choice.tokenAddress, {}) : ''}
</section>`;
  });
  return lines(panels);
}
