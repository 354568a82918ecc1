import type { Catalogue } from './catalogue.ts';

/** The global through which a catalogue asset hands its messages to the page's script. */
const CATALOGUE_GLOBAL = 'paygateCheckoutCatalogue';

/**
 * A script that hands `catalogue` to the page's script. Each language's is an asset of its own, loaded before the
 * page's script, so the page's script carries no catalogue and a page loads only its own language's.
 */
export function catalogueScript(catalogue: Catalogue): string {
  return `self.${CATALOGUE_GLOBAL}=${JSON.stringify(catalogue)};\n`;
}

/** The catalogue the page's catalogue asset handed over; none if it did not load. */
export function loadedCatalogue(): Catalogue | undefined {
  return (globalThis as Record<string, unknown>)[CATALOGUE_GLOBAL] as Catalogue | undefined;
}
