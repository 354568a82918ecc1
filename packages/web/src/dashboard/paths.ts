/** The dashboard's page addresses. */
export const SIGN_IN_PATH = '/dashboard/sign-in';
export const OVERVIEW_PATH = '/dashboard/overview';
export const PAYMENTS_PATH = '/dashboard/payments';
export const SETTLEMENTS_PATH = '/dashboard/settlements';
export const MERCHANTS_PATH = '/dashboard/merchants';
export const DEVELOPERS_PATH = '/dashboard/developers';

/** A payment's page; the API reads a payment through its merchant, which the address names. */
export function paymentPath(paymentId: string, merchantId: string): string {
  return `${PAYMENTS_PATH}/${encodeURIComponent(paymentId)}?${new URLSearchParams({ merchantId })}`;
}

export function settlementBatchPath(batchId: string): string {
  return `${SETTLEMENTS_PATH}/${encodeURIComponent(batchId)}`;
}

export function merchantPath(merchantId: string): string {
  return `${MERCHANTS_PATH}/${encodeURIComponent(merchantId)}`;
}

export function webhookPath(endpointId: string): string {
  return `${DEVELOPERS_PATH}/webhooks/${encodeURIComponent(endpointId)}`;
}
