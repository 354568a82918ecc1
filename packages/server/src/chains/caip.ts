import { isAddress as isSolanaAddress } from '@solana/kit';
import { isAddress as isEvmAddress } from 'viem';

export type Namespace = 'eip155' | 'solana';

export interface ChainId {
  namespace: Namespace;
  reference: string;
  caip2: string;
}

export interface AccountId extends ChainId {
  address: string;
  caip10: string;
}

export interface AssetId extends ChainId {
  assetNamespace: string;
  assetReference: string;
  caip19: string;
}

const CHAIN_ID = /^(eip155|solana):([-_a-zA-Z0-9]{1,32})$/;
const ACCOUNT_ID = /^(eip155|solana):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/;
const ASSET_ID = /^(eip155|solana):([-_a-zA-Z0-9]{1,32})\/([-a-z0-9]{3,8}):([-.%a-zA-Z0-9]{1,128})$/;

export function parseChainId(value: string): ChainId | undefined {
  const match = CHAIN_ID.exec(value);
  if (!match) return undefined;
  const [, namespace, reference] = match as unknown as [string, Namespace, string];
  if (namespace === 'eip155' && !/^[1-9]\d{0,18}$/.test(reference)) return undefined;
  return { namespace, reference, caip2: `${namespace}:${reference}` };
}

export function isValidAddress(namespace: Namespace, address: string): boolean {
  return namespace === 'eip155' ? isEvmAddress(address, { strict: true }) : isSolanaAddress(address);
}

/** A CAIP-10 account with an address that is valid for its namespace. */
export function parseAccountId(value: string): AccountId | undefined {
  const match = ACCOUNT_ID.exec(value);
  if (!match) return undefined;
  const chain = parseChainId(`${match[1]}:${match[2]}`);
  const address = match[3] as string;
  if (!chain || !isValidAddress(chain.namespace, address)) return undefined;
  return { ...chain, address, caip10: value };
}

export function parseAssetId(value: string): AssetId | undefined {
  const match = ASSET_ID.exec(value);
  if (!match) return undefined;
  const chain = parseChainId(`${match[1]}:${match[2]}`);
  if (!chain) return undefined;
  return { ...chain, assetNamespace: match[3] as string, assetReference: match[4] as string, caip19: value };
}

/** Addresses compare case-insensitively on EVM chains (checksums are only a spelling) and exactly on Solana. */
export function sameAddress(namespace: Namespace, a: string, b: string): boolean {
  return namespace === 'eip155' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * An address as one key across every network of its namespace: `eip155:<lower case>` (one EVM key holds it on every
 * EVM chain), `solana:<address>`.
 */
export function addressKey(namespace: Namespace, address: string): string {
  return `${namespace}:${namespace === 'eip155' ? address.toLowerCase() : address}`;
}

/**
 * The key (`addressKey`) of a plain address, its namespace told by its form: `0x` and 40 hex digits (any case: lists
 * write them either way) is EVM, a valid base58 public key is Solana; anything else is undefined.
 */
export function addressKeyOf(address: string): string | undefined {
  if (isEvmAddress(address, { strict: false })) return addressKey('eip155', address);
  if (isSolanaAddress(address)) return addressKey('solana', address);
  return undefined;
}
