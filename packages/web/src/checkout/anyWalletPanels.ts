import type { Translate } from './i18n/translate.ts';

/** How long a copy button says it copied. */
const COPIED_FOR_MS = 2_000;

/**
 * Shows the "any wallet" panel of the chosen way to pay only (`[data-pay-panel]` whose `data-asset` is the checked
 * option), keeps the buyer's choice between scanning and sending (`.way-input`) across the panels, and turns on
 * their copy buttons. Without JavaScript the server shows the preselected option's panel.
 */
export function setUpAnyWalletPanels(t: Translate): void {
  const panels = Array.from(document.querySelectorAll<HTMLElement>('[data-pay-panel]'));
  if (!panels.length) return;
  const show = () => {
    const chosen = document.querySelector<HTMLInputElement>('input[name="accepted"]:checked')?.value;
    for (const panel of panels) panel.hidden = panel.dataset.asset !== chosen;
  };
  document.addEventListener('change', (event) => {
    const input = event.target as HTMLInputElement | null;
    if (input?.name === 'accepted') show();
    if (input?.classList.contains('way-input')) {
      for (const way of Array.from(document.querySelectorAll<HTMLInputElement>(`.way-input[value="${input.value}"]`)))
        way.checked = true;
    }
  });
  show();
  if (!navigator.clipboard) return;
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
    const label = button.getAttribute('aria-label') ?? '';
    const state = button.querySelector('.copy-state');
    let reset: ReturnType<typeof setTimeout> | undefined;
    button.hidden = false;
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(button.value).then(() => {
        // Said on the button, for the eye and as its new name for a screen reader, then its name again.
        button.setAttribute('aria-label', t('page.copied'));
        button.classList.add('copied');
        if (state) state.textContent = t('page.copied');
        clearTimeout(reset);
        reset = setTimeout(() => {
          button.setAttribute('aria-label', label);
          button.classList.remove('copied');
          if (state) state.textContent = '';
        }, COPIED_FOR_MS);
      });
    });
  }
}
