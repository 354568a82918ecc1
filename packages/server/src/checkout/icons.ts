import { type SafeHtml, trustedHtml } from './html.ts';

/**
 * Line icons drawn in the text's colour, so they follow the page's light and dark schemes. Each goes beside words
 * that say the same, so it is hidden from screen readers.
 */
function icon(paths: string): SafeHtml {
  return trustedHtml(
    `<svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${paths}</svg>`,
  );
}

/** A QR code's finder corners: scanning. */
export const scanIcon = icon(
  '<path d="M4 9V5a1 1 0 0 1 1-1h4M15 4h4a1 1 0 0 1 1 1v4M20 15v4a1 1 0 0 1-1 1h-4M9 20H5a1 1 0 0 1-1-1v-4"/><path d="M8 12h8"/>',
);

/** A paper plane: sending to an address. */
export const sendIcon = icon('<path d="M21 3 10 14"/><path d="M21 3 14 21l-4-7-7-4z"/>');

/** Two sheets: copying. */
export const copyIcon = icon('<rect x="9" y="9" width="11" height="11" rx="2"/><path d="M5 15V5a1 1 0 0 1 1-1h9"/>');

/** The status views' marks: done, not done, out of time, on its way. */
export const statusIcons = {
  succeeded: icon('<circle cx="12" cy="12" r="9"/><path d="m8 12.5 2.5 2.5L16 9.5"/>'),
  failed: icon('<circle cx="12" cy="12" r="9"/><path d="M12 7.5v5.5M12 16.5v.01"/>'),
  cancelled: icon('<circle cx="12" cy="12" r="9"/><path d="m9 9 6 6M15 9l-6 6"/>'),
  expired: icon('<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>'),
  processing: icon('<path d="M12 3a9 9 0 1 0 9 9"/>'),
} as const;
