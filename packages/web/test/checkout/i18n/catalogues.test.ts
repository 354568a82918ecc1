import { describe, expect, it } from 'vitest';
import { en } from '../../../src/checkout/i18n/en.ts';
import { CHECKOUT_LOCALES } from '../../../src/checkout/i18n/locales.ts';
import type { Message } from '../../../src/checkout/i18n/message.ts';
import { translatorOf } from '../../../src/checkout/i18n/translate.ts';
import { CATALOGUES, translator } from '../../../src/checkout/i18n/translator.ts';

const englishKeys = Object.keys(en).sort();

function textsOf(message: Message): string[] {
  return typeof message === 'string' ? [message] : Object.values(message);
}

function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!))].sort();
}

describe('checkout catalogues', () => {
  it('has a catalogue for every locale, with exactly the English keys', () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual([...CHECKOUT_LOCALES].sort());
    for (const locale of CHECKOUT_LOCALES) {
      expect(Object.keys(CATALOGUES[locale]).sort(), locale).toEqual(englishKeys);
    }
  });

  it('keeps the English placeholders in every text of every language, and no empty text', () => {
    for (const locale of CHECKOUT_LOCALES) {
      for (const key of englishKeys) {
        const english = placeholdersOf(textsOf(en[key as keyof typeof en]).join(' '));
        for (const text of textsOf(CATALOGUES[locale][key as keyof typeof en])) {
          expect(text.trim(), `${locale} ${key}`).not.toBe('');
          expect(placeholdersOf(text), `${locale} ${key}: ${text}`).toEqual(english);
        }
      }
    }
  });

  it("has a form for each of the language's plural categories, and only those, where English is plural", () => {
    const pluralKeys = englishKeys.filter((key) => typeof en[key as keyof typeof en] !== 'string');
    expect(pluralKeys.length).toBeGreaterThan(0);
    for (const locale of CHECKOUT_LOCALES) {
      const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      for (const key of pluralKeys) {
        const message = CATALOGUES[locale][key as keyof typeof en];
        expect(typeof message, `${locale} ${key}`).toBe('object');
        expect(Object.keys(message).sort(), `${locale} ${key}`).toEqual([...categories].sort());
      }
    }
  });

  it('says a message as a string where English does', () => {
    for (const locale of CHECKOUT_LOCALES) {
      for (const key of englishKeys.filter((name) => typeof en[name as keyof typeof en] === 'string')) {
        expect(typeof CATALOGUES[locale][key as keyof typeof en], `${locale} ${key}`).toBe('string');
      }
    }
  });
});

describe('translator', () => {
  it('fills named placeholders, in the order the translation puts them', () => {
    expect(translator('en')('page.title', { amount: '$10.00', merchant: 'Corner Shop' })).toBe(
      'Pay $10.00 to Corner Shop',
    );
    expect(translator('ja')('page.title', { amount: '$10.00', merchant: 'Corner Shop' })).toBe(
      'Corner Shop に $10.00 を支払う',
    );
  });

  it("chooses the plural form of the count in the locale's rules and formats the count", () => {
    const english = translator('en');
    expect(english('page.minutesLeft', { count: 1 })).toBe('1 minute left');
    expect(english('page.minutesLeft', { count: 14 })).toBe('14 minutes left');
    expect(english('form.problem.tooLong', { count: 1200 })).toBe('Use at most 1,200 characters');
    expect(translator('de')('page.minutesLeft', { count: 1 })).toBe('Noch 1 Minute');
    expect(translator('de')('form.problem.tooLong', { count: 1200 })).toBe('Höchstens 1.200 Zeichen');
    // French counts 0 and 1 as one, and a million takes "de".
    expect(translator('fr')('page.minutesLeft', { count: 0 })).toBe('Encore 0 minute');
    expect(translator('fr')('page.minutesLeft', { count: 1_000_000 })).toBe('Encore 1\u202f000\u202f000 de minutes');
    expect(translator('ja')('page.minutesLeft', { count: 1 })).toBe('残り 1 分');
  });

  it('hands values back as given beside the text, for markup', () => {
    const link = { markup: '<a>x</a>' };
    expect(translator('en').parts('page.openLink', { link })).toEqual(['Or open the payment link in a wallet: ', link]);
    expect(translator('fr').parts('page.reference', { reference: link })).toEqual(['Référence ', link]);
  });

  it('works over any catalogue of the English keys, as the page script has only its own', () => {
    expect(translatorOf('de', CATALOGUES.de)('page.or')).toBe('oder');
  });
});
