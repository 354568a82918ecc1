import { html, type SafeHtml } from './html.ts';
import type { MessageKey, ValuesFor } from '@paygate/web/checkout/i18n/catalogue.ts';
import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';

/**
 * A translated sentence as markup: its words and text values escaped, values that are markup (a link, a strong
 * amount) put where the translation places them.
 */
export function translatedHtml<K extends MessageKey>(
  t: Translator,
  key: K,
  ...values: ValuesFor<K, string | number | SafeHtml>
): SafeHtml {
  return html`${t.parts<K, SafeHtml>(key, ...values)}`;
}
