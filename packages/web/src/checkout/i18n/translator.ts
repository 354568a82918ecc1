import type { Catalogue } from './catalogue.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { it } from './it.ts';
import { ja } from './ja.ts';
import type { CheckoutLocale } from './locales.ts';
import { ptBR } from './pt-BR.ts';
import { type Translator, translatorOf } from './translate.ts';
import { zhCN } from './zh-CN.ts';

/** Every language's catalogue, by locale: a language missing here fails to compile. */
export const CATALOGUES: Readonly<Record<CheckoutLocale, Catalogue>> = {
  en,
  es,
  fr,
  de,
  'pt-BR': ptBR,
  it,
  ja,
  'zh-CN': zhCN,
};

/** The checkout's messages in `locale`. */
export function translator(locale: CheckoutLocale): Translator {
  return translatorOf(locale, CATALOGUES[locale]);
}
