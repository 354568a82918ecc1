import { attributes, html, type SafeHtml } from './html.ts';
import { copyIcon } from './icons.ts';

/**
 * A small button beside a value on the page that copies `value` (as a wallet's field takes it, which may differ from
 * the text shown: the amount without its symbol). Hidden until the page's script finds a clipboard to copy to; the
 * value stays on the page as text to read and select.
 */
export function copyButton(label: string, value: string): SafeHtml {
  return html`<button type="button" class="copy"${attributes({ value, 'aria-label': label, title: label, 'data-copy': '' })} hidden>${copyIcon}<span class="copy-state" aria-hidden="true"></span></button>`;
}
