/**
 * Payment link detection (interface, wallet rule 6).
 *
 * Call `parsePaymentLink` / `isPaymentLink` BEFORE any other handling of a scanned or pasted string
 * (opening URLs, WalletConnect pairing, deep links): a `wc:` pairing URI may carry a payment in its
 * `pay` parameter, and it must be treated as a payment, not paired.
 *
 * Accepted forms, where `{checkout_url}` is the configured checkout URL (optionally with a path prefix):
 * - `{checkout_url}/<payment_id>` (a trailing slash is tolerated)
 * - `{checkout_url}/?pid=<payment_id>`
 * - `wc:...?...&pay=<URL-encoded link of one of the two forms above>`
 * - a bare payment id
 *
 * Trust rules: the link's scheme must equal the checkout URL's, its host must be the checkout host or a
 * subdomain of it (on a label boundary), and its port must equal the checkout URL's. The authority must be
 * written in plain canonical ASCII: userinfo, percent-encoding, backslashes, non-ASCII characters (IDN hosts
 * must be written in punycode), numeric IP variants and trailing dots are refused rather than normalised,
 * so a link can never mean something other than what it visibly says.
 */

/** Payment ids: `pay_` + a URL-safe body of at least 26 characters (D4; the server uses a ULID body). */
export const PAYMENT_ID_PATTERN = /^pay_[A-Za-z0-9_-]{26,128}$/;

export interface PaymentLinkOptions {
  /** The service's checkout URL (`CHECKOUT_URL`, D1), e.g. `https://pay.example.com` or `https://example.com/checkout`. */
  checkoutUrl: string;
}

export interface PaymentLink {
  paymentId: string;
}

// Only visible ASCII: rejects whitespace and control characters (which URL parsers silently strip),
// and non-ASCII look-alike characters.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const HTTP_URL = /^(https?):\/\/([^/?#]*)(.*)$/i;
// host[:port] with nothing else: no userinfo, no percent-encoding, no empty port.
const PLAIN_AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::([1-9][0-9]{0,4}))?$/i;
const WC_URI = /^wc:/i;

export function parsePaymentLink(input: string, options: PaymentLinkOptions): PaymentLink | null {
  const checkout = parseCheckoutUrl(options.checkoutUrl);
  const candidate = input.trim();
  if (!VISIBLE_ASCII.test(candidate)) return null;

  if (PAYMENT_ID_PATTERN.test(candidate)) return { paymentId: candidate };
  if (WC_URI.test(candidate)) return parseWalletConnectUri(candidate, checkout);
  return parseCheckoutLink(candidate, checkout);
}

export function isPaymentLink(input: string, options: PaymentLinkOptions): boolean {
  return parsePaymentLink(input, options) !== null;
}

interface CheckoutTarget {
  protocol: string;
  hostname: string;
  port: string;
  /** Path prefix without trailing slashes; '' when the checkout is served at the root. */
  pathPrefix: string;
  allowsSubdomains: boolean;
}

function parseCheckoutUrl(checkoutUrl: string): CheckoutTarget {
  let url: URL;
  try {
    url = new URL(checkoutUrl);
  } catch {
    throw new TypeError(`checkoutUrl is not a valid URL: ${checkoutUrl}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`checkoutUrl must be an http(s) URL: ${checkoutUrl}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('checkoutUrl must not contain credentials');
  }
  const hostname = url.hostname.replace(/\.$/, '');
  return {
    protocol: url.protocol,
    hostname,
    port: url.port,
    pathPrefix: url.pathname.replace(/\/+$/, ''),
    // An IP address has no subdomains.
    allowsSubdomains: !isIpAddress(hostname),
  };
}

function isIpAddress(hostname: string): boolean {
  return hostname.startsWith('[') || /^[0-9.]+$/.test(hostname);
}

function parseWalletConnectUri(uri: string, checkout: CheckoutTarget): PaymentLink | null {
  const queryStart = uri.indexOf('?');
  if (queryStart === -1) return null;
  const query = uri.slice(queryStart + 1).split('#')[0] ?? '';
  const payValues = new URLSearchParams(query).getAll('pay');
  // Several `pay` values are ambiguous; refuse rather than pick one.
  if (payValues.length !== 1) return null;
  const embeddedLink = payValues[0] ?? '';
  if (!VISIBLE_ASCII.test(embeddedLink)) return null;
  return parseCheckoutLink(embeddedLink, checkout);
}

function parseCheckoutLink(link: string, checkout: CheckoutTarget): PaymentLink | null {
  // Checked on the raw text because the URL parser would otherwise turn `\` into `/`, drop userinfo from
  // `host`, decode `%xx` in hosts and rewrite numeric IPv4 forms.
  if (link.includes('\\')) return null;
  const parts = HTTP_URL.exec(link);
  if (!parts) return null;
  const authority = PLAIN_AUTHORITY.exec(parts[2] ?? '');
  if (!authority) return null;
  const rawHost = (authority[1] ?? '').toLowerCase();

  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  // The parser must not have rewritten the host (e.g. `0x7f.1` -> `127.0.0.1`).
  if (url.hostname !== rawHost) return null;
  if (url.protocol !== checkout.protocol) return null;
  if (url.port !== checkout.port) return null;
  if (!isTrustedHost(url.hostname, checkout)) return null;

  return extractPaymentId(url, checkout.pathPrefix);
}

function isTrustedHost(hostname: string, checkout: CheckoutTarget): boolean {
  if (hostname === checkout.hostname) return true;
  if (!checkout.allowsSubdomains) return false;
  const suffix = `.${checkout.hostname}`;
  if (!hostname.endsWith(suffix)) return false;
  const subdomainLabels = hostname.slice(0, -suffix.length).split('.');
  return subdomainLabels.every((label) => label !== '');
}

function extractPaymentId(url: URL, pathPrefix: string): PaymentLink | null {
  const pidValues = url.searchParams.getAll('pid');
  if (url.pathname === pathPrefix || url.pathname === `${pathPrefix}/`) {
    if (pidValues.length !== 1) return null;
    const pid = pidValues[0] ?? '';
    return PAYMENT_ID_PATTERN.test(pid) ? { paymentId: pid } : null;
  }

  // A path id together with a `pid` parameter is ambiguous.
  if (pidValues.length > 0) return null;
  if (!url.pathname.startsWith(`${pathPrefix}/`)) return null;
  const rest = url.pathname.slice(pathPrefix.length + 1).replace(/\/$/, '');
  return PAYMENT_ID_PATTERN.test(rest) ? { paymentId: rest } : null;
}
