import type { TokenKind, TokenPayment } from './registry.ts';

// The tokens of the presets (`mainnets.ts`, `testnets.ts`): what each is, and how each contract family is paid. A
// method is decided from the contract's published source, named beside it; where no source could be read, the token
// is paid by Permit2, which needs nothing of the token but `approve` and `transferFrom`.

export const USDC: TokenKind = { symbol: 'USDC', name: 'USD Coin', decimals: 6, peggedTo: 'USD' };
export const EURC: TokenKind = { symbol: 'EURC', name: 'Euro Coin', decimals: 6, peggedTo: 'EUR' };
export const USDT: TokenKind = { symbol: 'USDT', name: 'Tether USD', decimals: 6, peggedTo: 'USD' };
/** PayPal USD, issued by Paxos (its `PYUSD.sol`: 6 decimals, redeemable for US dollars). */
export const PYUSD: TokenKind = { symbol: 'PYUSD', name: 'PayPal USD', decimals: 6, peggedTo: 'USD' };
/** Global Dollar, issued by Paxos (its `USDG.sol`: 6 decimals, US dollars). */
export const USDG: TokenKind = { symbol: 'USDG', name: 'Global Dollar', decimals: 6, peggedTo: 'USD' };
/** Agora Dollar (agora-finance/agora-dollar-evm `AgoraDollarCore.sol`: `decimals = 6`, US dollars). */
export const AUSD: TokenKind = { symbol: 'AUSD', name: 'Agora Dollar', decimals: 6, peggedTo: 'USD' };
/**
 * Monerium's euro e-money (monerium/smart-contracts `Token.sol`: OpenZeppelin's ERC-20 without a `decimals`
 * override, so 18).
 */
export const EURE: TokenKind = { symbol: 'EURe', name: 'Monerium EURe', decimals: 18, peggedTo: 'EUR' };
/**
 * AllUnity's euro stablecoin. No source of AllUnity's could be read: its 6 decimals are the ones public token lists
 * give for its address.
 */
export const EURAU: TokenKind = { symbol: 'EURAU', name: 'AllUnity EUR', decimals: 6, peggedTo: 'EUR' };
/** Wrapped ether: one WETH is one ETH by contract (deposit and withdraw at par), so it is priced as ETH. */
export const WETH: TokenKind = { symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, priceSymbol: 'ETH' };
/** Wrapped POL, Polygon's coin one to one, priced as POL. */
export const WPOL: TokenKind = { symbol: 'WPOL', name: 'Wrapped POL', decimals: 18, priceSymbol: 'POL' };
export const SOL: TokenKind = { symbol: 'SOL', name: 'Solana', decimals: 9 };

/**
 * Circle's FiatToken v2.2 (circlefin/stablecoin-evm `contracts/v2/FiatTokenV2_2.sol`, and `FiatTokenCeloV2_2.sol`
 * on Celo, which extends it): EIP-3009 with `version()`, and EIP-2612.
 */
export const CIRCLE_FIAT_TOKEN: TokenPayment = { method: 'eip3009', supports: ['eip3009', 'eip2612'] };

/**
 * Paxos' tokens (paxosglobal/paxos-token-contracts: `PaxosTokenV2.sol` for PYUSD with `lib/EIP3009.sol` and
 * `lib/EIP2612.sol`; USDG's `facets/TokenExtensionsFacet.sol`): EIP-3009 and EIP-2612 in the domain
 * `(name(), "1", chainId, token)`, which `DOMAIN_SEPARATOR()` recomputes; no `version()`.
 */
export const PAXOS_TOKEN: TokenPayment = { method: 'eip3009', supports: ['eip3009', 'eip2612'], eip712Version: '1' };

/**
 * Agora's AUSD proxy (agora-finance/agora-dollar-evm `proxy/AgoraDollarErc1967Proxy.sol` with `Eip3009.sol`, and
 * `Erc2612.sol`): EIP-3009 and EIP-2612; its domain is read from EIP-5267's `eip712Domain()`. The same
 * deterministic address on every network is the same proxy code.
 */
export const AGORA_DOLLAR: TokenPayment = { method: 'eip3009', supports: ['eip3009', 'eip2612'] };

/**
 * USDT0 on Arbitrum One, the upgraded bridged USDT: Everdawn-Labs/usdt0-audit-reports `DEPLOYMENTS.md` names its
 * implementation `ArbitrumExtensionV2`, whose Tether source (`TetherTokenV2Arbitrum`, ERC20PermitUpgradeable with
 * Tether's EIP3009) takes EIP-3009 and EIP-2612 in the domain `(name(), "1", chainId, token)`: the permit's
 * initialiser fixed "1" and `_EIP712NameHash` hashes `name()`; no `version()`.
 */
export const USDT0_ARBITRUM: TokenPayment = { method: 'eip3009', supports: ['eip3009', 'eip2612'], eip712Version: '1' };

/**
 * An ERC-20 that implements EIP-2612 and not EIP-3009: Monerium's `Token.sol` (ERC20PermitUpgradeable), Arbitrum's
 * `aeWETH` (OffchainLabs/token-bridge-contracts `aeERC20.sol`, ERC20PermitUpgradeable). Paid by one signed permit
 * that the collector's permit puller applies, so the buyer needs no approval and no gas.
 */
export const PERMIT_ONLY: TokenPayment = { method: 'eip2612', supports: ['eip2612'] };

/**
 * A token paid through Permit2 because it implements neither standard or because its source could not be
 * confirmed: Tether's USDT on Ethereum and its PoS bridge copy on Polygon, the Binance-Peg tokens on BNB Smart
 * Chain, AllUnity's EURAU, WETH9 and the OP Stack's WETH predeploy, Polygon's WPOL, PYUSD on Arbitrum.
 */
export const PERMIT2_ONLY: TokenPayment = { method: 'permit2' };
