import type { PaymentStatus } from '../db/schema.ts';
import { failureExplanation, type RedirectTargets, redirectFor, refreshSecondsFor } from './checkoutView.ts';
import { attributes, html, lines, page, type SafeHtml, trustedHtml } from './html.ts';

export interface PageAssets {
  scriptUrl: string;
  styleUrl: string;
  iconUrl: string;
}

/** One network and token the payment can be paid with, as the page lists it before any wallet connects. */
export interface AcceptedChoice {
  /** CAIP-19 id of the token. */
  asset: string;
  /** CAIP-2 id of the network. */
  network: string;
  namespace: 'eip155' | 'solana';
  networkName: string;
  /** Token minor units due, as the gateway quotes them. */
  amount: string;
  /** The amount as a person reads it, e.g. `10 USDC`. */
  amountText: string;
  checked: boolean;
}

export interface CheckoutPageModel {
  paymentId: string;
  /** The link the QR code carries: `{checkout_url}/<paymentId>`. */
  paymentLink: string;
  status: PaymentStatus;
  merchantName: string;
  logoUrl: string | null;
  amountText: string;
  expiresAt: Date;
  /** The server's time when rendering, so the page's countdown follows the server clock. */
  now: Date;
  timeLeftText: string;
  qrSvg: string;
  redirect: RedirectTargets | undefined;
  /** The token amount paid, once succeeded (e.g. `10 USDC on Base`). */
  paidText: string | undefined;
  /** Why the payment failed, when it did (`failureCode`). */
  failureCode?: string | undefined;
  /** The explorer page of the paying transaction, once succeeded on a network with an explorer. */
  transactionLink: string | undefined;
  /** Explorers by CAIP-2 id, for the link the script adds when the payment succeeds while open. */
  explorerUrls: Record<string, string>;
  /** Whether the merchant takes payments now: one an operator suspended (or deleted) is offered no way to pay. */
  takingPayments: boolean;
  /** The networks and tokens the payment can be paid with and the amount in each, the preselected one checked. */
  accepted: AcceptedChoice[];
  /** Ways to pay the chosen option from any wallet (Solana Pay requests), one panel per option that has one. */
  anyWalletPanels?: SafeHtml | undefined;
  /** Where the script follows what partial transfers brought (`followReceived.ts`), and what they brought so far. */
  received?: { url: string; fingerprint: string } | undefined;
  locale: string;
  /** Where the page's script calls the gateway (`BASE_URL`) and with which public App-Id. */
  apiBaseUrl: string;
  appId: string;
  assets: PageAssets;
}

function view(status: PaymentStatus, current: PaymentStatus, content: SafeHtml): SafeHtml {
  return html`<section class="view view-${status}" data-view="${status}"${status === current ? '' : html` hidden`} aria-labelledby="heading-${status}">
${content}
</section>`;
}

function heading(status: PaymentStatus, text: string): SafeHtml {
  return html`<h2 id="heading-${status}" tabindex="-1">${text}</h2>`;
}

function returnLink(status: PaymentStatus, model: CheckoutPageModel): SafeHtml | undefined {
  const target = redirectFor(status, model.redirect);
  if (!target) return undefined;
  return html`<p class="redirect-note" data-redirect-note>Returning you to ${model.merchantName}…</p>
<p><a class="button" href="${target}">Continue to ${model.merchantName}</a></p>`;
}

/**
 * The networks and tokens the payment can be paid with and the amount in each, as radio buttons: readable without
 * JavaScript, and with it the buyer's pick of how to pay. Nothing when no token can be priced now.
 */
function acceptedList(accepted: readonly AcceptedChoice[]): SafeHtml | undefined {
  if (!accepted.length) return undefined;
  const choices = accepted.map(
    (choice) =>
      html`<label class="option"><input type="radio" name="accepted"${attributes({
        value: choice.asset,
        'data-network': choice.network,
        'data-namespace': choice.namespace,
        'data-network-name': choice.networkName,
        'data-amount': choice.amount,
      })}${choice.checked ? html` checked` : ''}><span><span class="option-amount">${choice.amountText}</span> <span class="option-network">${choice.networkName}</span></span></label>`,
  );
  return html`<fieldset class="accepted" id="accepted">
  <legend id="accepted-legend">Choose how to pay</legend>
  <div class="option-list accepted-list">
${lines(choices)}
  </div>
  <noscript><p class="no-wallet">Browser wallets need JavaScript: turn it on to pay from this device, or scan the QR code with a phone wallet.</p></noscript>
</fieldset>`;
}

/**
 * The place for paying the chosen option from any wallet, beside the browser wallets: a deposit address with the
 * exact amount, an EIP-681 or Solana Pay request as a QR code. Each panel names its option (`data-asset`); the page's
 * script shows the chosen option's panel only.
 */
function anyWalletPanel(model: CheckoutPageModel): SafeHtml | undefined {
  return model.anyWalletPanels;
}

/** How an open payment can be paid: the accepted tokens, the browser wallets, any wallet's panels, the QR code. */
function waysToPay(model: CheckoutPageModel): SafeHtml {
  // What the payment can be paid with comes first, then the way to pay with the chosen one: on a phone that is
  // the next step, and the QR code is for another device.
  return html`${acceptedList(model.accepted)}
<div class="browser-wallet" id="browser-wallet" hidden>
  <div class="pay-with" id="pay-with">
    <p class="pay-with-title" id="pay-with-title"></p>
    <div class="wallet-list" id="wallet-list" role="group" aria-labelledby="pay-with-title"></div>
    <p class="no-wallet" id="no-wallet" hidden></p>
  </div>
  <div class="wallet-collect" id="wallet-collect" hidden>
    <p>This payment asks for a few details about you before you pay. They go to the payment service only.</p>
  </div>
  <p class="wallet-progress" id="wallet-progress" aria-live="polite" hidden></p>
  <div class="wallet-error" id="wallet-error" role="alert" hidden>
    <p id="wallet-error-text"></p>
    <button type="button" class="button" id="wallet-retry">Try again</button>
  </div>
</div>
${anyWalletPanel(model)}
${model.accepted.length ? html`<p class="divider"><span>or</span></p>` : undefined}
${heading('requires_action', 'Scan to pay')}
<figure class="qr">
${trustedHtml(model.qrSvg)}
<figcaption>Scan with your phone's wallet app.</figcaption>
</figure>
<p class="payment-link">Or open the payment link in a wallet: <a href="${model.paymentLink}">${model.paymentLink}</a></p>
<p class="waiting"><span class="pulse" aria-hidden="true"></span> Waiting for your payment</p>`;
}

function statusViews(model: CheckoutPageModel): SafeHtml[] {
  const merchant = model.merchantName;
  const current = model.status;
  return [
    view(
      'requires_action',
      current,
      model.takingPayments
        ? waysToPay(model)
        : html`${heading('requires_action', 'Not taking payments')}
<p>${merchant} is not taking payments at the moment, so nothing is due now. Contact ${merchant} before you pay anything.</p>`,
    ),
    view(
      'processing',
      current,
      html`${heading('processing', 'Payment sent')}
<p>Your payment is being confirmed on the network. This page updates by itself.</p>
<p class="waiting"><span class="pulse" aria-hidden="true"></span> Confirming</p>`,
    ),
    view(
      'succeeded',
      current,
      html`${heading('succeeded', 'Payment complete')}
<p>${merchant} received your payment of <strong>${model.amountText}</strong>.</p>
<p class="paid-with" id="paid-with"${model.paidText ? '' : html` hidden`}>${model.paidText ? html`Paid with ${model.paidText}.` : ''}</p>
<p class="transaction-link" id="transaction-link"${model.transactionLink ? '' : html` hidden`}><a href="${model.transactionLink ?? ''}" rel="noreferrer">View transaction</a></p>
${returnLink('succeeded', model)}`,
    ),
    view(
      'failed',
      current,
      html`${heading('failed', 'Payment failed')}
<p id="failure-reason">${failureExplanation(model.failureCode, merchant)}</p>
${returnLink('failed', model)}`,
    ),
    view(
      'expired',
      current,
      html`${heading('expired', 'Payment expired')}
<p>The time to pay this link has run out. Ask ${merchant} for a new payment link.</p>
${returnLink('expired', model)}`,
    ),
    view(
      'cancelled',
      current,
      html`${heading('cancelled', 'Payment cancelled')}
<p>This payment was cancelled, so nothing is due. Ask ${merchant} for a new payment link if you still want to pay.</p>
${returnLink('cancelled', model)}`,
    ),
  ];
}

/** Without JavaScript the page reloads to follow the status, and moves on to the merchant once final. */
function noScriptRefresh(model: CheckoutPageModel): SafeHtml | undefined {
  const target = redirectFor(model.status, model.redirect);
  if (target) return html`<noscript><meta http-equiv="refresh" content="3;url=${target}"></noscript>`;
  const seconds = refreshSecondsFor(model.status);
  return seconds ? html`<noscript><meta http-equiv="refresh" content="${seconds}"></noscript>` : undefined;
}

function merchantMark(model: CheckoutPageModel): SafeHtml {
  if (model.logoUrl) return html`<img class="logo" src="${model.logoUrl}" alt="" width="64" height="64">`;
  const initial = [...model.merchantName.trim()][0]?.toUpperCase() ?? '?';
  return html`<span class="logo logo-initial" aria-hidden="true">${initial}</span>`;
}

/** The buyer checkout page, complete without JavaScript; its script only follows the status and adds the browser wallet. */
export function renderCheckoutPage(model: CheckoutPageModel): string {
  const data: Record<string, string> = {
    'data-payment-id': model.paymentId,
    'data-status': model.status,
    'data-expires-at': String(model.expiresAt.getTime()),
    'data-server-now': String(model.now.getTime()),
    'data-locale': model.locale,
    'data-merchant-name': model.merchantName,
    'data-api-base': model.apiBaseUrl,
    'data-app-id': model.appId,
    'data-explorer-urls': JSON.stringify(model.explorerUrls),
    ...(model.redirect ? { 'data-success-url': model.redirect.success, 'data-error-url': model.redirect.error } : {}),
    ...(model.received ? { 'data-received-url': model.received.url, 'data-received': model.received.fingerprint } : {}),
  };
  const body = html`<main class="checkout" id="checkout"${attributes(data)}>
<header class="merchant">
${merchantMark(model)}
<div>
<p class="eyebrow">Pay</p>
<h1>${model.merchantName}</h1>
</div>
</header>
<div class="summary">
<p class="amount"><span class="label">Amount</span> <strong id="amount">${model.amountText}</strong></p>
<p class="time-left" id="time-left-line"${model.status === 'requires_action' ? '' : html` hidden`}><span class="label">Time left</span> <time id="time-left" datetime="${model.expiresAt.toISOString()}">${model.timeLeftText}</time></p>
</div>
<p class="visually-hidden" id="status-announcer" role="status" aria-live="polite"></p>
${lines(statusViews(model))}
<footer class="reference">Reference <code>${model.paymentId}</code></footer>
</main>`;
  return page({
    title: `Pay ${model.amountText} to ${model.merchantName}`,
    stylesheet: model.assets.styleUrl,
    icon: model.assets.iconUrl,
    head: html`${noScriptRefresh(model)}
<script src="${model.assets.scriptUrl}" defer></script>`,
    body,
  });
}

/** The page for a link that names no payment this service knows: clear words, no details. */
export function renderNotFoundPage(assets: PageAssets): string {
  return page({
    title: 'Payment not found',
    stylesheet: assets.styleUrl,
    icon: assets.iconUrl,
    body: html`<main class="checkout not-found">
<h1>Payment not found</h1>
<p>This payment link does not match any payment. Check that the link is complete, or ask the shop for a new one.</p>
</main>`,
  });
}
