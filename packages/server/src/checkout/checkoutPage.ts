import type { PaymentStatus } from '../db/schema.ts';
import { type RedirectTargets, redirectFor, refreshSecondsFor } from './checkoutView.ts';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value made inert in HTML. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}

export interface PageAssets {
  scriptUrl: string;
  styleUrl: string;
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
  locale: string;
  /** Where the page's script calls the gateway (`BASE_URL`) and with which public App-Id. */
  apiBaseUrl: string;
  appId: string;
  /** CAIP-2 ids of the EVM chains the service accepts, for the browser wallet's options request. */
  evmChains: string[];
  assets: PageAssets;
}

function layout(options: { title: string; assets: PageAssets; head?: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="robots" content="noindex">
<title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="${escapeHtml(options.assets.styleUrl)}">
${options.head ?? ''}
</head>
<body>
${options.body}
</body>
</html>
`;
}

function view(status: PaymentStatus, current: PaymentStatus, content: string): string {
  return `<section class="view view-${status}" data-view="${status}"${status === current ? '' : ' hidden'} aria-labelledby="heading-${status}">
${content}
</section>`;
}

function heading(status: PaymentStatus, text: string): string {
  return `<h2 id="heading-${status}" tabindex="-1">${escapeHtml(text)}</h2>`;
}

function returnLink(status: PaymentStatus, model: CheckoutPageModel): string {
  const target = redirectFor(status, model.redirect);
  if (!target) return '';
  return `<p class="redirect-note" data-redirect-note>Returning you to ${escapeHtml(model.merchantName)}…</p>
<p><a class="button" href="${escapeHtml(target)}">Continue to ${escapeHtml(model.merchantName)}</a></p>`;
}

function statusViews(model: CheckoutPageModel): string {
  const merchant = escapeHtml(model.merchantName);
  const current = model.status;
  return [
    view(
      'requires_action',
      current,
      `${heading('requires_action', 'Scan to pay')}
<figure class="qr">
${model.qrSvg}
<figcaption>Scan with your phone's wallet app.</figcaption>
</figure>
<p class="payment-link">Or open the payment link in a wallet: <a href="${escapeHtml(model.paymentLink)}">${escapeHtml(model.paymentLink)}</a></p>
<div class="browser-wallet" id="browser-wallet" hidden>
  <p class="divider"><span>or</span></p>
  <button type="button" class="button primary" id="wallet-connect">Pay with a browser wallet</button>
  <form id="wallet-options" hidden>
    <fieldset>
      <legend id="wallet-options-legend">Choose how to pay</legend>
      <div id="wallet-option-list" class="option-list"></div>
    </fieldset>
    <button type="submit" class="button primary" id="wallet-pay">Pay</button>
  </form>
  <div class="wallet-collect" id="wallet-collect" hidden>
    <p>This payment asks for a few details about you before you pay. They go to the payment service only.</p>
  </div>
  <p class="wallet-progress" id="wallet-progress" hidden></p>
  <div class="wallet-error" id="wallet-error" role="alert" hidden>
    <p id="wallet-error-text"></p>
    <button type="button" class="button" id="wallet-retry">Try again</button>
  </div>
</div>
<p class="waiting"><span class="pulse" aria-hidden="true"></span> Waiting for your payment</p>`,
    ),
    view(
      'processing',
      current,
      `${heading('processing', 'Payment sent')}
<p>Your payment is being confirmed on the network. This page updates by itself.</p>
<p class="waiting"><span class="pulse" aria-hidden="true"></span> Confirming</p>`,
    ),
    view(
      'succeeded',
      current,
      `${heading('succeeded', 'Payment complete')}
<p>${merchant} received your payment of <strong>${escapeHtml(model.amountText)}</strong>.</p>
<p class="paid-with" id="paid-with"${model.paidText ? '' : ' hidden'}>${model.paidText ? `Paid with ${escapeHtml(model.paidText)}.` : ''}</p>
${returnLink('succeeded', model)}`,
    ),
    view(
      'failed',
      current,
      `${heading('failed', 'Payment failed')}
<p>The payment did not go through. If your wallet shows it as sent, contact ${merchant} and give them the reference below.</p>
${returnLink('failed', model)}`,
    ),
    view(
      'expired',
      current,
      `${heading('expired', 'Payment expired')}
<p>The time to pay this link has run out. Ask ${merchant} for a new payment link.</p>
${returnLink('expired', model)}`,
    ),
    view(
      'cancelled',
      current,
      `${heading('cancelled', 'Payment cancelled')}
<p>This payment was cancelled, so nothing is due. Ask ${merchant} for a new payment link if you still want to pay.</p>
${returnLink('cancelled', model)}`,
    ),
  ].join('\n');
}

/** Without JavaScript the page reloads to follow the status, and moves on to the merchant once final. */
function noScriptRefresh(model: CheckoutPageModel): string {
  const target = redirectFor(model.status, model.redirect);
  if (target) return `<noscript><meta http-equiv="refresh" content="3;url=${escapeHtml(target)}"></noscript>`;
  const seconds = refreshSecondsFor(model.status);
  return seconds ? `<noscript><meta http-equiv="refresh" content="${seconds}"></noscript>` : '';
}

function merchantMark(model: CheckoutPageModel): string {
  if (model.logoUrl) return `<img class="logo" src="${escapeHtml(model.logoUrl)}" alt="" width="64" height="64">`;
  const initial = [...model.merchantName.trim()][0]?.toUpperCase() ?? '?';
  return `<span class="logo logo-initial" aria-hidden="true">${escapeHtml(initial)}</span>`;
}

/** The buyer checkout page, complete without JavaScript; its script only follows the status and adds the browser wallet. */
export function renderCheckoutPage(model: CheckoutPageModel): string {
  const data: Record<string, string> = {
    'payment-id': model.paymentId,
    status: model.status,
    'expires-at': String(model.expiresAt.getTime()),
    'server-now': String(model.now.getTime()),
    locale: model.locale,
    'api-base': model.apiBaseUrl,
    'app-id': model.appId,
    'evm-chains': model.evmChains.join(','),
    ...(model.redirect ? { 'success-url': model.redirect.success, 'error-url': model.redirect.error } : {}),
  };
  const dataAttributes = Object.entries(data)
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  const body = `<main class="checkout" id="checkout"${dataAttributes}>
<header class="merchant">
${merchantMark(model)}
<div>
<p class="eyebrow">Pay</p>
<h1>${escapeHtml(model.merchantName)}</h1>
</div>
</header>
<div class="summary">
<p class="amount"><span class="label">Amount</span> <strong id="amount">${escapeHtml(model.amountText)}</strong></p>
<p class="time-left" id="time-left-line"${model.status === 'requires_action' ? '' : ' hidden'}><span class="label">Time left</span> <time id="time-left" datetime="${model.expiresAt.toISOString()}">${escapeHtml(model.timeLeftText)}</time></p>
</div>
<p class="visually-hidden" id="status-announcer" role="status" aria-live="polite"></p>
${statusViews(model)}
<footer class="reference">Reference <code>${escapeHtml(model.paymentId)}</code></footer>
</main>`;
  return layout({
    title: `Pay ${model.amountText} to ${model.merchantName}`,
    assets: model.assets,
    head: `${noScriptRefresh(model)}\n<script src="${escapeHtml(model.assets.scriptUrl)}" defer></script>`,
    body,
  });
}

/** The page for a link that names no payment this service knows: clear words, no details. */
export function renderNotFoundPage(assets: PageAssets): string {
  return layout({
    title: 'Payment not found',
    assets,
    body: `<main class="checkout not-found">
<h1>Payment not found</h1>
<p>This payment link does not match any payment. Check that the link is complete, or ask the shop for a new one.</p>
</main>`,
  });
}
