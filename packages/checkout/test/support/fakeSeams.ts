import {
  GatewayError,
  GatewayNetworkError,
  type GatewayPayment,
  type NetworksResponse,
  type OptionsResponse,
  type PaymentOption,
  type PaymentStatus,
} from '@paygate/wallet/browser';
import type { CheckoutClock, CheckoutTransport, CheckoutWallet } from '../../src/index.ts';

export const PAYMENT_ID = 'pay_01JTESTPAYMENT0000000000000';
export const EVM_CHAIN = 'eip155:8453';
export const ADDRESS = '0x00000000000000000000000000000000000000b1';

export function payment(status: PaymentStatus['status'] = 'requires_action'): GatewayPayment {
  return {
    status,
    amount: {
      unit: 'iso4217/USD',
      value: '1000',
      display: { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 },
    },
    expiresAt: 1_900_000_000,
    merchant: { name: 'Shop', iconUrl: null },
  };
}

export function option(id: string, overrides: Partial<PaymentOption> = {}): PaymentOption {
  return {
    id,
    account: `${EVM_CHAIN}:${ADDRESS}`,
    amount: {
      unit: `caip19/${EVM_CHAIN}/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913`,
      value: '10000000',
      display: { assetSymbol: 'USDC', assetName: 'USD Coin', decimals: 6 },
    },
    etaS: 2,
    expiresAt: null,
    actions: [
      {
        type: 'walletRpc',
        data: { chain_id: EVM_CHAIN, method: 'eth_signTypedData_v4', params: JSON.stringify([ADDRESS, '{}']) },
      },
    ],
    collectData: null,
    ...overrides,
  };
}

export const status = (value: PaymentStatus['status'], extra: Partial<PaymentStatus> = {}): PaymentStatus => ({
  status: value,
  isFinal: !['requires_action', 'processing'].includes(value),
  ...extra,
});

export const refused = (status: number, code: string) => new GatewayError({ status, code, message: code });
export const unreachable = () => new GatewayNetworkError('fetch failed', { cause: new Error('ECONNREFUSED') });

type Answer<T> = T | Error | (() => T | Error);
type Calls = { method: string; args: unknown[] }[];

/** A gateway scripted per call: each method answers from its queue, then with its default; every call is kept. */
export class ScriptedTransport implements CheckoutTransport {
  readonly calls: Calls = [];
  /** Held status requests the session ended. */
  endedStatus = 0;
  readonly queues: Record<string, Answer<unknown>[]> = {};
  /** A status request that finds nothing new waits here until `settleStatus`, as a long-poll would. */
  #heldStatus: ((status: PaymentStatus) => void)[] = [];
  defaults: {
    getPayment: Answer<GatewayPayment>;
    getNetworks: Answer<NetworksResponse>;
    getOptions: Answer<OptionsResponse>;
    confirm: Answer<PaymentStatus>;
    cancel: Answer<PaymentStatus>;
  } = {
    getPayment: payment(),
    getNetworks: {
      networks: [
        { id: EVM_CHAIN, name: 'Base', confirmations: 1, tokens: [] },
        { id: 'eip155:10', name: 'Optimism', confirmations: 1, tokens: [] },
        { id: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', name: 'Solana', confirmations: 1, tokens: [] },
      ],
    },
    getOptions: { options: [option('opt_a'), option('opt_b')] },
    confirm: status('processing', { pollInMs: 1000 }),
    cancel: status('cancelled'),
  };

  script(method: string, ...answers: Answer<unknown>[]): this {
    this.queues[method] = [...(this.queues[method] ?? []), ...answers];
    return this;
  }

  /** Answers every held status request with `next`. */
  settleStatus(next: PaymentStatus): void {
    const held = this.#heldStatus;
    this.#heldStatus = [];
    for (const resolve of held) resolve(next);
  }

  count(method: string): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  last(method: string): unknown[] | undefined {
    return this.calls.filter((call) => call.method === method).at(-1)?.args;
  }

  async #answer<T>(method: string, args: unknown[], fallback: Answer<T>): Promise<T> {
    this.calls.push({ method, args });
    await Promise.resolve();
    const queued = this.queues[method]?.shift();
    let answer = (queued ?? fallback) as Answer<T>;
    if (typeof answer === 'function') answer = (answer as () => T | Error)();
    if (answer instanceof Error) throw answer;
    return structuredClone(answer);
  }

  getPayment = (...args: unknown[]) => this.#answer('getPayment', args, this.defaults.getPayment);
  getNetworks = (...args: unknown[]) => this.#answer('getNetworks', args, this.defaults.getNetworks);
  getOptions = ((...args: unknown[]) =>
    this.#answer('getOptions', args, this.defaults.getOptions)) as CheckoutTransport['getOptions'];
  fetchActions = ((...args: unknown[]) =>
    this.#answer('fetchActions', args, { actions: [] })) as CheckoutTransport['fetchActions'];
  confirm = ((...args: unknown[]) =>
    this.#answer('confirm', args, this.defaults.confirm)) as CheckoutTransport['confirm'];
  cancel = ((...args: unknown[]) =>
    this.#answer('cancel', args, this.defaults.cancel)) as unknown as CheckoutTransport['cancel'];
  getStatus = ((paymentId: string, options: { maxPollMs?: number; since?: string; signal?: AbortSignal } = {}) => {
    // Kept without the signal, which is the session's own business; a call it ends rejects, as fetch does.
    const { signal, ...rest } = options;
    const args = [paymentId, rest];
    if (this.queues.getStatus?.length) return this.#answer('getStatus', args, status('requires_action'));
    this.calls.push({ method: 'getStatus', args });
    return new Promise<PaymentStatus>((resolve, reject) => {
      const held = (next: PaymentStatus) => resolve(next);
      this.#heldStatus.push(held);
      signal?.addEventListener('abort', () => {
        this.#heldStatus = this.#heldStatus.filter((candidate) => candidate !== held);
        this.endedStatus += 1;
        reject(signal.reason);
      });
    });
  }) as CheckoutTransport['getStatus'];
}

/** A clock that moves only when told. */
export class FakeClock implements CheckoutClock {
  #now = 1_800_000_000_000;
  #sleepers: { until: number; resolve: () => void }[] = [];

  now = () => this.#now;

  sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      this.#sleepers.push({ until: this.#now + ms, resolve });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });

  async advance(ms: number): Promise<void> {
    this.#now += ms;
    const due = this.#sleepers.filter((sleeper) => sleeper.until <= this.#now);
    this.#sleepers = this.#sleepers.filter((sleeper) => sleeper.until > this.#now);
    for (const sleeper of due) sleeper.resolve();
    await settle();
  }

  get sleeping(): number {
    return this.#sleepers.length;
  }
}

/** Lets every pending promise chain run. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) await new Promise((resolve) => setImmediate(resolve));
}

export interface ScriptedWallet extends CheckoutWallet {
  signed: unknown[];
}

/** A wallet whose account and signatures are scripted; it keeps every request it signed. */
export function scriptedWallet(
  script: { connect?: () => Promise<string | undefined>; sign?: () => Promise<string> } = {},
): ScriptedWallet {
  const signed: unknown[] = [];
  return {
    id: 'scripted',
    name: 'Scripted',
    icon: undefined,
    namespace: 'eip155',
    signed,
    connect: script.connect ?? (async () => ADDRESS),
    signers: () => ({
      eip155: {
        async request(args) {
          signed.push(args);
          return script.sign ? script.sign() : `0x${'ab'.repeat(65)}`;
        },
      },
    }),
  };
}
