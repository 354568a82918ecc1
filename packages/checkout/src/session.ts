import {
  type AcceptedNetwork,
  type CollectedData,
  executeOptionActions,
  GatewayError,
  GatewayNetworkError,
  type PaymentOption,
  type PaymentStatus,
  WalletError,
  type WalletRpcResult,
} from '@paygate/wallet/browser';
import {
  type CheckoutClock,
  type CheckoutSeams,
  type CheckoutTelemetry,
  type CheckoutWallet,
  silentTelemetry,
  systemClock,
} from './seams.ts';
import {
  type CheckoutError,
  type CheckoutSnapshot,
  type CheckoutStage,
  FINAL_STAGES,
  initialSnapshot,
  selectedOption,
} from './snapshot.ts';

/** What the buyer does; each one is ignored (never thrown) when the stage does not allow it. */
export interface CheckoutActions {
  /**
   * Connect a wallet, then quote the ways its account can pay: on every network of its namespace the service
   * accepts, or only on `networks` (CAIP-2 ids), e.g. the one the buyer already picked.
   */
  connectWallet(wallet: CheckoutWallet, options?: { networks?: readonly string[] }): Promise<void>;
  /** Pick one of the quoted options. */
  chooseOption(optionId: string): void;
  /** Ask for fresh quotes for the connected account. */
  refreshQuotes(): Promise<void>;
  /** Pay the picked option: its details form first when it has one, then the wallet signs and the service confirms. */
  pay(): Promise<void>;
  /** The page rendered its own form from `collectData.schema`: these answers go with the confirmation. */
  submitBuyerData(data: CollectedData): Promise<void>;
  /** The form at `collectData.url` signalled `IC_COMPLETE` (the answers went to the service directly). */
  buyerDataFormCompleted(): Promise<void>;
  /** The form at `collectData.url` signalled `IC_ERROR`. */
  buyerDataFormFailed(reason: string): void;
  /** Forget the wallet, to connect another. */
  disconnectWallet(): void;
  /** The buyer declines the payment. */
  cancelPayment(): Promise<void>;
  /** Repeat what failed (`error.retryable`); a confirmation is repeated with the same signed results, never re-signed. */
  retry(): Promise<void>;
}

export interface PaymentSession {
  readonly actions: CheckoutActions;
  getSnapshot(): CheckoutSnapshot;
  /** Called after every change of the snapshot; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** Load the payment and follow its status; again after `stop`, to resume. */
  start(): void;
  /** Stop following the status; a wallet request under way still completes. */
  stop(): void;
}

/** Where the buyer chooses what to do next; a partial payment arriving there asks for the rest instead. */
const AWAITING_THE_BUYER: readonly CheckoutStage[] = ['connect', 'options', 'collecting'];

/** The longest the gateway holds a status or confirm request; it answers at once on a change. */
const LONG_POLL_MS = 25_000;
/**
 * After the payment loads, the status is first checked this much later: a buyer takes longer to choose and sign,
 * and a flow that pays at once (an agent, a server) has its confirmation's answer as the status, with no request
 * of the follower's at all.
 */
const FIRST_CHECK_AFTER_MS = 2_000;
/** Between status checks when the gateway answered at once with no change and gave no hint. */
const STATUS_RECHECK_MS = 2_000;
const MAX_BACKOFF_MS = 30_000;
/** The gateway takes at most this many accounts per options request. */
const MAX_ACCOUNTS = 20;

interface Follower {
  /** Ends its request and wait when the page stops the session. */
  controller: AbortController;
  /** False once paused: what its request answers is ignored, and it ends. */
  listening: boolean;
}

/** Signed results sent to confirm whose answer has not come: repeated as they are, never signed again. */
interface PendingConfirmation {
  optionId: string;
  results: WalletRpcResult[];
  collectedData?: CollectedData;
}

function problemOf(error: unknown): CheckoutError {
  if (error instanceof GatewayNetworkError) return { code: 'network', message: error.message, retryable: true };
  if (error instanceof GatewayError) {
    return { code: error.code, message: error.message, retryable: error.status >= 500 || error.status === 429 };
  }
  if (error instanceof WalletError) return { code: error.code, message: error.message, retryable: true };
  return { code: 'unexpected', message: error instanceof Error ? error.message : String(error), retryable: true };
}

/** A refusal the service will give again: not worth repeating as it is. */
function isRefusal(error: unknown): error is GatewayError {
  return error instanceof GatewayError && error.status < 500 && error.status !== 429;
}

function networkOf(account: string): string {
  return account.split(':').slice(0, 2).join(':');
}

function stageOfStatus(status: PaymentStatus['status']): CheckoutStage | undefined {
  return status === 'requires_action' ? undefined : status;
}

/**
 * A payment's checkout, from load to outcome, as a snapshot and the buyer's actions. It reaches the outside only
 * through its seams. Outcomes are states, never exceptions. Once a wallet has signed, the same results are what a
 * retry confirms: a buyer is never asked to sign twice for one answer that did not come.
 */
export function createPaymentSession(paymentId: string, seams: CheckoutSeams): PaymentSession {
  const { transport } = seams;
  const clock: CheckoutClock = seams.clock ?? systemClock;
  const telemetry: CheckoutTelemetry = seams.telemetry ?? silentTelemetry;
  const listeners = new Set<() => void>();
  let snapshot = initialSnapshot(paymentId);
  /** Whether the page stopped the session (`stop`) and has not started it again. */
  let stopped = true;
  /** The status follower, while one runs. */
  let follower: Follower | undefined;
  let busy = false;
  let loading = false;
  let wallet: CheckoutWallet | undefined;
  /** The networks the buyer limited quotes to, if any. */
  let quotedNetworks: readonly string[] | undefined;
  let networks: AcceptedNetwork[] | undefined;
  let pending: PendingConfirmation | undefined;
  /** The `version` of the last payment or status the gateway answered with: a long-poll waits for a change from it. */
  let seenVersion: string | undefined;
  let retryStep: (() => Promise<void>) | undefined;
  const buyerDataGiven = new Set<string>();

  function update(change: Partial<CheckoutSnapshot>): void {
    const next = { ...snapshot, ...change };
    if (next.stage !== snapshot.stage) telemetry.event('stage', { from: snapshot.stage, to: next.stage, paymentId });
    if (next.error && next.error !== snapshot.error) {
      telemetry.event('problem', { stage: next.stage, code: next.error.code, paymentId });
    }
    snapshot = next;
    for (const listener of listeners) listener();
  }

  const isFinal = () => FINAL_STAGES.has(snapshot.stage);

  function fail(error: unknown, stage: CheckoutStage, retry: () => Promise<void>): void {
    const problem = problemOf(error);
    retryStep = problem.retryable ? retry : undefined;
    update({ stage, error: problem });
  }

  let queue = Promise.resolve();

  /**
   * Runs the buyer's actions one after another: one that comes while another runs waits for it, then runs only if the
   * stage it reached allows it (a second click on pay finds the payment processing). Never rejects.
   */
  function exclusive(allowed: readonly CheckoutStage[], step: () => Promise<void>): Promise<void> {
    queue = queue.then(async () => {
      if (!allowed.includes(snapshot.stage)) return;
      busy = true;
      try {
        await step();
      } catch (error) {
        // Every step handles the failures it expects; anything else is shown rather than thrown at the page.
        fail(error, snapshot.stage, step);
      } finally {
        busy = false;
      }
      askForTheRest();
    });
    return queue;
  }

  /**
   * Once part of the payment arrived, the buyer is asked for the rest instead of offered a wallet: at once when no
   * action runs, else when it ends.
   */
  function askForTheRest(): void {
    if (busy || pending || !snapshot.received.length || !AWAITING_THE_BUYER.includes(snapshot.stage)) return;
    retryStep = undefined;
    update({ stage: 'underpaid', collectData: null, error: null });
  }

  function applyStatus(status: PaymentStatus): void {
    if (status.version) seenVersion = status.version;
    const outcome = stageOfStatus(status.status);
    if (!outcome) {
      const received = status.received ?? [];
      if (JSON.stringify(received) !== JSON.stringify(snapshot.received)) update({ received });
      // The stage follows what the service says, whichever way it changes.
      if (snapshot.stage === 'underpaid' && !received.length) update({ stage: wallet ? 'options' : 'connect' });
      // A payment back to requires_action (a submission the network refused): the buyer may pay again.
      if (snapshot.stage === 'processing' && !busy) update({ stage: wallet ? 'options' : 'connect' });
      askForTheRest();
      return;
    }
    // An outcome is final; the same one again may add what the payment loaded without (the paid amount).
    if (isFinal() && snapshot.stage !== outcome) return;
    pending = undefined;
    retryStep = undefined;
    update({
      stage: outcome,
      paid: status.info ?? null,
      failureCode: status.failureCode ?? null,
      collectData: null,
      received: [],
      error: null,
    });
  }

  /**
   * Follows the status by long-poll until the outcome, so a payment paid elsewhere or expired shows here too. The
   * first request is made after `startAfterMs` and waits `firstWaitMs`: none when the page may be behind (a
   * resumed session, a pause), a whole long-poll right after the service answered with the status.
   */
  async function follow(firstWaitMs = 0, startAfterMs = 0): Promise<void> {
    if (stopped || follower) return;
    const mine: Follower = { controller: new AbortController(), listening: true };
    follower = mine;
    const { signal } = mine.controller;
    const heard = () => mine.listening && !signal.aborted;
    let maxPollMs = firstWaitMs;
    let failures = 0;
    try {
      if (startAfterMs) await clock.sleep(startAfterMs, signal);
      // One check even of a payment loaded final: its status carries the paid amount or the failure code.
      let checks = 0;
      while (heard() && (checks++ === 0 || !isFinal())) {
        const started = clock.now();
        try {
          const since = seenVersion;
          const status = await transport.getStatus(paymentId, { maxPollMs, signal, ...(since ? { since } : {}) });
          if (!heard()) return;
          const before = snapshot;
          applyStatus(status);
          failures = 0;
          const held = maxPollMs > 0;
          maxPollMs = LONG_POLL_MS;
          // Asked to hold, the gateway answered at once with nothing new: it holds nothing, so the next check waits.
          const nothingNew = before === snapshot && status.version === since;
          if (held && nothingNew && clock.now() - started < 1_000) {
            await clock.sleep(status.pollInMs ?? STATUS_RECHECK_MS, signal);
          }
        } catch (error) {
          if (!heard()) return;
          if (isRefusal(error)) {
            fail(error, snapshot.stage, () => follow());
            return;
          }
          failures += 1;
          await clock.sleep(Math.min(1_000 * 2 ** failures, MAX_BACKOFF_MS), signal);
        }
      }
    } finally {
      if (follower === mine) follower = undefined;
    }
  }

  /**
   * While the runtime's own confirmation is held, its answer is the status: the follower's request is left to run
   * out unheard rather than ended, since ending a request closes its connection and the next must open another.
   */
  function pauseFollowing(): void {
    if (follower) follower.listening = false;
    follower = undefined;
  }

  async function load(): Promise<void> {
    try {
      const { received = [], version, ...payment } = await transport.getPayment(paymentId);
      seenVersion = version;
      retryStep = undefined;
      const stage = stageOfStatus(payment.status) ?? (received.length ? 'underpaid' : 'connect');
      update({ payment, received, stage, error: null });
    } catch (error) {
      fail(error, isRefusal(error) ? 'unavailable' : 'loading', load);
      return;
    }
    // A payment loaded final has its paid amount or failure code in its status: asked at once. Else a long-poll
    // from the version loaded: a change made since answers it at once.
    if (isFinal()) void follow();
    else void follow(seenVersion ? LONG_POLL_MS : 0, FIRST_CHECK_AFTER_MS);
  }

  async function accountsOf(connected: CheckoutWallet, address: string): Promise<string[]> {
    if (!quotedNetworks) networks ??= (await transport.getNetworks()).networks;
    const ids = quotedNetworks ?? (networks ?? []).map((network) => network.id);
    return ids
      .filter((id) => id.startsWith(`${connected.namespace}:`))
      .slice(0, MAX_ACCOUNTS)
      .map((id) => `${id}:${address}`);
  }

  async function quote(refresh?: string[]): Promise<void> {
    const connected = wallet;
    const address = snapshot.wallet?.address;
    if (!connected || !address) return;
    update({ stage: 'quoting', error: null });
    let options: PaymentOption[];
    try {
      const accounts = await accountsOf(connected, address);
      ({ options } = await transport.getOptions(paymentId, { accounts, ...(refresh ? { refresh } : {}) }));
    } catch (error) {
      fail(error, 'options', () => quote(refresh));
      return;
    }
    if (isFinal()) return;
    const kept = options.some((option) => option.id === snapshot.selectedOptionId);
    const selectedOptionId = kept ? snapshot.selectedOptionId : (options[0]?.id ?? null);
    retryStep = options.length ? undefined : () => quote();
    update({
      stage: 'options',
      options,
      selectedOptionId,
      error: options.length
        ? null
        : { code: 'no_option', message: 'The account holds nothing this payment accepts.', retryable: true },
    });
  }

  async function connect(candidate: CheckoutWallet, limitTo?: readonly string[]): Promise<void> {
    if (candidate.unsupported) {
      update({ error: { code: 'unsupported_wallet', message: candidate.unsupported, retryable: false } });
      return;
    }
    update({ stage: 'connecting', error: null });
    let address: string | undefined;
    try {
      address = await candidate.connect();
    } catch (error) {
      fail(error, 'connect', () => connect(candidate, limitTo));
      return;
    }
    if (isFinal()) return;
    if (!address) {
      retryStep = () => connect(candidate, limitTo);
      update({
        stage: 'connect',
        error: { code: 'no_account', message: 'The wallet shared no account.', retryable: true },
      });
      return;
    }
    wallet = candidate;
    quotedNetworks = limitTo;
    update({
      wallet: { id: candidate.id, name: candidate.name, namespace: candidate.namespace, address },
      options: [],
      selectedOptionId: null,
    });
    await quote();
  }

  async function confirm(): Promise<void> {
    const confirmation = pending;
    if (!confirmation) return;
    update({ stage: 'confirming', error: null });
    pauseFollowing();
    let status: PaymentStatus;
    try {
      status = await transport.confirm(paymentId, confirmation, { maxPollMs: LONG_POLL_MS });
    } catch (error) {
      // The status is unknown: the follower checks it at once.
      void follow();
      if (isRefusal(error)) {
        // The service refused these results and will never submit them: the buyer may pay again.
        pending = undefined;
        fail(error, 'options', pay);
        return;
      }
      // No answer: the results may have been taken; only the same ones are ever sent again.
      fail(error, 'confirming', confirm);
      return;
    }
    pending = undefined;
    retryStep = undefined;
    applyStatus(status);
    if (!isFinal()) {
      update({ stage: 'processing' });
      // The answer is fresh: the follower holds its first request until the status changes.
      void follow(LONG_POLL_MS);
    }
  }

  async function sign(option: PaymentOption, collectedData?: CollectedData): Promise<void> {
    const connected = wallet;
    if (!connected) return;
    update({ stage: 'signing', collectData: null, error: null });
    let results: WalletRpcResult[];
    try {
      results = await executeOptionActions({
        client: transport,
        paymentId,
        option,
        signers: connected.signers(networkOf(option.account)),
      });
    } catch (error) {
      fail(error, 'options', pay);
      return;
    }
    if (isFinal()) return;
    pending = { optionId: option.id, results, ...(collectedData ? { collectedData } : {}) };
    await confirm();
  }

  async function pay(): Promise<void> {
    const option = selectedOption(snapshot);
    if (!option || !wallet || pending) return;
    if (option.expiresAt !== null && option.expiresAt * 1000 <= clock.now()) {
      // The buyer sees the new amount before paying it.
      await quote([option.id]);
      return;
    }
    if (option.collectData && !buyerDataGiven.has(option.id)) {
      retryStep = undefined;
      update({ stage: 'collecting', collectData: option.collectData, error: null });
      return;
    }
    await sign(option);
  }

  async function cancel(): Promise<void> {
    try {
      applyStatus(await transport.cancel(paymentId));
    } catch (error) {
      fail(error, snapshot.stage, cancel);
    }
  }

  const BEFORE_SIGNING: readonly CheckoutStage[] = ['connect', 'options', 'collecting'];
  const RETRYABLE_STAGES: readonly CheckoutStage[] = ['loading', 'connect', 'options', 'confirming', 'processing'];

  const actions: CheckoutActions = {
    connectWallet: (candidate, options) =>
      exclusive(['connect', 'options'], () => connect(candidate, options?.networks)),
    chooseOption(optionId) {
      if (snapshot.stage !== 'options' || !snapshot.options.some((option) => option.id === optionId)) return;
      update({ selectedOptionId: optionId, error: null });
    },
    refreshQuotes: () => exclusive(['options'], () => quote(snapshot.options.map((option) => option.id))),
    pay: () => exclusive(['options'], pay),
    submitBuyerData: (data) =>
      exclusive(['collecting'], async () => {
        const option = selectedOption(snapshot);
        if (!option) return;
        buyerDataGiven.add(option.id);
        await sign(option, data);
      }),
    buyerDataFormCompleted: () =>
      exclusive(['collecting'], async () => {
        const option = selectedOption(snapshot);
        if (!option) return;
        buyerDataGiven.add(option.id);
        await sign(option);
      }),
    buyerDataFormFailed(reason) {
      if (snapshot.stage !== 'collecting') return;
      retryStep = pay;
      update({ stage: 'options', collectData: null, error: { code: 'buyer_data', message: reason, retryable: true } });
    },
    disconnectWallet() {
      if (pending || !BEFORE_SIGNING.includes(snapshot.stage)) return;
      wallet = undefined;
      quotedNetworks = undefined;
      retryStep = undefined;
      update({ stage: 'connect', wallet: null, options: [], selectedOptionId: null, collectData: null, error: null });
    },
    cancelPayment: () => (pending ? Promise.resolve() : exclusive(BEFORE_SIGNING, cancel)),
    retry: () =>
      exclusive(RETRYABLE_STAGES, async () => {
        const step = retryStep;
        if (step && snapshot.error?.retryable) await step();
      }),
  };

  return {
    actions,
    getSnapshot: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start() {
      stopped = false;
      if (snapshot.stage === 'loading' && !loading) {
        loading = true;
        void load().finally(() => {
          loading = false;
        });
      } else if (!isFinal()) void follow();
    },
    stop() {
      stopped = true;
      follower?.controller.abort();
      follower = undefined;
    },
  };
}
