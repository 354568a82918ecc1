import {
  type CheckoutSnapshot,
  type CheckoutStage,
  type CheckoutWallet,
  type PaymentSession,
  watchEvmWallets,
  watchSolanaWallets,
} from '@paygate/checkout';
import { shortenLongList } from './acceptedList.ts';
import { figureOf } from './figure.ts';
import type { Translator } from './i18n/translate.ts';
import { formatTokenAmount } from './view.ts';
import { explainWalletProblem } from './walletMessages.ts';

export interface BrowserWalletSetup {
  /** The page's payment session: it connects, quotes, signs and confirms; this panel shows it and acts on it. */
  session: PaymentSession;
  locale: string;
  t: Translator;
}

/** The buyer's pick in the accepted list. */
interface Choice {
  input: HTMLInputElement;
  asset: string;
  network: string;
  namespace: 'eip155' | 'solana';
  networkName: string;
  amountText: string;
}

/** While the session is at one of these, the list and the wallet buttons wait. */
const WORKING: ReadonlySet<CheckoutStage> = new Set(['connecting', 'quoting', 'collecting', 'signing', 'confirming']);

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`checkout page lacks #${id}`);
  return found as T;
}

function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

function choiceOf(input: HTMLInputElement): Choice {
  const data = input.dataset;
  return {
    input,
    asset: input.value,
    network: data.network ?? '',
    namespace: data.namespace === 'solana' ? 'solana' : 'eip155',
    networkName: data.networkName ?? data.network ?? '',
    amountText: input.closest('label')?.querySelector('.option-amount')?.textContent ?? '',
  };
}

/**
 * The browser wallets under the accepted list: for the network and token the buyer picked, the wallets of this
 * browser that pay on that network (EVM wallets through EIP-6963 or `window.ethereum`, Solana wallets through the
 * Wallet Standard). A wallet's button has the page's payment session connect it, quote the picked token for its
 * account on that network, and pay it; the panel shows each stage and explains any problem with a way to try again.
 */
export function setUpBrowserWallet(setup: BrowserWalletSetup): void {
  const { t, session } = setup;
  const accepted = element<HTMLFieldSetElement>('accepted');
  const section = element('browser-wallet');
  const title = element('pay-with-title');
  const list = element('wallet-list');
  const noWallet = element('no-wallet');
  const progress = element('wallet-progress');
  const collectBox = element('wallet-collect');
  const errorBox = element('wallet-error');
  const errorText = element('wallet-error-text');
  const retryButton = element<HTMLButtonElement>('wallet-retry');

  const wallets: Record<CheckoutWallet['namespace'], CheckoutWallet[]> = { eip155: [], solana: [] };
  let attempt: { wallet: CheckoutWallet; choice: Choice } | undefined;
  let shownProblem: CheckoutSnapshot['error'] = null;
  let busy = false;

  const chosen = (): Choice | undefined => {
    const input = accepted.querySelector<HTMLInputElement>('input[name="accepted"]:checked');
    return input ? choiceOf(input) : undefined;
  };

  function showProgress(text: string | undefined): void {
    progress.textContent = text ?? '';
    progress.hidden = !text;
  }

  function setBusy(value: boolean): void {
    busy = value;
    accepted.disabled = value;
    list.querySelectorAll('button').forEach((button) => {
      button.disabled = value || button.dataset.unsupported === 'true';
    });
  }

  function showError(text: string): void {
    showProgress(undefined);
    errorText.textContent = text;
    errorBox.hidden = false;
    retryButton.focus();
  }

  function walletButton(wallet: CheckoutWallet, choice: Choice, index: number): HTMLElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = index === 0 ? 'button primary wallet' : 'button wallet';
    if (wallet.icon) {
      const icon = document.createElement('img');
      icon.src = wallet.icon;
      icon.alt = '';
      icon.width = 24;
      icon.height = 24;
      button.append(icon);
    }
    const label = document.createElement('span');
    label.textContent = wallet.name ? t('wallet.payWith', { wallet: wallet.name }) : t('wallet.payWithUnnamed');
    button.append(label);
    button.disabled = busy || Boolean(wallet.unsupported);
    if (!wallet.unsupported) {
      button.addEventListener('click', () => void payWith(wallet, choice));
      return button;
    }
    button.dataset.unsupported = 'true';
    const note = document.createElement('p');
    note.className = 'wallet-note';
    note.id = `wallet-note-${list.children.length}`;
    // The one reason a wallet is found unable to pay (`unsupported`): it signs only by sending the transaction.
    note.textContent = t('wallet.sendsOnly', { wallet: wallet.name });
    button.setAttribute('aria-describedby', note.id);
    const item = document.createElement('div');
    item.append(button, note);
    return item;
  }

  /** The wallets that pay the picked option, or why there are none. */
  function render(): void {
    const choice = chosen();
    // Once part arrived at the deposit address, only the rest is asked for there: a wallet would pay the whole again.
    if (!choice || session.getSnapshot().stage === 'underpaid') {
      section.hidden = true;
      return;
    }
    section.hidden = false;
    const usable = wallets[choice.namespace];
    title.replaceChildren(
      ...t.parts<'wallet.listTitle', HTMLSpanElement>('wallet.listTitle', {
        amount: figureOf(choice.amountText),
        network: choice.networkName,
      }),
    );
    list.replaceChildren(...usable.map((wallet, index) => walletButton(wallet, choice, index)));
    title.hidden = !usable.length;
    noWallet.hidden = usable.length > 0;
    noWallet.textContent = t(choice.namespace === 'solana' ? 'wallet.noneSolana' : 'wallet.noneEvm', {
      network: choice.networkName,
    });
  }

  /**
   * The service's own form for buyer details (D14), framed in the page: its `IC_COMPLETE` (the answers went
   * straight to the service) lets the session sign; its `IC_ERROR` stops there, explained.
   */
  function showDetailsForm(url: string): void {
    const frame = document.createElement('iframe');
    // The form speaks the page's language.
    const formUrl = new URL(url, window.location.href);
    formUrl.searchParams.set('locale', setup.locale);
    frame.src = formUrl.href;
    frame.title = t('wallet.detailsFrameTitle');
    collectBox.querySelector('iframe')?.remove();
    collectBox.append(frame);
    collectBox.hidden = false;
    frame.focus();
    const onMessage = (event: MessageEvent) => {
      const signal = event.data as { type?: unknown; reason?: unknown } | null;
      if (event.source !== frame.contentWindow || event.origin !== formUrl.origin || !signal) return;
      if (signal.type !== 'IC_COMPLETE' && signal.type !== 'IC_ERROR') return;
      window.removeEventListener('message', onMessage);
      collectBox.hidden = true;
      frame.remove();
      if (signal.type === 'IC_COMPLETE') void session.actions.buyerDataFormCompleted();
      else session.actions.buyerDataFormFailed(signal.reason === 'link_expired' ? 'link_expired' : 'refused');
    };
    window.addEventListener('message', onMessage);
  }

  /** What the session's problem means for the buyer, in the words of the attempt it stopped. */
  function explain(snapshot: CheckoutSnapshot, problem: NonNullable<CheckoutSnapshot['error']>): string {
    const choice = attempt?.choice;
    const walletName = attempt?.wallet.name ?? '';
    if (problem.code === 'user_rejected' && snapshot.stage === 'connect') return t('wallet.declinedConnect');
    if (problem.code === 'no_account') {
      return walletName ? t('wallet.noAccount', { wallet: walletName }) : t('wallet.noAccountUnnamed');
    }
    if (problem.code === 'no_option') return notEnough(snapshot);
    if (problem.code === 'buyer_data') {
      return t(problem.message === 'link_expired' ? 'wallet.detailsExpired' : 'wallet.detailsFailed');
    }
    return explainWalletProblem(t, problem, choice?.networkName ?? '');
  }

  function notEnough(snapshot: CheckoutSnapshot): string {
    return t('wallet.notEnough', {
      account: shortAddress(snapshot.wallet?.address ?? ''),
      amount: attempt?.choice.amountText ?? '',
      network: attempt?.choice.networkName ?? '',
    });
  }

  function progressText(snapshot: CheckoutSnapshot): string | undefined {
    const named = { wallet: attempt?.wallet.name ?? '' };
    switch (snapshot.stage) {
      case 'connecting':
        return named.wallet ? t('wallet.connecting', named) : t('wallet.connectingUnnamed');
      case 'quoting':
        return t('wallet.gettingAmount', { account: shortAddress(snapshot.wallet?.address ?? '') });
      case 'signing':
        return named.wallet ? t('wallet.confirm', named) : t('wallet.confirmUnnamed');
      case 'confirming':
      case 'processing':
        return t('wallet.sent');
      default:
        return undefined;
    }
  }

  function follow(snapshot: CheckoutSnapshot): void {
    if (!attempt) return;
    setBusy(WORKING.has(snapshot.stage));
    if (snapshot.stage === 'collecting' && snapshot.collectData && !collectBox.querySelector('iframe')) {
      showProgress(undefined);
      showDetailsForm(snapshot.collectData.url);
    }
    if (snapshot.error && snapshot.error !== shownProblem) {
      shownProblem = snapshot.error;
      showError(explain(snapshot, snapshot.error));
    } else if (!snapshot.error) {
      showProgress(progressText(snapshot));
    }
  }

  /** Connects the wallet (quoting only the picked network), picks the option of the picked token, and pays it. */
  async function payWith(wallet: CheckoutWallet, choice: Choice): Promise<void> {
    if (busy) return;
    attempt = { wallet, choice };
    errorBox.hidden = true;
    const { actions } = session;
    await actions.connectWallet(wallet, { networks: [choice.network] });
    const quoted = session.getSnapshot();
    if (quoted.stage !== 'options' || quoted.error) return;
    const option = quoted.options.find(
      (candidate) => candidate.amount.unit.toLowerCase() === `caip19/${choice.asset}`.toLowerCase(),
    );
    if (!option) {
      showError(notEnough(quoted));
      return;
    }
    // The amount due is the one just quoted for the account: the list shows it, should the price have moved.
    const display = option.amount.display;
    const shown = choice.input.closest('label')?.querySelector('.option-amount');
    if (display && shown) {
      const amountText = formatTokenAmount(
        option.amount.value,
        { assetSymbol: display.assetSymbol, decimals: display.decimals },
        setup.locale,
      );
      shown.textContent = amountText;
      choice.amountText = amountText;
      title.replaceChildren(
        ...t.parts<'wallet.listTitle', HTMLSpanElement>('wallet.listTitle', {
          amount: figureOf(amountText),
          network: choice.networkName,
        }),
      );
    }
    actions.chooseOption(option.id);
    await actions.pay();
  }

  shortenLongList(accepted, t);
  accepted.addEventListener('change', () => {
    errorBox.hidden = true;
    render();
  });
  retryButton.addEventListener('click', () => {
    errorBox.hidden = true;
    // A confirmation whose answer was lost is sent again as signed; anything else starts the attempt over.
    if (session.getSnapshot().stage === 'confirming') void session.actions.retry();
    else if (attempt) void payWith(attempt.wallet, attempt.choice);
  });
  session.subscribe(() => {
    const snapshot = session.getSnapshot();
    if (snapshot.stage === 'underpaid') section.hidden = true;
    follow(snapshot);
  });
  watchEvmWallets((found) => {
    wallets.eip155 = found;
    render();
  });
  watchSolanaWallets((found) => {
    wallets.solana = found;
    render();
  });
}
