/** The dashboard's page addresses. */
export const SIGN_IN_PATH = '/dashboard/sign-in';
export const OVERVIEW_PATH = '/dashboard/overview';
export const PAYMENTS_PATH = '/dashboard/payments';
export const MERCHANTS_PATH = '/dashboard/merchants';
export const DEVELOPERS_PATH = '/dashboard/developers';

export function merchantPath(merchantId: string): string {
  return `${MERCHANTS_PATH}/${encodeURIComponent(merchantId)}`;
}

export function webhookPath(endpointId: string): string {
  return `${DEVELOPERS_PATH}/webhooks/${encodeURIComponent(endpointId)}`;
}
