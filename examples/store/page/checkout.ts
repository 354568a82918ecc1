import {
  browserTransport,
  type CheckoutError,
  type CheckoutSnapshot,
  type CheckoutStage,
  type CheckoutWallet,
  createPaymentSession,
  FINAL_STAGES,
  secondsLeft,
  selectedOption,
  watchEvmWallets,
  watchSolanaWallets,
} from '@paygate/checkout';
import { decimalOf, fiatText } from '../src/money.ts';

/**
 * The store's checkout panel on `@paygate/checkout`: the runtime holds the payment's state and the buyer's actions;
 * this file only draws the snapshot and turns clicks into actions. Its calls go to the store's `/api/checkout`.
 */

type PaymentOption = CheckoutSnapshot['options'][number];
type TokenAmount = PaymentOption['amount'];

const root = document.getElementById('checkout') as HTMLElement;
const { paymentId = '', productId = '', gatewayUrl = '' } = root.dataset;
const session = createPaymentSession(paymentId, { transport: browserTransport({ endpoint: '/api/checkout' }) });

/** The steps the progress bar shows, and the stages each one covers. */
const STEPS: { label: string; stages: readonly CheckoutStage[] }[] = [
  { label: 'Wallet', stages: ['loading', 'connect', 'connecting'] },
  { label: 'Option', stages: ['quoting', 'options', 'collecting'] },
  { label: 'Sign', stages: ['signing'] },
  { label: 'Confirm', stages: ['confirming', 'processing', 'underpaid'] },
  { label: 'Done', stages: ['succeeded', 'failed', 'expired', 'cancelled', 'unavailable'] },
];
const CANCELLABLE: readonly CheckoutStage[] = ['connect', 'options', 'collecting'];

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  properties: Partial<HTMLElementTagNameMap[K]> & { className?: string } = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const created = Object.assign(document.createElement(tag), properties);
  created.append(...children);
  return created;
}

function tokenText(amount: TokenAmount): string {
  return amount.display
    ? `${decimalOf(amount.value, amount.display.decimals)} ${amount.display.assetSymbol}`
    : `${amount.value} ${amount.unit}`;
}

function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

function walletName(wallet: { name: string; namespace: string }): string {
  return wallet.name || (wallet.namespace === 'solana' ? 'Solana wallet' : 'Browser wallet');
}

/** What the stage line says, and what a screen reader announces, at each stage. */
function stageSentence(snapshot: CheckoutSnapshot): string {
  const wallet = snapshot.wallet ? walletName(snapshot.wallet) : 'your wallet';
  switch (snapshot.stage) {
    case 'loading':
      return 'Loading the payment…';
    case 'connect':
      return 'Connect a wallet to pay.';
    case 'connecting':
      return `Waiting for ${wallet} to share an account…`;
    case 'quoting':
      return 'Finding what this account can pay with…';
    case 'options':
      return snapshot.options.length ? 'Choose what to pay with.' : 'Nothing in this account can pay.';
    case 'collecting':
      return 'The shop needs a few details before you pay.';
    case 'signing':
      return `Approve the payment in ${wallet}…`;
    case 'confirming':
      return 'Sending your payment…';
    case 'processing':
      return 'Waiting for the network to confirm your payment…';
    case 'underpaid':
      return 'Part of the payment arrived. Send the rest to finish.';
    case 'succeeded':
      return 'Payment received.';
    case 'failed':
      return 'The payment failed.';
    case 'expired':
      return 'The payment expired.';
    case 'cancelled':
      return 'The payment was cancelled.';
    case 'unavailable':
      return 'This payment cannot be shown.';
  }
}

/** The runtime's problems in a shopper's words; the service's own message where it says it best. */
function problemSentence(error: CheckoutError, snapshot: CheckoutSnapshot): string {
  switch (error.code) {
    case 'user_rejected':
      return 'You declined the request in your wallet.';
    case 'no_account':
      return 'The wallet shared no account. Unlock it, then try again.';
    case 'no_option':
      return 'This account holds nothing this payment accepts. Add funds, or use another wallet.';
    case 'unknown_chain':
      return 'Your wallet does not have this network. Add it in the wallet, or choose another option.';
    case 'network':
      return 'The shop could not reach the payment service. Check your connection.';
    case 'unsupported_wallet':
      return `This wallet cannot pay here: it ${error.message}.`;
    case 'buyer_data':
      return 'Your details could not be taken. Try again.';
    default:
      return snapshot.stage === 'confirming' ? `Your payment was not confirmed yet: ${error.message}` : error.message;
  }
}

function failureSentence(failureCode: string | null): string {
  switch (failureCode) {
    case 'underpaid':
      return 'Less than the full amount arrived before the payment expired. Write to us with the reference below and we will send back what arrived.';
    case 'transfer_not_mined':
      return 'Your transfer was not confirmed on the network in time. If your wallet shows it as sent, write to us with the reference below.';
    default:
      return 'The payment did not go through. If your wallet shows it as sent, write to us with the reference below.';
  }
}

// The panel's fixed parts, built once; `render` fills them from the snapshot.
const summary = element('div', { className: 'summary' });
const merchantLine = element('p', { className: 'merchant' });
const amountLine = element('p', { className: 'amount' });
const expiryLine = element('p', { className: 'expiry' });
summary.append(merchantLine, amountLine, expiryLine);
const steps = element('ol', { className: 'steps' });
steps.setAttribute('aria-label', 'Progress');
const stepItems = STEPS.map((step) => element('li', {}, element('span', { className: 'step-label' }, step.label)));
steps.append(...stepItems);
const stageLine = element('p', { className: 'stage', role: 'status' });
stageLine.setAttribute('aria-live', 'polite');
const problem = element('div', { className: 'problem', role: 'alert', hidden: true });
const problemText = element('p');
const retryButton = element('button', { type: 'button', className: 'button secondary' }, 'Try again');
retryButton.addEventListener('click', () => void session.actions.retry());
problem.append(problemText, retryButton);
const panel = element('div', { className: 'stage-panel', tabIndex: -1 });
const outcome = element('div', { className: 'outcome', hidden: true });
const cancelButton = element('button', { type: 'button', className: 'link-button' }, 'Cancel payment');
cancelButton.addEventListener('click', () => void session.actions.cancelPayment());
const cancelLine = element('p', { className: 'cancel' }, cancelButton);
root.replaceChildren(summary, steps, stageLine, problem, panel, outcome, cancelLine);

let evmWallets: CheckoutWallet[] = [];
let solanaWallets: CheckoutWallet[] = [];
let panelKey = '';
let outcomeStage: CheckoutStage | undefined;

function walletButton(wallet: CheckoutWallet): HTMLLIElement {
  const button = element('button', { type: 'button', className: 'wallet-button' });
  button.dataset.focus = `wallet:${wallet.id}`;
  if (wallet.icon) button.append(element('img', { src: wallet.icon, alt: '', width: 28, height: 28 }));
  button.append(
    element('span', { className: 'wallet-name' }, walletName(wallet)),
    ' ',
    element('span', { className: 'wallet-kind' }, wallet.namespace === 'solana' ? 'Solana' : 'EVM'),
  );
  button.addEventListener('click', () => void session.actions.connectWallet(wallet));
  return element('li', {}, button);
}

function connectPanel(): Node[] {
  const wallets = [...evmWallets, ...solanaWallets];
  if (!wallets.length) {
    return [
      element(
        'p',
        { className: 'hint' },
        'No wallet was found in this browser. Install a wallet extension and reload this page, or ',
        element('a', { href: gatewayUrl }, 'pay on paygate’s page'),
        ' with any wallet app.',
      ),
    ];
  }
  const list = element('ul', { className: 'wallets' }, ...wallets.map(walletButton));
  list.setAttribute('aria-label', 'Wallets in this browser');
  const first = list.querySelector('button');
  if (first) first.dataset.autofocus = '';
  return [list];
}

function optionRow(option: PaymentOption, checked: boolean): HTMLLabelElement {
  const radio = element('input', { type: 'radio', name: 'option', value: option.id, checked });
  radio.dataset.focus = `option:${option.id}`;
  if (checked) radio.dataset.autofocus = '';
  radio.addEventListener('change', () => session.actions.chooseOption(option.id));
  const network = option.amount.display?.networkName;
  return element(
    'label',
    { className: 'option' },
    radio,
    element(
      'span',
      { className: 'option-text' },
      element('span', { className: 'option-amount' }, tokenText(option.amount)),
      ' ',
      element('span', { className: 'option-network' }, network ? `on ${network}` : ''),
    ),
  );
}

function optionsPanel(snapshot: CheckoutSnapshot): Node[] {
  const parts: Node[] = [];
  if (snapshot.wallet) {
    const other = element('button', { type: 'button', className: 'link-button' }, 'Use another wallet');
    other.dataset.focus = 'disconnect';
    other.addEventListener('click', () => session.actions.disconnectWallet());
    parts.push(
      element(
        'div',
        { className: 'account' },
        element(
          'p',
          {},
          `From ${walletName(snapshot.wallet)} `,
          element('code', { title: snapshot.wallet.address }, shortAddress(snapshot.wallet.address)),
        ),
        other,
      ),
    );
  }
  if (!snapshot.options.length) return parts;
  const fieldset = element(
    'fieldset',
    { className: 'options' },
    // The stage line above says it on screen.
    element('legend', { className: 'visually-hidden' }, 'Pay with'),
    ...snapshot.options.map((option) => optionRow(option, option.id === snapshot.selectedOptionId)),
  );
  const pay = element('button', { type: 'button', className: 'button pay-button' });
  pay.dataset.focus = 'pay';
  pay.addEventListener('click', () => void session.actions.pay());
  parts.push(fieldset, pay);
  return parts;
}

/** paygate's own form for the details a payment asks for, framed; it tells the page when it is done. */
function collectingPanel(snapshot: CheckoutSnapshot): Node[] {
  const url = snapshot.collectData?.url;
  if (!url) return [];
  const frame = element('iframe', { src: url, title: 'Your details for the payment', className: 'details-form' });
  const origin = new URL(url).origin;
  const onMessage = (event: MessageEvent) => {
    const signal = event.data as { type?: unknown; reason?: unknown } | null;
    if (event.source !== frame.contentWindow || event.origin !== origin) return;
    if (signal?.type === 'IC_COMPLETE') void session.actions.buyerDataFormCompleted();
    else if (signal?.type === 'IC_ERROR') session.actions.buyerDataFormFailed(String(signal.reason));
    else return;
    window.removeEventListener('message', onMessage);
  };
  window.addEventListener('message', onMessage);
  return [frame];
}

/** What arrived, and the rest to send to the same address, which the runtime follows until it arrives. */
function underpaidPanel(snapshot: CheckoutSnapshot): Node[] {
  return snapshot.received.map((part) =>
    element(
      'div',
      { className: 'rest' },
      element('p', {}, `Received ${tokenText(part.amount)} of ${tokenText(part.expected)}.`),
      element(
        'p',
        {},
        `Send the remaining ${tokenText(part.remaining)}${part.remaining.display?.networkName ? ` on ${part.remaining.display.networkName}` : ''} to:`,
      ),
      element('p', {}, element('code', { className: 'address' }, part.address)),
      element('p', {}, element('a', { href: part.uri, className: 'button secondary' }, 'Open in a wallet app')),
    ),
  );
}

function spinner(): Node[] {
  return [element('div', { className: 'spinner', ariaHidden: 'true' })];
}

function panelContent(snapshot: CheckoutSnapshot): Node[] {
  switch (snapshot.stage) {
    case 'connect':
      return connectPanel();
    case 'options':
      return optionsPanel(snapshot);
    case 'collecting':
      return collectingPanel(snapshot);
    case 'underpaid':
      return underpaidPanel(snapshot);
    case 'loading':
    case 'connecting':
    case 'quoting':
    case 'signing':
    case 'confirming':
    case 'processing':
      return spinner();
    default:
      return [];
  }
}

/**
 * Rebuilds the stage's controls only when what they show changes (not on a choice of option, which the radios
 * already show), and puts the focus back on the same control, or on the stage's first one, when it was there.
 */
function renderPanel(snapshot: CheckoutSnapshot): void {
  const key = JSON.stringify([
    snapshot.stage,
    snapshot.wallet?.address,
    snapshot.options.map((option) => option.id),
    snapshot.collectData?.url,
    snapshot.received.map((part) => part.remaining.value),
    snapshot.stage === 'connect' ? [...evmWallets, ...solanaWallets].map((wallet) => wallet.id) : [],
  ]);
  if (key !== panelKey) {
    panelKey = key;
    const focused = document.activeElement as HTMLElement | null;
    const hadFocus = panel.contains(focused);
    const focusKey = focused?.dataset?.focus;
    panel.replaceChildren(...panelContent(snapshot));
    if (hadFocus && !FINAL_STAGES.has(snapshot.stage)) {
      const target =
        panel.querySelector<HTMLElement>(`[data-focus="${CSS.escape(focusKey ?? '')}"]`) ??
        panel.querySelector<HTMLElement>('[data-autofocus]') ??
        panel;
      target.focus();
    }
  }
  const pay = panel.querySelector<HTMLButtonElement>('.pay-button');
  const option = selectedOption(snapshot);
  if (pay) {
    pay.textContent = option ? `Pay ${tokenText(option.amount)}` : 'Pay';
    pay.disabled = !option;
  }
}

function outcomeContent(snapshot: CheckoutSnapshot): Node[] {
  const heading = element('h3', { tabIndex: -1 });
  const back = element('p', {}, element('a', { href: '/', className: 'button secondary' }, 'Back to the shop'));
  const reference = element('p', { className: 'reference' }, 'Reference: ', element('code', {}, paymentId));
  switch (snapshot.stage) {
    case 'succeeded': {
      heading.textContent = 'Thank you! Payment received';
      const paid = snapshot.paid;
      const network = paid?.optionAmount.display?.networkName;
      const parts: Node[] = [heading];
      if (paid) {
        parts.push(
          element('p', {}, `You paid ${tokenText(paid.optionAmount)}${network ? ` on ${network}` : ''}.`),
          element('p', { className: 'transaction' }, 'Transaction ', element('code', {}, paid.txId)),
        );
      }
      return [...parts, element('p', {}, 'Your tea is on its way.'), back];
    }
    case 'failed':
      heading.textContent = 'Payment failed';
      return [
        heading,
        element('p', {}, failureSentence(snapshot.failureCode)),
        element('p', { className: 'reason' }, `Reason: ${snapshot.failureCode ?? 'unknown'}`),
        reference,
        back,
      ];
    case 'expired': {
      heading.textContent = 'This payment expired';
      const again = element(
        'form',
        { method: 'post', action: '/buy' },
        element('input', { type: 'hidden', name: 'product', value: productId }),
        element('button', { type: 'submit', className: 'button' }, 'Start again'),
      );
      return [heading, element('p', {}, 'The time to pay ran out, and nothing was taken.'), again];
    }
    case 'cancelled':
      heading.textContent = 'Payment cancelled';
      return [heading, element('p', {}, 'Nothing was taken. Your tea is still waiting in the shop.'), back];
    default:
      heading.textContent = 'This payment cannot be shown';
      return [heading, element('p', {}, snapshot.error?.message ?? ''), back];
  }
}

function render(): void {
  const snapshot = session.getSnapshot();
  const { payment, stage, error } = snapshot;
  if (payment) {
    merchantLine.replaceChildren('Pay ', element('strong', {}, payment.merchant.name));
    const currency = payment.amount.unit.replace('iso4217/', '');
    amountLine.textContent = fiatText(payment.amount.value, currency, payment.amount.display.decimals);
  }
  renderExpiry(snapshot);
  const final = FINAL_STAGES.has(stage);
  // Steps done are ticked; a payment that ended otherwise than paid did not go through them, so they go.
  steps.hidden = final && stage !== 'succeeded';
  const current = STEPS.findIndex((step) => step.stages.includes(stage));
  stepItems.forEach((item, index) => {
    item.className = index < current || stage === 'succeeded' ? 'done' : index === current ? 'current' : '';
    if (index === current) item.setAttribute('aria-current', 'step');
    else item.removeAttribute('aria-current');
  });
  const sentence = stageSentence(snapshot);
  if (stageLine.textContent !== sentence) stageLine.textContent = sentence;
  // Once final, the outcome's heading says it on screen; the line still announces it.
  stageLine.classList.toggle('visually-hidden', final);
  problem.hidden = !error || final;
  if (error && !final) {
    problemText.textContent = problemSentence(error, snapshot);
    retryButton.hidden = !error.retryable;
  }
  renderPanel(snapshot);
  cancelLine.hidden = !CANCELLABLE.includes(stage);
  // A payment that loads as succeeded gets the paid amount with its status, just after.
  const paidArrived = stage === 'succeeded' && snapshot.paid && !outcome.querySelector('.transaction');
  if (final && (outcomeStage !== stage || paidArrived)) {
    const focusHere = outcomeStage !== stage || outcome.contains(document.activeElement);
    outcomeStage = stage;
    outcome.className = `outcome ${stage}`;
    outcome.replaceChildren(...outcomeContent(snapshot));
    outcome.hidden = false;
    expiryLine.hidden = true;
    if (focusHere) outcome.querySelector('h3')?.focus();
  }
}

function renderExpiry(snapshot: CheckoutSnapshot): void {
  const left = secondsLeft(snapshot, Date.now());
  if (left === null || FINAL_STAGES.has(snapshot.stage)) return;
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, '0');
  expiryLine.textContent = left > 0 ? `Expires in ${minutes}:${seconds}` : 'Expiring…';
}

session.subscribe(render);
watchEvmWallets((wallets) => {
  evmWallets = wallets;
  render();
});
watchSolanaWallets((wallets) => {
  solanaWallets = wallets;
  render();
});
const ticker = setInterval(() => {
  const snapshot = session.getSnapshot();
  if (FINAL_STAGES.has(snapshot.stage)) clearInterval(ticker);
  else renderExpiry(snapshot);
}, 1000);
render();
session.start();
