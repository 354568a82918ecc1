import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { keccak256, stringToBytes } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';

// Every devnet key derives from this string, so a fresh data dir always yields the same accounts
// and a wallet can keep them across resets. Never use these keys anywhere real.
const SEED = 'paygate devnet, public test keys, worthless';

export interface EvmKey {
  privateKey: `0x${string}`;
  address: `0x${string}`;
}

export interface SolanaKey {
  /** 32-byte ed25519 seed followed by the 32-byte public key. */
  secretKey: Uint8Array;
  secretKeyBase58: string;
  address: string;
}

export function evmKey(label: string): EvmKey {
  const privateKey = keccak256(stringToBytes(`${SEED}/evm/${label}`));
  return { privateKey, address: privateKeyToAddress(privateKey) };
}

// PKCS#8 wrapping of a raw ed25519 seed, so node:crypto can derive the public key from it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function solanaKey(label: string): SolanaKey {
  const seed = createHash('sha256').update(`${SEED}/solana/${label}`).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (!jwk.x) throw new Error('ed25519 public key export failed');
  const publicKey = Buffer.from(jwk.x, 'base64url');
  const secretKey = new Uint8Array(Buffer.concat([seed, publicKey]));
  const base58 = getBase58Decoder();
  return { secretKey, secretKeyBase58: base58.decode(secretKey), address: base58.decode(publicKey) };
}

/** What a buyer starts with; amounts in whole units of each asset. */
export interface BuyerHoldings {
  evmNative: bigint;
  evmTokens: Partial<Record<'USDC' | 'EURC' | 'USDT' | 'USDS' | 'WETH', bigint>>;
  /** Buyers that already approved Permit2 for USDT and WETH pay in them with one signature. */
  permit2Approved: boolean;
  solanaNative: bigint;
  solanaUsdc: bigint;
}

export interface BuyerSpec {
  name: string;
  description: string;
  holdings: BuyerHoldings;
}

export const buyerSpecs: BuyerSpec[] = [
  {
    name: 'alice',
    description:
      'Holds 100 ETH, 10,000 USDC, EURC, USDT and USDS and 10 WETH on every EVM chain (USDT and WETH already approved to Permit2, so one signature pays), and 100 SOL and 10,000 USDC on Solana.',
    holdings: {
      evmNative: 100n,
      evmTokens: { USDC: 10_000n, EURC: 10_000n, USDT: 10_000n, USDS: 10_000n, WETH: 10n },
      permit2Approved: true,
      solanaNative: 100n,
      solanaUsdc: 10_000n,
    },
  },
  {
    name: 'bob',
    description:
      'Holds 100 ETH, 10,000 USDC, EURC, USDT and USDS and 10 WETH on every EVM chain with no Permit2 allowance, and 100 SOL and 10,000 USDC on Solana.',
    holdings: {
      evmNative: 100n,
      evmTokens: { USDC: 10_000n, EURC: 10_000n, USDT: 10_000n, USDS: 10_000n, WETH: 10n },
      permit2Approved: false,
      solanaNative: 100n,
      solanaUsdc: 10_000n,
    },
  },
  {
    name: 'carol',
    description:
      'Holds only the USDT stand-in (10,000 on every EVM chain) plus 1 ETH for the gas of an approval; no Permit2 allowance, nothing on Solana.',
    holdings: {
      evmNative: 1n,
      evmTokens: { USDT: 10_000n },
      permit2Approved: false,
      solanaNative: 0n,
      solanaUsdc: 0n,
    },
  },
  {
    name: 'erin',
    description:
      'Holds 1,000 USDC, EURC and USDS on every EVM chain and 1,000 USDC on Solana but no native coin anywhere: can pay only where the service pays the fees (EIP-3009, EIP-2612 permits, Solana with the service as fee payer).',
    holdings: {
      evmNative: 0n,
      evmTokens: { USDC: 1_000n, EURC: 1_000n, USDS: 1_000n },
      permit2Approved: false,
      solanaNative: 0n,
      solanaUsdc: 1_000n,
    },
  },
  {
    name: 'dave',
    description: 'Holds nothing on any chain.',
    holdings: { evmNative: 0n, evmTokens: {}, permit2Approved: false, solanaNative: 0n, solanaUsdc: 0n },
  },
];

export const faucetHoldings: BuyerHoldings = {
  evmNative: 10_000n,
  evmTokens: { USDC: 1_000_000n, EURC: 1_000_000n, USDT: 1_000_000n, USDS: 1_000_000n, WETH: 1_000n },
  permit2Approved: false,
  solanaNative: 10_000n,
  solanaUsdc: 1_000_000n,
};

/** What `fund` adds to an address per call, in whole units: `token` of each stablecoin, `native` of coin and WETH. */
export const fundAmounts = { native: 100n, token: 10_000n };

/** Deploys the contracts and holds every token role (owner, minter, pauser, blacklister, mint authority). */
export const operatorEvm = evmKey('operator');
/** Admin of the FiatToken proxies; a proxy admin may not call the token itself, hence a separate key. */
export const proxyAdminEvm = evmKey('proxy-admin');
export const operatorSolana = solanaKey('operator');
export const usdcMintSolana = solanaKey('usdc-mint');
export const faucetEvm = evmKey('faucet');
export const faucetSolana = solanaKey('faucet');
