import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { ChainRegistry, TokenInfo } from '../chains/registry.ts';
import type { Db } from '../db/database.ts';
import type { CryptoSettlementsTable, FiatSettlementsTable } from '../db/schema.ts';
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

/** A merchant's settlement destinations, as its list route and the merchant view show them. */
export const SettlementDestinations = Type.Object({
  fiat: Type.Array(FiatSettlement),
  crypto: Type.Array(CryptoSettlement),
});

export interface SettlementDestinationRows {
  fiat: Selectable<FiatSettlementsTable>[];
  crypto: Selectable<CryptoSettlementsTable>[];
}

export const SettlementAsset = Type.String({ minLength: 1, maxLength: 200, description: 'CAIP-19 asset id' });
export const SettlementDestination = Type.String({ minLength: 1, maxLength: 200, description: 'CAIP-10 account id' });

export function toCryptoSettlement(row: Selectable<CryptoSettlementsTable>) {
  return { id: row.id, asset: row.asset, destination: row.destination };
}

export function toFiatSettlement(row: Selectable<FiatSettlementsTable>) {
  return { id: row.id, status: row.status, bankType: row.bank_type };
}

export function toSettlementDestinations(rows: SettlementDestinationRows) {
  return { fiat: rows.fiat.map(toFiatSettlement), crypto: rows.crypto.map(toCryptoSettlement) };
}

export async function settlementDestinationRowsOf(db: Db, merchantId: string): Promise<SettlementDestinationRows> {
  const [fiat, crypto] = await Promise.all([
    db.selectFrom('fiat_settlements').selectAll().where('merchant_id', '=', merchantId).orderBy('id').execute(),
    db.selectFrom('crypto_settlements').selectAll().where('merchant_id', '=', merchantId).orderBy('id').execute(),
  ]);
  return { fiat, crypto };
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
