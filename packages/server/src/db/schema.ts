import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface PartnersTable {
  id: string;
  name: string;
  pinned_version: string;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  partner_id: string;
  display_prefix: string;
  secret_hash: string;
  scopes: string[];
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface AppsTable {
  id: string;
  partner_id: string;
  name: string;
  icon_url: string | null;
  created_at: CreatedAt;
}

export interface MerchantsTable {
  id: string;
  partner_id: string;
  name: string;
  email: string;
  status: Generated<'active' | 'inactive' | 'suspended'>;
  logo_file: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface LogosTable {
  file: string;
  content_type: string;
  bytes: Buffer;
  width: number;
  height: number;
  created_at: CreatedAt;
}

export interface CryptoSettlementsTable {
  id: string;
  merchant_id: string;
  asset: string;
  destination: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface FiatSettlementsTable {
  id: string;
  merchant_id: string;
  bank_type: string;
  status: string;
  created_at: CreatedAt;
}

export interface IdempotencyKeysTable {
  partner_id: string;
  scope: string;
  key: string;
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  created_at: CreatedAt;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}

export interface Database {
  partners: PartnersTable;
  api_keys: ApiKeysTable;
  apps: AppsTable;
  merchants: MerchantsTable;
  logos: LogosTable;
  crypto_settlements: CryptoSettlementsTable;
  fiat_settlements: FiatSettlementsTable;
  idempotency_keys: IdempotencyKeysTable;
  service_secrets: ServiceSecretsTable;
}


