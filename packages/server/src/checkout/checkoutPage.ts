import type { PaymentStatus } from '../db/schema.ts';
import { type RedirectTargets, redirectFor, refreshSecondsFor } from './checkoutView.ts';
import { failureExplanation, timeLeftInWords } from '@paygate/web/checkout/view.ts';
import { attributes, html, lines, page, type SafeHtml, trustedHtml } from './html.ts';
import { statusIcons } from './icons.ts';
import type { CheckoutLocale } from '@paygate/web/checkout/i18n/locales.ts';
import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';
import { translator } from '@paygate/web/checkout/i18n/translator.ts';
import { translatedHtml } from './translatedHtml.ts';

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
  /** What was paid, once succeeded, in the page's language (`Paid with 10 USDC on Base.`). */
  paidText: SafeHtml | undefined;
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
  /** Ways to pay an option from any wallet (deposit addresses, Solana Pay requests), one panel per option that has one. */
  anyWalletPanels?: SafeHtml | undefined;
  /** What arrived in transfers of less than asked (`receivedFingerprint`), while the payment can be paid. */
  received?: string | undefined;
  /** The page's language, which also formats its numbers. */
  locale: CheckoutLocale;
  /** The page's messages for its script, in its language (a catalogue asset). */
  catalogueUrl: string;
  /** Where the page's script calls the gateway (`BASE_URL`) and with which public App-Id. */
  apiBaseUrl: string;
  appId: string;
  assets: PageAssets;
}

function view(status: PaymentStatus, current: PaymentStatus, content: SafeHtml): SafeHtml {
  const mark =
    status === 'requires_action'
      ? ''
      : html`<div class="status-mark">${statusIcons[status]}</div>
`;
  return html`<section class="view view-${status}" data-view="${status}"${status === current ? '' : html` hidden`} aria-labelledby="heading-${status}">
${mark}${content}
</section>`;
}

function heading(status: PaymentStatus, text: string): SafeHtml {
  return html`<h2 id="heading-${status}" tabindex="-1">${text}</h2>`;
}

function returnLink(status: PaymentStatus, model: CheckoutPageModel, t: Translator): SafeHtml | undefined {
  const target = redirectFor(status, model.redirect);
  if (!target) return undefined;
  const merchant = model.merchantName;
  return html`<p class="redirect-note" data-redirect-note>${t('page.returning', { merchant })}</p>
<p><a class="button" href="${target}">${t('page.continueTo', { merchant })}</a></p>`;
}

/** The accepted choices by network, each network where its first choice is in the list. */
function byNetwork(accepted: readonly AcceptedChoice[]): AcceptedChoice[][] {
  const groups = new Map<string, AcceptedChoice[]>();
  for (const choice of accepted) {
    const group = groups.get(choice.network);
    if (group) group.push(choice);
    else groups.set(choice.network, [choice]);
  }
  return [...groups.values()];
}

/**
 * The networks and tokens the payment can be paid with and the amount in each, as radio buttons: readable without
 * JavaScript, and with it the buyer's pick of how to pay. Each network's tokens are a row of compact chips under
 * its name; each radio's name still says its network, as arrow keys move between networks without their names.
 */
function acceptedList(accepted: readonly AcceptedChoice[], t: Translator): SafeHtml {
  const networks = byNetwork(accepted).map((choices) => {
    const networkName = choices[0]!.networkName;
    const chips = choices.map(
      (choice) =>
        html`<label class="option"><input type="radio" name="accepted"${attributes({
          value: choice.asset,
          'data-network': choice.network,
          'data-namespace': choice.namespace,
          'data-network-name': choice.networkName,
          'data-amount': choice.amount,
        })}${choice.checked ? html` checked` : ''}><span class="option-amount">${choice.amountText}</span> <span class="option-network visually-hidden">${choice.networkName}</span></label>`,
    );
    return html`<div class="accepted-network">
    <p class="accepted-network-name" aria-hidden="true">${networkName}</p>
    <div class="option-list accepted-list">
${lines(chips)}
    </div>
  </div>`;
  });
  return html`<fieldset class="accepted" id="accepted" aria-labelledby="heading-requires_action">
  ${lines(networks)}
  <noscript><p class="no-wallet">${t('page.walletsNeedScript')}</p></noscript>
</fieldset>`;
}

/** The QR code of the checkout link itself, with the link: for a phone's camera, or a wallet that pays such links. */
function paymentLinkQr(model: CheckoutPageModel, caption: string, t: Translator): SafeHtml {
  return html`<figure class="qr">
${trustedHtml(model.qrSvg)}
<figcaption>${caption}</figcaption>
</figure>
<p class="payment-link">${translatedHtml(t, 'page.openLink', { link: html`<a href="${model.paymentLink}">${model.paymentLink}</a>` })}</p>`;
}

/**
 * How an open payment can be paid. With tokens to list: the pick of network and token, the browser wallets that pay
 * it, then the chosen token's own panel (scan its request or send to its address), one QR code at a time; the
 * checkout link's QR code, for opening the page on another device, stays folded away. Without (no price now):
 * the checkout link's QR code alone.
 */
function waysToPay(model: CheckoutPageModel, t: Translator): SafeHtml {
  const waiting = html`<p class="waiting"><span class="pulse" aria-hidden="true"></span> ${t('page.waiting')}</p>`;
  if (!model.accepted.length) {
    return html`${heading('requires_action', t('page.scanToPay'))}
${paymentLinkQr(model, t('page.scanCaption'), t)}
${waiting}`;
  }
  return html`${heading('requires_action', t('page.chooseHowToPay'))}
${acceptedList(model.accepted, t)}
<div class="browser-wallet" id="browser-wallet" hidden>
  <div class="pay-with" id="pay-with">
    <p class="pay-with-title" id="pay-with-title"></p>
    <div class="wallet-list" id="wallet-list" role="group" aria-labelledby="pay-with-title"></div>
    <p class="no-wallet" id="no-wallet" hidden></p>
  </div>
  <div class="wallet-collect" id="wallet-collect" hidden>
    <p>${t('page.detailsAsked')}</p>
  </div>
  <p class="wallet-progress" id="wallet-progress" aria-live="polite" hidden></p>
  <div class="wallet-error" id="wallet-error" role="alert" hidden>
    <p id="wallet-error-text"></p>
    <button type="button" class="button" id="wallet-retry">${t('page.tryAgain')}</button>
  </div>
</div>
${
  model.anyWalletPanels
    ? html`<p class="divider"><span>${t('page.or')}</span></p>
${model.anyWalletPanels}`
    : undefined
}
${waiting}
<details class="other-device">
<summary>${t('page.otherDevice')}</summary>
${paymentLinkQr(model, t('page.otherDeviceCaption'), t)}
</details>`;
}

function statusViews(model: CheckoutPageModel, t: Translator): SafeHtml[] {
  const merchant = model.merchantName;
  const current = model.status;
  return [
    view(
      'requires_action',
      current,
      model.takingPayments
        ? waysToPay(model, t)
        : html`${heading('requires_action', t('status.notTaking.heading'))}
<p>${t('status.notTaking.text', { merchant })}</p>`,
    ),
    view(
      'processing',
      current,
      html`${heading('processing', t('status.processing.heading'))}
<p>${t('status.processing.text')}</p>
<p class="waiting"><span class="pulse" aria-hidden="true"></span> ${t('status.processing.waiting')}</p>`,
    ),
    view(
      'succeeded',
      current,
      html`${heading('succeeded', t('status.succeeded.heading'))}
<p>${translatedHtml(t, 'status.succeeded.text', { merchant, amount: html`<strong class="figure">${model.amountText}</strong>` })}</p>
<p class="paid-with" id="paid-with"${model.paidText ? '' : html` hidden`}>${model.paidText ?? ''}</p>
<p class="transaction-link" id="transaction-link"${model.transactionLink ? '' : html` hidden`}><a href="${model.transactionLink ?? ''}" rel="noreferrer">${t('status.succeeded.viewTransaction')}</a></p>
${returnLink('succeeded', model, t)}`,
    ),
    view(
      'failed',
      current,
      html`${heading('failed', t('status.failed.heading'))}
<p id="failure-reason">${failureExplanation(t, model.failureCode, merchant)}</p>
${returnLink('failed', model, t)}`,
    ),
    view(
      'expired',
      current,
      html`${heading('expired', t('status.expired.heading'))}
<p>${t('status.expired.text', { merchant })}</p>
${returnLink('expired', model, t)}`,
    ),
    view(
      'cancelled',
      current,
      html`${heading('cancelled', t('status.cancelled.heading'))}
<p>${t('status.cancelled.text', { merchant })}</p>
${returnLink('cancelled', model, t)}`,
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

/** The merchant's logo, or the initial of its name in its place. */
export function merchantMark(model: Pick<CheckoutPageModel, 'logoUrl' | 'merchantName'>): SafeHtml {
  if (model.logoUrl) return html`<img class="logo" src="${model.logoUrl}" alt="" width="64" height="64">`;
  const initial = [...model.merchantName.trim()][0]?.toUpperCase() ?? '?';
  return html`<span class="logo logo-initial" aria-hidden="true">${initial}</span>`;
}

/** The buyer checkout page, complete without JavaScript; its script only follows the status and adds the browser wallet. */
export function renderCheckoutPage(model: CheckoutPageModel): string {
  const t = translator(model.locale);
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
    ...(model.received === undefined ? {} : { 'data-received': model.received }),
  };
  const body = html`<main class="checkout" id="checkout"${attributes(data)}>
<header class="merchant">
${merchantMark(model)}
<div>
<p class="eyebrow">${t('page.eyebrow')}</p>
<h1>${model.merchantName}</h1>
</div>
</header>
<div class="summary">
<p class="amount"><span class="label">${t('page.amount')}</span> <strong class="figure" id="amount">${model.amountText}</strong></p>
<p class="time-left" id="time-left-line"${attributes({ title: timeLeftInWords(t, model.expiresAt, model.now) })}${model.status === 'requires_action' ? '' : html` hidden`}><span class="label">${t('page.timeLeft')}</span> <time id="time-left" datetime="${model.expiresAt.toISOString()}">${model.timeLeftText}</time></p>
</div>
<p class="visually-hidden" id="status-announcer" role="status" aria-live="polite"></p>
${lines(statusViews(model, t))}
<footer class="reference">${translatedHtml(t, 'page.reference', { reference: html`<code>${model.paymentId}</code>` })}</footer>
</main>`;
  return page({
    lang: model.locale,
    colorScheme: 'light dark',
    title: t('page.title', { amount: model.amountText, merchant: model.merchantName }),
    stylesheet: model.assets.styleUrl,
    icon: model.assets.iconUrl,
    // The catalogue runs first (deferred scripts run in order): the page's script reads it as it starts.
    head: html`${noScriptRefresh(model)}
<script src="${model.catalogueUrl}" defer></script>
<script src="${model.assets.scriptUrl}" defer></script>`,
    body,
  });
}

/** The page for a link that names no payment this service knows: clear words, no details. */
export function renderNotFoundPage(assets: PageAssets, locale: CheckoutLocale): string {
  const t = translator(locale);
  return renderMessagePage(assets, locale, t('notFound.title'), t('notFound.text'));
}

/** A page that only says something: a heading and a line, in the checkout's style. */
export function renderMessagePage(assets: PageAssets, locale: CheckoutLocale, title: string, text: string): string {
  return page({
    lang: locale,
    colorScheme: 'light dark',
    title,
    stylesheet: assets.styleUrl,
    icon: assets.iconUrl,
    body: html`<main class="checkout not-found">
<h1>${title}</h1>
<p>${text}</p>
</main>`,
  });
}
