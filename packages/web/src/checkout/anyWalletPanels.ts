import type { Translate } from './i18n/translate.ts';

/**
 * Shows the "any wallet" panel of the chosen way to pay only (`[data-pay-panel]` whose `data-asset` is the checked
 * option), and turns on their copy buttons. Without JavaScript the server shows the preselected option's panel.
 */
export function setUpAnyWalletPanels(t: Translate): void {
  const panels = Array.from(document.querySelectorAll<HTMLElement>('[data-pay-panel]'));
  if (!panels.length) return;
  const show = () => {
    const chosen = document.querySelector<HTMLInputElement>('input[name="accepted"]:checked')?.value;
    for (const panel of panels) panel.hidden = panel.dataset.asset !== chosen;
  };
  document.addEventListener('change', (event) => {
    if ((event.target as HTMLInputElement | null)?.name === 'accepted') show();
  });
  show();
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const field = document.getElementById(button.dataset.copy ?? '') as HTMLInputElement | null;
    if (!field || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(field.value).then(
        () => {
          button.textContent = t('page.copied');
        },
        () => field.select(),
      );
    });
  }
}
