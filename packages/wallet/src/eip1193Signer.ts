import { type EvmSigner, evmChainNumber } from './signers.ts';
import { UnknownChainError, UserRejectedError, WalletError, WalletProviderError } from './walletErrors.ts';

/** The part of an EIP-1193 provider (`window.ethereum`, WalletConnect, ...) the signer uses. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | Record<string, unknown> }): Promise<unknown>;
}

const USER_REJECTED = 4001;
const UNRECOGNISED_CHAIN = 4902;

function providerCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: { originalError?: { code?: unknown } } };
  if (typeof code === 'number') return code;
  // Some wallets nest the EIP-1193 code of the original error.
  const nested = data?.originalError?.code;
  return typeof nested === 'number' ? nested : undefined;
}

function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}

/** Maps a provider failure to the wallet's typed errors: 4001 -> rejected, 4902 -> unknown chain. */
function mapProviderError(error: unknown, method: string, chainId: string): WalletError {
  if (error instanceof WalletError) return error;
  const code = providerCodeOf(error);
  if (code === USER_REJECTED) return new UserRejectedError(method, { cause: error });
  if (code === UNRECOGNISED_CHAIN) {
    return new UnknownChainError(chainId, 'the wallet does not know this chain; add it to the wallet first', {
      cause: error,
    });
  }
  return new WalletProviderError(method, code, messageOf(error), { cause: error });
}

/**
 * An `EvmSigner` forwarding to an EIP-1193 provider. Before each request it makes sure the wallet is on the
 * action's chain, asking it to switch (`wallet_switchEthereumChain`) when it is not. Provider errors become
 * `UserRejectedError` (4001), `UnknownChainError` (4902) or `WalletProviderError`.
 */
export function evmSignerFromEip1193(provider: Eip1193Provider): EvmSigner {
  async function call(method: string, params: unknown[], chainId: string): Promise<unknown> {
    try {
      return await provider.request({ method, params });
    } catch (error) {
      throw mapProviderError(error, method, chainId);
    }
  }

  async function ensureChain(chainId: string): Promise<void> {
    const wanted = evmChainNumber(chainId);
    const current = await call('eth_chainId', [], chainId);
    if (typeof current === 'string' && Number.parseInt(current, 16) === wanted) return;
    await call('wallet_switchEthereumChain', [{ chainId: `0x${wanted.toString(16)}` }], chainId);
    const switched = await call('eth_chainId', [], chainId);
    if (typeof switched !== 'string' || Number.parseInt(switched, 16) !== wanted) {
      throw new UnknownChainError(chainId, `the wallet stayed on chain ${String(switched)}`);
    }
  }

  return {
    async request({ chainId, method, params }) {
      await ensureChain(chainId);
      const result = await call(method, params, chainId);
      if (typeof result !== 'string')
        throw new WalletProviderError(method, undefined, 'the wallet returned no string result');
      return result;
    },
  };
}
