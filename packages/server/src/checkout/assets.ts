import { buildCheckoutAssets, type CheckoutAssets } from '@paygate/web/checkoutAssets';
import type { CheckoutLocale } from '@paygate/web/checkout/i18n/locales.ts';
import type { WebAsset } from '@paygate/web/hashedAsset';
import type { PageAssets } from './checkoutPage.ts';

export type CheckoutAsset = WebAsset;

let built: Promise<CheckoutAssets> | undefined;

/**
 * The page's script (bundled with the wallet SDK's browser build), its messages in each language, stylesheet and
 * icon, built once per process on first use: bundling costs a moment that processes which never serve a page
 * should not pay.
 */
export function checkoutAssets(): Promise<CheckoutAssets> {
  built ??= buildCheckoutAssets().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

function assetUrl(prefix: string, asset: CheckoutAsset): string {
  return `${prefix}/assets/checkout/${asset.name}`;
}

/** Where a page under the checkout's path `prefix` finds the script, stylesheet and icon. */
export async function checkoutAssetUrls(prefix: string): Promise<PageAssets> {
  const built = await checkoutAssets();
  return {
    scriptUrl: assetUrl(prefix, built.script),
    styleUrl: assetUrl(prefix, built.style),
    iconUrl: assetUrl(prefix, built.icon),
  };
}

/** Where a page under the checkout's path `prefix` finds its script's messages in `locale`. */
export async function checkoutCatalogueUrl(prefix: string, locale: CheckoutLocale): Promise<string> {
  return assetUrl(prefix, (await checkoutAssets()).catalogues[locale]);
}
