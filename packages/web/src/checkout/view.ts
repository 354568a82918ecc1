import { formatMinorUnits } from '@paygate/client/money';
import type { Translate, Translator } from './i18n/translate.ts';

export interface TokenDisplay {
  assetSymbol: string;
  decimals: number;
}

/** Significant fraction digits a person is shown of a token amount. */
const READABLE_DECIMALS = 6;

/**
 * A token amount in minor units as decimal text a person can read: at most 6 significant fraction digits (6
 * decimals from 1 up; below 1, 6 digits from the first non-zero one, so 1 wei still reads 0.000000000000000001).
 * Cut digits round up, so the figure shown is never less than what the wallet pays exactly and a non-zero amount
 * never reads 0. Amounts that fit are exact.
 */
export function readableTokenDecimal(minor: bigint, decimals: number): string {
  if (minor <= 0n) return formatMinorUnits(minor, decimals);
  const scale = 10n ** BigInt(decimals);
  const leadingZeros = minor >= scale ? 0 : decimals - minor.toString().length;
  const shown = Math.min(decimals, leadingZeros + READABLE_DECIMALS);
  const step = 10n ** BigInt(decimals - shown);
  const rounded = (minor + step - 1n) / step;
  return formatMinorUnits(rounded, shown);
}

/**
 * A token amount in minor units for the buyer, e.g. `10.5 USDC`: readable digits (`readableTokenDecimal`),
 * trailing zeros dropped. Display only: what is paid stays the exact minor units.
 */
export function formatTokenAmount(minor: string, display: TokenDisplay, locale: string): string {
  const format = new Intl.NumberFormat(locale, { maximumFractionDigits: Math.min(display.decimals, 20) });
  const number = format.format(readableTokenDecimal(BigInt(minor), display.decimals) as Intl.StringNumericLiteral);
  return `${number} ${display.assetSymbol}`;
}

/**
 * What the succeeded view says was paid (`Paid with 10 USDC on Base.`, the network when known), in pieces: the
 * amount as `figure` makes it (markup on the server, an element in the page) so it stays on one line.
 */
export function paidWithParts<Figure>(
  t: Translator,
  paid: { value: string; display: TokenDisplay & { networkName?: string | undefined } },
  locale: string,
  figure: (text: string) => Figure,
): (string | Figure)[] {
  const amount = figure(formatTokenAmount(paid.value, paid.display, locale));
  const network = paid.display.networkName;
  return network
    ? t.parts('status.succeeded.paidWithOn', { amount, network })
    : t.parts('status.succeeded.paidWith', { amount });
}

/**
 * The explorer page of a transaction: `<explorerUrl>/tx/<hash>`, the path Etherscan and its kin, Solscan and
 * explorer.solana.com share; a query in `explorerUrl` (`?cluster=devnet`) is kept. None for an explorer URL
 * (from a CHAINS file) that is not an http(s) address, so a page never links elsewhere.
 */
export function transactionUrl(explorerUrl: string, txHash: string): string | undefined {
  let url: URL;
  try {
    url = new URL(explorerUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/tx/${encodeURIComponent(txHash)}`;
  return url.toString();
}

/** What the page's failed view tells the buyer, by the payment's failure code: what happened and what to do. */
export function failureExplanation(t: Translate, failureCode: string | undefined, merchantName: string): string {
  switch (failureCode) {
    case 'underpaid':
      return t('failure.underpaid', { merchant: merchantName });
    case 'transfer_not_mined':
      return t('failure.notMined', { merchant: merchantName });
    default:
      return t('failure.other', { merchant: merchantName });
  }
}

/** Time left before `expiresAt` as `m:ss` (or `h:mm:ss`), `0:00` once past. */
export function formatTimeLeft(expiresAt: Date, now: Date): string {
  const totalSeconds = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = String(totalSeconds % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * Time left before `expiresAt` in words, e.g. `14 minutes left` (whole minutes, so it changes once a minute), for
 * those who would rather read that than a ticking `m:ss`.
 */
export function timeLeftInWords(t: Translate, expiresAt: Date, now: Date): string {
  const minutes = Math.floor((expiresAt.getTime() - now.getTime()) / 60_000);
  return minutes >= 1 ? t('page.minutesLeft', { count: minutes }) : t('page.underAMinuteLeft');
}

/**
 * What arrived of an unpaid payment in transfers of less than asked, as one string: the page, rendered with the
 * server's, reloads when the payment's differs, so its panel asks for the rest.
 */
export function receivedFingerprint(received: readonly { amount: { unit: string; value: string } }[]): string {
  return received
    .map(({ amount }) => `${amount.unit}=${amount.value}`)
    .sort()
    .join(',');
}
