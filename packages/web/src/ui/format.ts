import { currencyOfUnit, fiatCurrency, formatMinorUnits } from '@paygate/client/money';

/** Numbers and dates in the browser's language. */
export const browserLanguage = typeof navigator === 'undefined' ? 'en' : navigator.language;

/** A fiat amount of the API (`iso4217/<CODE>`, minor units), formatted with exactly the currency's digits. */
export function formatFiat(amount: { unit: string; value: string }, language = browserLanguage): string {
  const currency = fiatCurrency(currencyOfUnit(amount.unit) ?? '');
  if (!currency) return `${amount.value} ${amount.unit}`;
  const format = new Intl.NumberFormat(language, {
    style: 'currency',
    currency: currency.code,
    minimumFractionDigits: currency.decimals,
    maximumFractionDigits: currency.decimals,
  });
  // Decimal text is formatted exactly (Intl.NumberFormat v3), never through a float.
  return format.format(formatMinorUnits(BigInt(amount.value), currency.decimals) as Intl.StringNumericLiteral);
}

/** A token amount in minor units, exact (every digit the token has, trailing zeros dropped), with its symbol. */
export function formatTokenExact(value: string, token: { symbol: string; decimals: number } | undefined): string {
  if (!token) return `${value} (minor units)`;
  const exact = formatMinorUnits(BigInt(value), token.decimals)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
  return `${exact} ${token.symbol}`;
}

/**
 * An amount a person typed (`12`, `12.5`, `12,50`) as minor units at `decimals` digits, by string arithmetic; undefined
 * when it is not a plain decimal or has more digits than the currency.
 */
export function minorUnitsOf(text: string, decimals: number): string | undefined {
  const match = /^(\d+)(?:[.,](\d*))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > decimals) return undefined;
  return BigInt(`${whole}${fraction.padEnd(decimals, '0')}`).toString();
}

const dateTime = new Intl.DateTimeFormat(browserLanguage, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

const dateTimeSeconds = new Intl.DateTimeFormat(browserLanguage, { dateStyle: 'medium', timeStyle: 'medium' });

/** To the second, where events follow each other within a minute (a payment's timeline). */
export function formatDateTimeSeconds(iso: string): string {
  return dateTimeSeconds.format(new Date(iso));
}

/** A long id or hash shortened for a narrow column: its start and end, the whole in a title. */
export function shortened(text: string, keep = 10): string {
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}

/** Text whose `quoted` parts are code, as the API's own descriptions write it: split into plain and code parts. */
export function codeSpans(text: string): { text: string; code: boolean }[] {
  return text
    .split('`')
    .map((part, index) => ({ text: part, code: index % 2 === 1 }))
    .filter((part) => part.text !== '');
}
