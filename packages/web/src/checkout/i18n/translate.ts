import type { Catalogue, MessageKey, ValuesFor } from './catalogue.ts';
import type { CheckoutLocale } from './locales.ts';
import type { PluralMessage } from './message.ts';

/** The message of `key` in the translator's language, its placeholders filled. */
export type Translate = <K extends MessageKey>(key: K, ...values: ValuesFor<K, string | number>) => string;

export interface Translator extends Translate {
  readonly locale: CheckoutLocale;
  /**
   * The message in pieces: its own text, and each value as given where its placeholder stands, so a page can put
   * markup (a link, a strong amount) into a translated sentence without taking the sentence apart.
   */
  parts<K extends MessageKey, Value>(key: K, ...values: ValuesFor<K, string | number | Value>): (string | Value)[];
}

const PLACEHOLDER = /\{(\w+)\}/g;

/** A translator over one catalogue: `{name}` placeholders, numbers formatted and plural forms chosen for `locale`. */
export function translatorOf(locale: CheckoutLocale, catalogue: Catalogue): Translator {
  const plurals = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const pluralForm = (message: PluralMessage, count: unknown) =>
    (typeof count === 'number' ? message[plurals.select(count)] : undefined) ?? message.other;

  function parts(key: MessageKey, given?: Readonly<Record<string, unknown>>): unknown[] {
    const values = given ?? {};
    const message = catalogue[key];
    const text = typeof message === 'string' ? message : pluralForm(message, values.count);
    const pieces: unknown[] = [];
    let end = 0;
    for (const match of text.matchAll(PLACEHOLDER)) {
      pieces.push(text.slice(end, match.index));
      const value = values[match[1]!];
      // A value missing despite the types shows its placeholder rather than nothing.
      pieces.push(value === undefined ? match[0] : typeof value === 'number' ? numbers.format(value) : value);
      end = match.index + match[0].length;
    }
    pieces.push(text.slice(end));
    return pieces.filter((piece) => piece !== '');
  }

  const translate = ((key: MessageKey, values?: Readonly<Record<string, unknown>>) =>
    parts(key, values).join('')) as Translate;
  return Object.assign(translate, { locale, parts: parts as Translator['parts'] });
}
