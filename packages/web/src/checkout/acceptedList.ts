import type { Translate } from './i18n/translate.ts';

/** Up to this many ways to pay are all listed; a longer list shows its first few and a button for the rest. */
const LISTED_IN_FULL = 10;
const SHOWN_FIRST = 6;

/**
 * Keeps a long accepted list (a service on many networks) from pushing the wallets off a phone's first screen: its
 * first six entries and the picked one stay, the others wait behind "Show all N ways to pay", which shows them and
 * moves the focus to the first of them; a network whose entries all wait is hidden with them. Without JavaScript
 * the whole list shows.
 */
export function shortenLongList(accepted: HTMLElement, t: Translate): void {
  const entries = Array.from(accepted.querySelectorAll<HTMLElement>('label.option'));
  if (entries.length <= LISTED_IN_FULL) return;
  const later = entries.filter((entry, index) => index >= SHOWN_FIRST && !entry.querySelector('input:checked'));
  for (const entry of later) entry.hidden = true;
  const networks = Array.from(accepted.querySelectorAll<HTMLElement>('.accepted-network'));
  const emptied = networks.filter((network) => !network.querySelector('label.option:not([hidden])'));
  for (const network of emptied) network.hidden = true;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'show-all';
  button.textContent = t('page.showAllWays', { count: entries.length });
  button.addEventListener('click', () => {
    for (const hidden of [...later, ...emptied]) hidden.hidden = false;
    button.remove();
    later[0]?.querySelector('input')?.focus();
  });
  accepted.append(button);
}
