import type { GatewayClient, Signers } from '@paygate/wallet/browser';

/**
 * How the runtime reaches paygate: a `GatewayClient` (in Node, with a key), or `browserTransport` (in a page, through
 * the integrator's server route, which holds the key).
 */
export type CheckoutTransport = Pick<
  GatewayClient,
  'getPayment' | 'getNetworks' | 'getOptions' | 'fetchActions' | 'confirm' | 'getStatus' | 'cancel'
>;

export type WalletNamespace = keyof Signers;

/** A wallet the buyer can pay with: a browser wallet (EIP-6963, Wallet Standard), any EIP-1193 provider, or keys. */
export interface CheckoutWallet {
  /** Stable within a page, e.g. the EIP-6963 uuid. */
  id: string;
  /** As the wallet names itself; empty when it gives no name. */
  name: string;
  /** An image data URI, or undefined. */
  icon: string | undefined;
  namespace: WalletNamespace;
  /** Why the wallet cannot pay here, when it cannot (it is listed, not offered). */
  unsupported?: string | undefined;
  /** Asks the wallet for an account: its address, or undefined when it shares none. */
  connect(): Promise<string | undefined>;
  /** What signs an option's actions on the network (CAIP-2), once connected. */
  signers(network: string): Signers;
}

/** Time, for the runtime's waits: a test drives a fake one. */
export interface CheckoutClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** What the runtime reports for an integrator's analytics: stage changes and problems, never keys or signatures. */
export interface CheckoutTelemetry {
  event(name: string, fields: Record<string, string | number | boolean | null>): void;
}

export const systemClock: CheckoutClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    }),
};

export const silentTelemetry: CheckoutTelemetry = { event: () => undefined };

export interface CheckoutSeams {
  transport: CheckoutTransport;
  clock?: CheckoutClock;
  telemetry?: CheckoutTelemetry;
}
