import {
  type Eip1193Provider,
  evmSignerFromEip1193,
  type GatewayClient,
  type PaymentOption,
  type PaymentStatus,
  payWithOption,
  UserRejectedError,
} from '@paygate/wallet/browser';
import { formatTokenAmount, preferredOptionIndex } from '../checkoutView.ts';
import { explainWalletError } from './walletMessages.ts';

export interface BrowserWalletSetup {
  provider: Eip1193Provider;
  client: GatewayClient;
  paymentId: string;
  /** CAIP-2 ids of the EVM chains the service accepts. */
  evmChains: string[];
  /** CAIP-19 ids of the tokens pegged to the payment's currency, preselected when offered. */
  assetsAtPar: string[];
  locale: string;
  /** Every status the gateway returns while paying. */
  onStatus: (status: PaymentStatus) => void;
}

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`checkout page lacks #${id}`);
  return found as T;
}

function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/**
 * "Pay with a browser wallet": connect (eth_requestAccounts), list the options the account can pay on every
 * accepted EVM chain, let the buyer pick one, then sign in the wallet and confirm through the gateway. Any
 * failure is explained with a way to try again.
 */
export function setUpBrowserWallet(setup: BrowserWalletSetup): void {
  const section = element('browser-wallet');
  const connectButton = element<HTMLButtonElement>('wallet-connect');
  const form = element<HTMLFormElement>('wallet-options');
  const legend = element('wallet-options-legend');
  const list = element('wallet-option-list');
  const payButton = element<HTMLButtonElement>('wallet-pay');
  const progress = element('wallet-progress');
  const collectBox = element('wallet-collect');
  const errorBox = element('wallet-error');
  const errorText = element('wallet-error-text');
  const retryButton = element<HTMLButtonElement>('wallet-retry');

  let options: PaymentOption[] = [];
  const networkNames = new Map<string, string>();

  function showProgress(text: string | undefined): void {
    progress.textContent = text ?? '';
    progress.hidden = !text;
  }

  function showError(text: string): void {
    showProgress(undefined);
    form.hidden = true;
    connectButton.hidden = true;
    errorText.textContent = text;
    errorBox.hidden = false;
    retryButton.focus();
  }

  function renderOptions(account: string): void {
    list.replaceChildren();
    const preferred = preferredOptionIndex(
      options.map((option) => option.amount.unit.replace(/^caip19\//, '')),
      setup.assetsAtPar,
    );
    options.forEach((option, index) => {
      const display = option.amount.display;
      const label = document.createElement('label');
      label.className = 'option';
      const radio = document.createElement('input');
      radio.type = 'radio';
      radio.name = 'option';
      radio.value = option.id;
      radio.checked = index === preferred;
      const text = document.createElement('span');
      const amount = document.createElement('span');
      amount.className = 'option-amount';
      amount.textContent = display
        ? formatTokenAmount(
            option.amount.value,
            { assetSymbol: display.assetSymbol, decimals: display.decimals },
            setup.locale,
          )
        : `${option.amount.value} (${option.amount.unit})`;
      const network = document.createElement('span');
      network.className = 'option-network';
      const chainId = option.account.split(':').slice(0, 2).join(':');
      network.textContent = display?.networkName ?? chainId;
      text.append(amount, network);
      label.append(radio, text);
      list.append(label);
    });
    legend.textContent = `Pay from ${shortAddress(account)} with`;
    form.hidden = false;
    connectButton.hidden = true;
    list.querySelector<HTMLInputElement>('input:checked')?.focus();
  }

  async function connect(): Promise<void> {
    errorBox.hidden = true;
    connectButton.disabled = true;
    showProgress('Waiting for your wallet to connect…');
    try {
      const accounts = await setup.provider.request({ method: 'eth_requestAccounts' });
      const account = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : undefined;
      if (!account) {
        showError('Your wallet shared no account. Unlock it or create an account, then try again.');
        return;
      }
      showProgress('Finding ways to pay from your account…');
      const response = await setup.client.getOptions(setup.paymentId, {
        accounts: setup.evmChains.map((chain) => `${chain}:${account}`),
      });
      options = response.options;
      for (const option of options) {
        const chainId = option.account.split(':').slice(0, 2).join(':');
        if (option.amount.display?.networkName) networkNames.set(chainId, option.amount.display.networkName);
      }
      showProgress(undefined);
      if (!options.length) {
        showError(
          `The account ${shortAddress(account)} holds no token that can pay this amount on the networks accepted here. Top it up or switch accounts in your wallet, then try again.`,
        );
        return;
      }
      renderOptions(account);
    } catch (error) {
      showError(
        error instanceof UserRejectedError || (error as { code?: unknown })?.code === 4001
          ? 'You declined to connect your wallet. Try again when you are ready.'
          : explainWalletError(error, networkNames),
      );
    } finally {
      connectButton.disabled = false;
    }
  }

  /**
   * The service's own form for buyer details (D14), framed in the page; resolves true once it signals
   * IC_COMPLETE (the answers went straight to the service), false after IC_ERROR, which is shown.
   */
  function collectBuyerData(url: string): Promise<boolean> {
    const frame = document.createElement('iframe');
    frame.src = url;
    frame.title = 'Your details for this payment';
    collectBox.querySelector('iframe')?.remove();
    collectBox.append(frame);
    collectBox.hidden = false;
    showProgress(undefined);
    frame.focus();
    const origin = new URL(url, window.location.href).origin;
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
        showError(
          signal.reason === 'link_expired'
            ? 'The time to give your details ran out. Try again to get a new form.'
            : 'Your details could not be taken for this payment. Try again, or scan the QR code with a phone wallet.',
        );
        resolve(false);
      };
      window.addEventListener('message', onMessage);
    });
  }

  async function pay(optionId: string): Promise<void> {
    const option = options.find((candidate) => candidate.id === optionId);
    if (!option) return;
    payButton.disabled = true;
    form.hidden = true;
    if (option.collectData && !(await collectBuyerData(option.collectData.url))) {
      payButton.disabled = false;
      return;
    }
    showProgress('Confirm the payment in your wallet…');
    try {
      await payWithOption({
        client: setup.client,
        paymentId: setup.paymentId,
        option,
        signers: { eip155: evmSignerFromEip1193(setup.provider) },
        onStatus: (status) => {
          showProgress('Payment sent. Waiting for the network to confirm it…');
          setup.onStatus(status);
        },
      });
    } catch (error) {
      showError(explainWalletError(error, networkNames));
    } finally {
      payButton.disabled = false;
    }
  }

  connectButton.addEventListener('click', () => void connect());
  retryButton.addEventListener('click', () => void connect());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = form.querySelector<HTMLInputElement>('input[name="option"]:checked');
    if (chosen) void pay(chosen.value);
  });
  section.hidden = false;
}
