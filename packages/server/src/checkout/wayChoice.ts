import type { Translator } from '@paygate/web/checkout/i18n/translate.ts';
import { html, type SafeHtml } from './html.ts';
import { scanIcon, sendIcon } from './icons.ts';

/** The two ways to pay an option from any wallet: scan its request, or send to its address by hand. */
export type Way = 'scan' | 'send';

/**
 * The choice between scanning an option's request and sending to its address: two radio buttons drawn as a
 * segmented control. The stylesheet shows the chosen way's part of the panel (`[data-way]`), so it works without
 * JavaScript; scanning is chosen first, as it fills in everything for the buyer.
 */
export function wayChoice(panelId: string, labelledBy: string, t: Translator): SafeHtml {
  const tab = (way: Way, icon: SafeHtml, text: string) =>
    html`<input type="radio" class="way-input" name="way-${panelId}" id="${panelId}-${way}" value="${way}"${way === 'scan' ? html` checked` : ''}>
    <label class="way-tab" for="${panelId}-${way}">${icon}<span>${text}</span></label>`;
  return html`<div class="way-choice" role="radiogroup" aria-labelledby="${labelledBy}">
    ${tab('scan', scanIcon, t('way.scan'))}
    ${tab('send', sendIcon, t('way.send'))}
  </div>`;
}
