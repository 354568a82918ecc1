import { type CheckoutWallet, watchEvmWallets, watchSolanaWallets } from '@paygate/checkout';
import { type GatewayClient, type PaymentStatus, payWithOption, UserRejectedError } from '@paygate/wallet/browser';
import { formatTokenAmount } from './view.ts';
import type { Translate } from './i18n/translate.ts';
import { shortenLongList } from './acceptedList.ts';
import { explainWalletError } from './walletMessages.ts';

export interface BrowserWalletSetup {
  client: GatewayClient;
  paymentId: string;
  locale: string;
  t: Translate;
  /** Every status the gateway returns while paying. */
  onStatus: (status: PaymentStatus) => void;
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
 * Wallet Standard). A wallet's button connects it, asks the gateway for the account's option in the picked token,
 * and pays it through the gateway; any failure is explained with a way to try again.
 */
export function setUpBrowserWallet(setup: BrowserWalletSetup): void {
  const { t } = setup;
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
  let busy = false;
  let lastAttempt: { wallet: CheckoutWallet; choice: Choice } | undefined;

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
      button.addEventListener('click', () => void pay(wallet, choice));
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
    if (!choice) {
      section.hidden = true;
      return;
    }
    section.hidden = false;
    const usable = wallets[choice.namespace];
    title.textContent = t('wallet.listTitle', { amount: choice.amountText, network: choice.networkName });
    list.replaceChildren(...usable.map((wallet, index) => walletButton(wallet, choice, index)));
    title.hidden = !usable.length;
    noWallet.hidden = usable.length > 0;
    noWallet.textContent = t(choice.namespace === 'solana' ? 'wallet.noneSolana' : 'wallet.noneEvm', {
      network: choice.networkName,
    });
  }

  /**
   * The service's own form for buyer details (D14), framed in the page; resolves true once it signals
   * IC_COMPLETE (the answers went straight to the service), false after IC_ERROR, which is shown.
   */
  function collectBuyerData(url: string): Promise<boolean> {
    const frame = document.createElement('iframe');
    // The form speaks the page's language.
    const formUrl = new URL(url, window.location.href);
    formUrl.searchParams.set('locale', setup.locale);
    frame.src = formUrl.href;
    frame.title = t('wallet.detailsFrameTitle');
    collectBox.querySelector('iframe')?.remove();
    collectBox.append(frame);
    collectBox.hidden = false;
    showProgress(undefined);
    frame.focus();
    const origin = formUrl.origin;
    return new Promise((resolve) => {
      const onMessage = (event: MessageEvent) => {
        const signal = event.data as { type?: unknown; reason?: unknown } | null;
        if (event.source !== frame.contentWindow || event.origin !== origin || !signal) return;
        if (signal.type !== 'IC_COMPLETE' && signal.type !== 'IC_ERROR') return;
        window.removeEventListener('message', onMessage);
        collectBox.hidden = true;
        frame.remove();
        if (signal.type === 'IC_COMPLETE') {
          resolve(true);
          return;
        }
        showError(t(signal.reason === 'link_expired' ? 'wallet.detailsExpired' : 'wallet.detailsFailed'));
        resolve(false);
      };
      window.addEventListener('message', onMessage);
    });
  }

  async function pay(wallet: CheckoutWallet, choice: Choice): Promise<void> {
    if (busy) return;
    lastAttempt = { wallet, choice };
    errorBox.hidden = true;
    setBusy(true);
    const named = { wallet: wallet.name };
    const networkNames = new Map([[choice.network, choice.networkName]]);
    let connected = false;
    try {
      showProgress(wallet.name ? t('wallet.connecting', named) : t('wallet.connectingUnnamed'));
      const account = await wallet.connect();
      connected = true;
      if (!account) {
        showError(wallet.name ? t('wallet.noAccount', named) : t('wallet.noAccountUnnamed'));
        return;
      }
      showProgress(t('wallet.gettingAmount', { account: shortAddress(account) }));
      const { options } = await setup.client.getOptions(setup.paymentId, {
        accounts: [`${choice.network}:${account}`],
      });
      const option = options.find(
        (candidate) => candidate.amount.unit.toLowerCase() === `caip19/${choice.asset}`.toLowerCase(),
      );
      if (!option) {
        showError(
          t('wallet.notEnough', {
            account: shortAddress(account),
            amount: choice.amountText,
            network: choice.networkName,
          }),
        );
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
        title.textContent = t('wallet.listTitle', { amount: amountText, network: choice.networkName });
      }
      if (option.collectData && !(await collectBuyerData(option.collectData.url))) return;
      showProgress(wallet.name ? t('wallet.confirm', named) : t('wallet.confirmUnnamed'));
      await payWithOption({
        client: setup.client,
        paymentId: setup.paymentId,
        option,
        signers: wallet.signers(choice.network),
        onStatus: (status) => {
          showProgress(t('wallet.sent'));
          setup.onStatus(status);
        },
      });
    } catch (error) {
      const declined = error instanceof UserRejectedError || (error as { code?: unknown })?.code === 4001;
      showError(declined && !connected ? t('wallet.declinedConnect') : explainWalletError(t, error, networkNames));
    } finally {
      setBusy(false);
    }
  }

  shortenLongList(accepted, t);
  accepted.addEventListener('change', () => {
    errorBox.hidden = true;
    render();
  });
  retryButton.addEventListener('click', () => {
    if (lastAttempt) void pay(lastAttempt.wallet, lastAttempt.choice);
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
