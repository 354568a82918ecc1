import { type CheckoutSnapshot, createPaymentSession } from '@paygate/checkout';
import { GatewayClient, type PaymentStatus } from '@paygate/wallet/browser';
import {
  failureExplanation,
  formatTimeLeft,
  paidWithParts,
  receivedFingerprint,
  timeLeftInWords,
  transactionUrl,
} from './view.ts';
import type { MessageKey } from './i18n/catalogue.ts';
import { loadedCatalogue } from './i18n/catalogueScript.ts';
import { checkoutLocaleOf } from './i18n/locales.ts';
import { type Translator, translatorOf } from './i18n/translate.ts';
import { setUpAnyWalletPanels } from './anyWalletPanels.ts';
import { setUpBrowserWallet } from './browserWallet.ts';
import { figureOf } from './figure.ts';

type Status = PaymentStatus['status'];

const FINAL: ReadonlySet<Status> = new Set(['succeeded', 'failed', 'expired', 'cancelled']);
const ANNOUNCEMENTS = {
  requires_action: 'announce.requiresAction',
  processing: 'announce.processing',
  succeeded: 'announce.succeeded',
  failed: 'announce.failed',
  expired: 'announce.expired',
  cancelled: 'announce.cancelled',
} as const satisfies Record<Status, MessageKey>;
/** Time for a screen reader to announce a final status before the buyer is sent back to the merchant. */
const REDIRECT_DELAY_MS = 2_500;

/** A random id for this browser (the gateway's `Client-Id`), kept across visits where storage allows. */
function browserClientId(): string {
  const fresh = () =>
    `web-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  try {
    const stored = localStorage.getItem('paygate.clientId');
    if (stored && /^[A-Za-z0-9._:-]{1,128}$/.test(stored)) return stored;
    const id = fresh();
    localStorage.setItem('paygate.clientId', id);
    return id;
  } catch {
    return fresh();
  }
}

function start(root: HTMLElement, t: Translator): void {
  const data = root.dataset;
  const paymentId = data.paymentId!;
  const { locale } = t;
  const expiresAt = new Date(Number(data.expiresAt));
  // The server's clock decides expiry; the countdown follows it, not a possibly wrong local clock.
  const clockOffsetMs = Number(data.serverNow) - Date.now();
  const redirects = data.successUrl && data.errorUrl ? { success: data.successUrl, error: data.errorUrl } : undefined;
  const explorerUrls = JSON.parse(data.explorerUrls ?? '{}') as Record<string, string>;
  const client = new GatewayClient({
    baseUrl: data.apiBase!,
    auth: { appId: data.appId!, clientId: browserClientId() },
  });
  const announcer = document.getElementById('status-announcer');
  const timeLeft = document.getElementById('time-left');
  const timeLeftLine = document.getElementById('time-left-line');
  let status = data.status as Status;
  let redirectScheduled = false;
  // The runtime follows the status (a first check at once, then the gateway's long-poll) and pays with a wallet.
  const session = createPaymentSession(paymentId, { transport: client });

  function redirectIfFinal(): void {
    if (!redirects || redirectScheduled || !FINAL.has(status)) return;
    redirectScheduled = true;
    const target = status === 'succeeded' ? redirects.success : redirects.error;
    setTimeout(() => window.location.assign(target), REDIRECT_DELAY_MS);
  }

  /** "View transaction" on the explorer of the network paid on, when it has one. */
  function showTransactionLink(info: NonNullable<PaymentStatus['info']>): void {
    const chain = info.optionAmount.unit.replace(/^caip19\//, '').split('/')[0] ?? '';
    const explorerUrl = explorerUrls[chain];
    const href = explorerUrl ? transactionUrl(explorerUrl, info.txId) : undefined;
    const line = document.getElementById('transaction-link');
    const link = line?.querySelector('a');
    if (!href || !line || !link) return;
    link.href = href;
    line.hidden = false;
  }

  /** The page's status for the session's stage: one of the gateway's, as the server rendered the views. */
  function statusOf(snapshot: CheckoutSnapshot): Status {
    const { stage } = snapshot;
    if (stage === 'succeeded' || stage === 'failed' || stage === 'expired' || stage === 'cancelled') return stage;
    return stage === 'processing' ? 'processing' : 'requires_action';
  }

  function applySnapshot(snapshot: CheckoutSnapshot): void {
    const next = statusOf(snapshot);
    // A transfer of less than asked arrived, or added to one: the page is made again, its panel asking for the rest.
    if (
      next === 'requires_action' &&
      snapshot.payment &&
      data.received !== undefined &&
      receivedFingerprint(snapshot.received) !== data.received
    ) {
      window.location.reload();
      return;
    }
    const paid = snapshot.paid?.optionAmount;
    if (next === 'succeeded' && paid?.display) {
      const paidWith = document.getElementById('paid-with');
      if (paidWith) {
        paidWith.replaceChildren(...paidWithParts(t, { value: paid.value, display: paid.display }, locale, figureOf));
        paidWith.hidden = false;
      }
    }
    if (next === 'succeeded' && snapshot.paid) showTransactionLink(snapshot.paid);
    const reason = document.getElementById('failure-reason');
    // A payment loaded failed has no code until its status comes; the server's words stand until then.
    if (next === 'failed' && reason && snapshot.failureCode !== null)
      reason.textContent = failureExplanation(t, snapshot.failureCode, data.merchantName ?? '');
    if (next === status) return;
    status = next;
    root.dataset.status = status;
    root.querySelectorAll<HTMLElement>('[data-view]').forEach((section) => {
      section.hidden = section.dataset.view !== status;
    });
    if (timeLeftLine) timeLeftLine.hidden = status !== 'requires_action';
    if (announcer) announcer.textContent = t(ANNOUNCEMENTS[status]);
    document.getElementById(`heading-${status}`)?.focus();
    redirectIfFinal();
  }

  function tick(): void {
    const now = new Date(Date.now() + clockOffsetMs);
    if (timeLeft) timeLeft.textContent = formatTimeLeft(expiresAt, now);
    if (timeLeftLine) timeLeftLine.title = timeLeftInWords(t, expiresAt, now);
  }

  tick();
  const countdown = setInterval(() => {
    if (FINAL.has(status)) clearInterval(countdown);
    else tick();
  }, 1_000);
  redirectIfFinal();
  session.subscribe(() => applySnapshot(session.getSnapshot()));
  session.start();

  if (status === 'requires_action' && document.getElementById('accepted')) {
    setUpBrowserWallet({ session, locale, t });
    setUpAnyWalletPanels(t);
  }
}

const root = document.getElementById('checkout');
const catalogue = loadedCatalogue();
const locale = checkoutLocaleOf(root?.dataset.locale ?? '');
// The page's catalogue asset holds its language's messages; without it the page stays as the server made it.
if (root?.dataset.paymentId && catalogue && locale) start(root, translatorOf(locale, catalogue));
