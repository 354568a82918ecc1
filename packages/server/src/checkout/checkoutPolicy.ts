import type { Config } from '../config.ts';

/** The path part of `CHECKOUT_URL` (D1) without a trailing slash: `` for `http://host`, `/pay` for `https://host/pay/`. */
export function checkoutPathPrefix(checkoutUrl: string): string {
  return new URL(checkoutUrl).pathname.replace(/\/+$/, '');
}

/**
 * The page's Content-Security-Policy: its own script and stylesheet only (no inline code), images and API calls
 * to this service alone (logos and the gateway live at `BASE_URL`, which may be another origin) besides the
 * browser wallets' data URI icons, only its own buyer-data form in a frame, and the page itself never framed.
 */
export function checkoutContentSecurityPolicy(config: Pick<Config, 'baseUrl' | 'checkoutUrl'>): string {
  const apiOrigin = new URL(config.baseUrl).origin;
  const service = apiOrigin === new URL(config.checkoutUrl).origin ? "'self'" : `'self' ${apiOrigin}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // Browser wallets describe their icons as data URIs (EIP-6963, the Wallet Standard).
    `img-src ${service} data:`,
    `connect-src ${service}`,
    // The buyer-data form (D14) lives at the checkout URL too.
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * A payment link's page: its own stylesheet, no script, the link's image from any HTTPS host (the buyer's browser
 * loads it, never the service), and its one form posting to itself, whose answer leads to the checkout.
 */
export function linkPageContentSecurityPolicy(config: Pick<Config, 'baseUrl' | 'checkoutUrl'>): string {
  const apiOrigin = new URL(config.baseUrl).origin;
  const service = apiOrigin === new URL(config.checkoutUrl).origin ? "'self'" : `'self' ${apiOrigin}`;
  return [
    "default-src 'none'",
    "style-src 'self'",
    `img-src ${service} https:`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
