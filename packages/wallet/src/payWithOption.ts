import type { GatewayClient } from './gatewayClient.ts';
import type {
  Action,
  CollectedData,
  GatewayPaymentStatusValue,
  PaymentOption,
  PaymentStatus,
  SucceededInfo,
  WalletRpcAction,
  WalletRpcResult,
} from './gatewayTypes.ts';
import { type Signers, SUPPORTED_METHODS } from './signers.ts';
import { InvalidActionError, MissingSignerError, UnsupportedActionError } from './walletErrors.ts';

/** The parts of an option needed to pay it: its id (sent back as `optionId`) and its actions, in order. */
export type PayableOption = Pick<PaymentOption, 'id' | 'actions'>;

export interface ExecuteOptionParams {
  /** A `GatewayClient`, or anything that resolves build actions as its `fetchActions` does. */
  client: Pick<GatewayClient, 'fetchActions'>;
  paymentId: string;
  option: PayableOption;
  signers: Signers;
}

export interface PayWithOptionParams extends ExecuteOptionParams {
  client: Pick<GatewayClient, 'fetchActions' | 'confirm' | 'getStatus'>;
  /** Only when the wallet rendered its own data form; not after the WebView flow (interface, confirm rule 4). */
  collectedData?: CollectedData;
  /** How long each confirm and status request may be held by the server. Default 25 000 ms. */
  maxPollMs?: number;
  /** Called with every status the service returns, the final one included. */
  onStatus?: (status: PaymentStatus) => void;
}

export interface PayResult {
  status: GatewayPaymentStatusValue;
  /** Token amount and transaction id, when succeeded. */
  info?: SucceededInfo;
  /** Only when failed, e.g. `declined_user`. */
  failureCode?: string;
}

const DEFAULT_MAX_POLL_MS = 25_000;
/** Between status checks when neither a long-poll nor a `pollInMs` hint spaces them. */
const FALLBACK_POLL_DELAY_MS = 1_000;
const CAIP2 = /^([-a-z0-9]{3,8}):[-_a-zA-Z0-9]{1,32}$/;

type Namespace = keyof Signers;

/** Checks that an action can be executed with the given signers, before anything of the option is signed or sent. */
function routeOf(action: WalletRpcAction, signers: Signers): Namespace {
  const { chain_id: chainId, method } = action.data;
  const namespace = CAIP2.exec(chainId)?.[1];
  if (namespace === undefined)
    throw new InvalidActionError(`Action ${method} has a malformed chain id: ${JSON.stringify(chainId)}`);
  if (namespace !== 'eip155' && namespace !== 'solana') {
    throw new UnsupportedActionError(
      chainId,
      method,
      `the ${namespace} namespace is not supported (only eip155 and solana)`,
    );
  }
  if (!(SUPPORTED_METHODS[namespace] as readonly string[]).includes(method)) {
    throw new UnsupportedActionError(
      chainId,
      method,
      `unknown method (supported: ${SUPPORTED_METHODS[namespace].join(', ')})`,
    );
  }
  if (!signers[namespace]) throw new MissingSignerError(namespace, chainId, method);
  return namespace;
}

function parseParams(action: WalletRpcAction): unknown[] {
  let params: unknown;
  try {
    params = JSON.parse(action.data.params);
  } catch {
    throw new InvalidActionError(`The params of ${action.data.method} are not JSON`);
  }
  if (!Array.isArray(params)) throw new InvalidActionError(`The params of ${action.data.method} are not a JSON array`);
  return params;
}

/** `solana_signTransaction` params are `[{ transaction }]`: the array is unwrapped (wallet rule 3). */
function solanaTransactionOf(action: WalletRpcAction): string {
  const [wrapped, ...rest] = parseParams(action);
  const transaction =
    typeof wrapped === 'object' && wrapped !== null ? (wrapped as { transaction?: unknown }).transaction : undefined;
  if (rest.length || typeof transaction !== 'string' || !transaction) {
    throw new InvalidActionError('solana_signTransaction params must be [{"transaction": "<base64>"}]');
  }
  return transaction;
}

async function executeWalletRpc(action: WalletRpcAction, signers: Signers): Promise<string> {
  const namespace = routeOf(action, signers);
  const { chain_id: chainId, method } = action.data;
  const result =
    namespace === 'eip155'
      ? await signers.eip155!.request({ chainId, method, params: parseParams(action) })
      : await signers.solana!.signTransaction(solanaTransactionOf(action));
  if (typeof result !== 'string' || !result)
    throw new InvalidActionError(`The ${namespace} signer returned no result for ${method}`);
  return result;
}

async function executeAll(actions: WalletRpcAction[], signers: Signers): Promise<string[]> {
  // All routable first: a later unsupported action must not leave an approval sent for nothing.
  for (const action of actions) routeOf(action, signers);
  const values: string[] = [];
  for (const action of actions) values.push(await executeWalletRpc(action, signers));
  return values;
}

function unknownTypeError(action: Action): UnsupportedActionError {
  return new UnsupportedActionError(
    '',
    `an action of type ${String((action as { type?: unknown }).type)}`,
    'unknown action type',
  );
}

/**
 * Executes an option's actions in order and returns one result per action, aligned with `option.actions` (confirm
 * rule 1). A `build` action is resolved through the gateway's fetch; its result holds one value per action the
 * build yielded, in their order. Throws a `WalletError` (or the client's `GatewayError`) instead of skipping.
 */
export async function executeOptionActions({
  client,
  paymentId,
  option,
  signers,
}: ExecuteOptionParams): Promise<WalletRpcResult[]> {
  for (const action of option.actions) {
    if (action.type === 'walletRpc') routeOf(action, signers);
    else if (action.type !== 'build') throw unknownTypeError(action);
  }
  const results: WalletRpcResult[] = [];
  for (const action of option.actions) {
    if (action.type === 'walletRpc') {
      results.push({ type: 'walletRpc', data: await executeAll([action], signers) });
      continue;
    }
    const { actions } = await client.fetchActions(paymentId, { optionId: option.id, data: action.data.data });
    if (!actions.length) throw new InvalidActionError('The build action resolved into no actions');
    results.push({ type: 'walletRpc', data: await executeAll(actions, signers) });
  }
  return results;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Pays a payment with one of its options: executes the actions in order, confirms, then follows the status
 * (long-polling up to `maxPollMs`, waiting `pollInMs` between checks) until it is final.
 */
export async function payWithOption(params: PayWithOptionParams): Promise<PayResult> {
  const { client, paymentId, option, collectedData, onStatus } = params;
  const maxPollMs = params.maxPollMs ?? DEFAULT_MAX_POLL_MS;
  const results = await executeOptionActions(params);
  let status = await client.confirm(
    paymentId,
    { optionId: option.id, results, ...(collectedData ? { collectedData } : {}) },
    { maxPollMs },
  );
  onStatus?.(status);
  while (!status.isFinal) {
    await sleep(status.pollInMs ?? (maxPollMs > 0 ? 0 : FALLBACK_POLL_DELAY_MS));
    status = await client.getStatus(paymentId, { maxPollMs });
    onStatus?.(status);
  }
  const result: PayResult = { status: status.status };
  if (status.info) result.info = status.info;
  if (status.failureCode !== undefined) result.failureCode = status.failureCode;
  return result;
}
