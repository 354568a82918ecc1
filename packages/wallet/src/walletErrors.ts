/**
 * Why the wallet could not carry out an option. Every action either produces its result or stops the payment with
 * one of these (wallet rules 2 and 3): an action is never skipped, so a confirm is never sent misaligned.
 */
export class WalletError extends Error {
  override readonly name: string = 'WalletError';
  /** Machine-readable reason, stable across versions. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A method this wallet does not implement, or a namespace other than `eip155` and `solana`. */
export class UnsupportedActionError extends WalletError {
  override readonly name = 'UnsupportedActionError';
  readonly chainId: string;
  readonly method: string;

  /** `chainId` is empty for an action of unknown type, which names no chain. */
  constructor(chainId: string, method: string, reason: string) {
    super('unsupported_action', `Cannot execute ${method}${chainId ? ` on ${chainId}` : ''}: ${reason}`);
    this.chainId = chainId;
    this.method = method;
  }
}

/** The option needs a chain family the caller gave no signer for. */
export class MissingSignerError extends WalletError {
  override readonly name = 'MissingSignerError';
  readonly namespace: string;

  constructor(namespace: string, chainId: string, method: string) {
    super('missing_signer', `No ${namespace} signer was given, but the option needs ${method} on ${chainId}`);
    this.namespace = namespace;
  }
}

/** An action whose params are not what its method requires, or a signature request for another account or chain. */
export class InvalidActionError extends WalletError {
  override readonly name = 'InvalidActionError';

  constructor(message: string) {
    super('invalid_action', message);
  }
}

/** The user declined the request in their wallet (EIP-1193 error 4001). */
export class UserRejectedError extends WalletError {
  override readonly name = 'UserRejectedError';

  constructor(method: string, options?: { cause?: unknown }) {
    super('user_rejected', `The request (${method}) was rejected in the wallet`, options);
  }
}

/** The wallet does not know the chain (EIP-1193 error 4902), or no RPC URL was configured for it. */
export class UnknownChainError extends WalletError {
  override readonly name = 'UnknownChainError';
  readonly chainId: string;

  constructor(chainId: string, detail: string, options?: { cause?: unknown }) {
    super('unknown_chain', `Chain ${chainId} is not available: ${detail}`, options);
    this.chainId = chainId;
  }
}

/** A transaction the wallet sent was mined but reverted. */
export class TransactionRevertedError extends WalletError {
  override readonly name = 'TransactionRevertedError';
  readonly txHash: string;

  constructor(chainId: string, txHash: string) {
    super('transaction_reverted', `Transaction ${txHash} on ${chainId} reverted`);
    this.txHash = txHash;
  }
}

/** Any other error a wallet provider returned, with its EIP-1193 code when it had one. */
export class WalletProviderError extends WalletError {
  override readonly name = 'WalletProviderError';
  readonly providerCode: number | undefined;

  constructor(method: string, providerCode: number | undefined, detail: string, options?: { cause?: unknown }) {
    super(
      'provider_error',
      `The wallet failed ${method}${providerCode === undefined ? '' : ` (code ${providerCode})`}: ${detail}`,
      options,
    );
    this.providerCode = providerCode;
  }
}
