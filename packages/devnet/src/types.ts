/** How a buyer authorises a payment in a token: the service picks its flow from this. */
export type PaymentMethod = 'eip3009' | 'eip2612' | 'permit2' | 'native' | 'spl';

export interface DevnetToken {
  /** CAIP-19 asset id, e.g. `eip155:31337/erc20:0x…`, `eip155:31337/slip44:60`, `solana:<ref>/token:<mint>`. */
  caip19: string;
  symbol: string;
  name: string;
  decimals: number;
  /** Contract or mint address; empty for a chain's native coin. */
  address: string;
  method: PaymentMethod;
}

export interface DevnetEvmChain {
  caip2: string;
  chainId: number;
  name: string;
  rpcUrl: string;
  /** Blocks are mined on this interval, whether or not transactions are pending. */
  blockTimeMs: number;
  nativeToken: DevnetToken;
  tokens: DevnetToken[];
  permit2: string;
  /** x402's `exact` Permit2 proxy, the spender of x402 Permit2 payments (a proxy of the devnet's own, same ABI). */
  x402ExactPermit2Proxy: string;
}

export interface DevnetSolana {
  caip2: string;
  name: string;
  rpcUrl: string;
  genesisHash: string;
  /** A slot passes on this interval; a blockhash stays valid for 150 slots. */
  slotMs: number;
  nativeToken: DevnetToken;
  tokens: DevnetToken[];
}

export interface DevnetBuyer {
  name: string;
  description: string;
  evmPrivateKey: `0x${string}`;
  evmAddress: string;
  /** Base58 of the 64-byte secret key (seed followed by public key), the format wallets import. */
  solanaSecretKey: string;
  solanaAddress: string;
}

export interface DevnetManifest {
  evm: DevnetEvmChain[];
  solana: DevnetSolana;
  buyers: DevnetBuyer[];
  faucet: { evmPrivateKey: `0x${string}`; evmAddress: string; solanaSecretKey: string; solanaAddress: string };
}

export interface FundRequest {
  evm?: string[];
  solana?: string[];
}

/** What `fund` added to one address: an asset (CAIP-19) and its minor units. */
export interface FundedAmount {
  address: string;
  asset: string;
  amount: bigint;
  /**
   * The transaction that moved it, where one did (an EVM token's mint, a Solana airdrop or mint); an EVM native credit
   * is set, not sent.
   */
  txHash?: string;
}

export interface Devnet {
  manifest: DevnetManifest;
  /**
   * Adds 100 native coins, 100 WETH and 10,000 of every stablecoin on every chain (on Solana: SOL and USDC) to each
   * address; returns what it added, per address and asset.
   */
  fund(addresses: FundRequest): Promise<FundedAmount[]>;
  stop(): Promise<void>;
}

export interface DevnetOptions {
  dataDir: string;
  /** Interface the RPC endpoints listen on; 127.0.0.1 unless given. */
  host?: string;
  /** Fixed ports; 0 or omitted lets the system pick free ones. `evm` is in chain order (31337, 31338). */
  ports?: { evm?: number[]; solana?: number };
  /** Solana slot interval in ms; 400 (mainnet's pace) unless given. */
  solanaSlotMs?: number;
  log?: (line: string) => void;
}
