import { buildPointOfSaleAssets, type PointOfSaleAssets } from '@paygate/web/pointOfSaleAssets';

let built: Promise<PointOfSaleAssets> | undefined;

/** The point of sale's assets, built once per process on first use, as the consoles' are. */
export function pointOfSaleAssets(): Promise<PointOfSaleAssets> {
  built ??= buildPointOfSaleAssets().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
