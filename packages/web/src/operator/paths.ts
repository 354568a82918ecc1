/** The operator console's page addresses. */
export const OPERATOR_SIGN_IN_PATH = '/operator/sign-in';
export const PARTNERS_PATH = '/operator/partners';
export const MERCHANTS_PATH = '/operator/merchants';
export const HEALTH_PATH = '/operator/health';

export function partnerPath(partnerId: string): string {
  return `${PARTNERS_PATH}/${encodeURIComponent(partnerId)}`;
}

/** The console's name in the browser tab. */
export const CONSOLE_NAME = 'paygate operator console';
