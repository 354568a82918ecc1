import { describe, expect, it } from 'vitest';
import { acceptedLanguages, checkoutLocaleOf, negotiateLocale } from '../../../src/checkout/i18n/locales.ts';

describe('checkout locale negotiation', () => {
  it('takes the locale of the query before the header', () => {
    expect(negotiateLocale({ query: 'de', acceptLanguage: 'ja' })).toBe('de');
    expect(negotiateLocale({ query: 'pt', acceptLanguage: 'en' })).toBe('pt-BR');
    expect(negotiateLocale({ query: 'zh-Hans', acceptLanguage: 'en' })).toBe('zh-CN');
  });

  it('ignores a query locale it does not speak, or that is no language tag', () => {
    expect(negotiateLocale({ query: 'ko', acceptLanguage: 'fr' })).toBe('fr');
    expect(negotiateLocale({ query: '../../etc', acceptLanguage: 'it' })).toBe('it');
    expect(negotiateLocale({ query: '', acceptLanguage: undefined })).toBe('en');
  });

  it('ranks the header by quality, in header order on ties, and takes the first language it speaks', () => {
    expect(negotiateLocale({ acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8' })).toBe('de');
    expect(negotiateLocale({ acceptLanguage: 'en;q=0.5, fr-CH;q=0.9' })).toBe('fr');
    expect(negotiateLocale({ acceptLanguage: 'ja, de' })).toBe('ja');
    expect(negotiateLocale({ acceptLanguage: 'ko, nl;q=0.9, es-MX;q=0.8, en;q=0.7' })).toBe('es');
    expect(negotiateLocale({ acceptLanguage: 'it;q=0.3, de;q=0.300' })).toBe('it');
    expect(acceptedLanguages('a;q=0.5, b, c;q=1.0, d;q=0.9')).toEqual(['b', 'c', 'd', 'a']);
  });

  it('serves every Portuguese the Brazilian catalogue and simplified Chinese the zh-CN one, never traditional', () => {
    for (const tag of ['pt', 'pt-BR', 'pt-PT', 'PT-pt']) expect(checkoutLocaleOf(tag), tag).toBe('pt-BR');
    for (const tag of ['zh', 'zh-CN', 'zh-Hans', 'zh-Hans-CN', 'zh-SG'])
      expect(checkoutLocaleOf(tag), tag).toBe('zh-CN');
    for (const tag of ['zh-TW', 'zh-Hant', 'zh-HK']) expect(checkoutLocaleOf(tag), tag).toBeUndefined();
    expect(negotiateLocale({ acceptLanguage: 'zh-TW, ja;q=0.5' })).toBe('ja');
  });

  it('falls back to English for a missing, wildcard, zero-quality or malformed header', () => {
    expect(negotiateLocale({})).toBe('en');
    expect(negotiateLocale({ acceptLanguage: '*' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'de;q=0' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'de;q=0.000, fr;q=abc, it;q=2, ja;q=-1' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'not a tag!!, ;;;, ,,,' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'x'.repeat(10_000) })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: '\u0000de, \uFFFF' })).toBe('en');
  });

  it('reads a bounded part of a long header', () => {
    const many = `${Array.from({ length: 30 }, () => 'ko').join(',')},de`;
    expect(negotiateLocale({ acceptLanguage: many })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: `${'ko;q=0.1,'.repeat(60)}de` })).toBe('en');
  });
});
