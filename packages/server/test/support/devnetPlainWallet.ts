import type { Devnet } from '@paygate/devnet';
import { type Address, createPublicClient, createWalletClient, defineChain, erc20Abi, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * The devnet's first EVM chain and plain wallets of its buyers, as a buyer paying from any wallet has them: viem and
 * a private key, no paygate SDK.
 */
export function devnetPlainWallet(devnet: () => Devnet) {
  const chain = () => devnet().manifest.evm[0]!;
  const token = (symbol: 'USDC' | 'USDT' | 'EURC') => chain().tokens.find((candidate) => candidate.symbol === symbol)!;
  const buyer = (name = 'alice') => devnet().manifest.buyers.find((candidate) => candidate.name === name)!;
  /** The chain as a wallet knows it; `chainId`, when given, as a payment request named it. */
  const viemChain = (chainId = chain().chainId) =>
    defineChain({
      id: chainId,
      name: chain().name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [chain().rpcUrl] } },
    });
  const wallet = (name = 'alice', chainId?: number) =>
    createWalletClient({
      account: privateKeyToAccount(buyer(name).evmPrivateKey as Hex),
      chain: viemChain(chainId),
      transport: http(chain().rpcUrl),
    });
  /** A plain ERC-20 `transfer` from the buyer `name` (USDC unless another token contract is given); its hash. */
  const send = (to: Address, amount: bigint, options: { from?: string; token?: Address; chainId?: number } = {}) =>
    wallet(options.from, options.chainId).writeContract({
      address: options.token ?? (token('USDC').address as Address),
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
    });
  /** What `owner` holds of a token (USDC unless another is named), read from the chain, in minor units. */
  const balanceOf = (owner: string, symbol: 'USDC' | 'USDT' | 'EURC' = 'USDC') =>
    createPublicClient({ chain: viemChain(), transport: http(chain().rpcUrl) }).readContract({
      address: token(symbol).address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner as Address],
    });
  return { chain, token, buyer, viemChain, wallet, send, balanceOf };
}
