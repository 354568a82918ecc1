import type { PaygateClient } from '@paygate/client';
import { STORE_NAME } from './catalogue.ts';

/**
 * The merchant the store sells as: the configured one, else one the store makes for itself. Its fixed
 * Idempotency-Key makes every start answer the same merchant rather than add one.
 */
export async function storeMerchantId(paygate: PaygateClient, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const { data, error } = await paygate.POST('/v1/merchants', {
    params: { header: { 'idempotency-key': 'example-store-merchant' } },
    body: { merchantName: STORE_NAME, merchantEmail: 'orders@copper-kettle-tea.example' },
  });
  if (error) throw new Error(`paygate refused to create the store's merchant: ${error.code}: ${error.message}`);
  return data.merchant.id;
}
