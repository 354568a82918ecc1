import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { ChainRegistry, TokenInfo } from '../chains/registry.ts';
import type { CryptoSettlementsTable } from '../db/schema.ts';
import type { Issue } from '../http/errors.ts';

export const CryptoSettlement = Type.Object({
  id: Type.String({ description: 'Prefix `crypto_`' }),
  asset: Type.String({ description: 'CAIP-19 id of the token settled in' }),
  destination: Type.String({ description: 'CAIP-10 account on the same chain' }),
});

export const FiatSettlement = Type.Object({
  id: Type.String({ description: 'Prefix `fiat_`' }),
  status: Type.String(),
  bankType: Type.String(),
});

export const SettlementAsset = Type.String({ minLength: 1, maxLength: 200, description: 'CAIP-19 asset id' });
export const SettlementDestination = Type.String({ minLength: 1, maxLength: 200, description: 'CAIP-10 account id' });

export function toCryptoSettlement(row: Selectable<CryptoSettlementsTable>) {
  return { id: row.id, asset: row.asset, destination: row.destination };
}

/** The supported token an `asset` names; the interface's `caip19/` prefix is accepted and dropped. */
export function settlementToken(chains: ChainRegistry, asset: string): TokenInfo | undefined {
  return chains.token(asset.startsWith('caip19/') ? asset.slice('caip19/'.length) : asset);
}

/** Why `destination` cannot receive `token`, if it cannot: it must be a valid account on the token's chain. */
export function destinationIssue(
  chains: ChainRegistry,
  token: TokenInfo,
  destination: string,
  field: string,
): Issue | undefined {
  const account = chains.account(destination);
  if (!account) return { field, message: 'must be a CAIP-10 account with a valid address on a supported network' };
  if (account.caip2 !== token.chain)
    return { field, message: `must be an account on ${token.chain}, the asset's chain` };
  return undefined;
}
