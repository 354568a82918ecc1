/** The languages of the checkout, as the BCP 47 tags its pages carry; English is the fallback. */
export const CHECKOUT_LOCALES = ['en', 'es', 'fr', 'de', 'pt-BR', 'it', 'ja', 'zh-CN'] as const;

export type CheckoutLocale = (typeof CHECKOUT_LOCALES)[number];

export const FALLBACK_LOCALE: CheckoutLocale = 'en';

/** Longest `Accept-Language` read, and most entries: a header is the client's to make as long as it likes. */
const HEADER_LIMIT = 512;
const ENTRY_LIMIT = 20;

/**
 * The checkout locale that speaks a language tag's language, if any: `de-AT` is German. Any Portuguese is served
 * the Brazilian catalogue, Chinese in simplified script (`zh`, `zh-CN`, `zh-Hans`, `zh-SG`) the simplified one;
 * traditional Chinese (`zh-TW`, `zh-Hant`) has none, rather than a script its reader may not read.
 */
export function checkoutLocaleOf(tag: string): CheckoutLocale | undefined {
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(tag);
  } catch {
    return undefined;
  }
  switch (locale.language) {
    case 'pt':
      return 'pt-BR';
    case 'zh':
      return locale.maximize().script === 'Hans' ? 'zh-CN' : undefined;
    default:
      return CHECKOUT_LOCALES.find((supported) => supported === locale.language);
  }
}

/** The language tags of an `Accept-Language` header, most wanted first (ties in header order); `*` and q=0 left out. */
export function acceptedLanguages(header: string): string[] {
  return header
    .slice(0, HEADER_LIMIT)
    .split(',')
    .slice(0, ENTRY_LIMIT)
    .flatMap((entry, index) => {
      const [tag = '', ...params] = entry.split(';').map((part) => part.trim());
      const weights = params.filter((param) => /^q=/i.test(param));
      // RFC 9110 weights: 0 to 1 with at most three decimals; a malformed one makes the entry unreadable.
      const weight = weights.length ? /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/i.exec(weights[0]!)?.[1] : '1';
      if (weight === undefined || Number(weight) === 0 || !tag || tag === '*') return [];
      return [{ tag, quality: Number(weight), index }];
    })
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map(({ tag }) => tag);
}

/**
 * The page's locale: the `?locale=` of its URL when the checkout speaks it, else the first language of
 * `Accept-Language` it speaks, else English.
 */
export function negotiateLocale(request: {
  query?: string | undefined;
  acceptLanguage?: string | undefined;
}): CheckoutLocale {
  const fromQuery = request.query === undefined ? undefined : checkoutLocaleOf(request.query);
  if (fromQuery) return fromQuery;
  for (const tag of acceptedLanguages(request.acceptLanguage ?? '')) {
    const spoken = checkoutLocaleOf(tag);
    if (spoken) return spoken;
  }
  return FALLBACK_LOCALE;
}
