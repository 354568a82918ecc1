import type { App, AppContext } from '../context.ts';
import { registerCancelCharge } from './cancelCharge.ts';
import { registerClaimPairing } from './claimPairing.ts';
import { registerCreateCharge } from './createCharge.ts';
import { registerGetCharge } from './getCharge.ts';
import { registerListCharges } from './listCharges.ts';
import { registerListDevices } from './listDevices.ts';
import { registerPairDevice } from './pairDevice.ts';
import { registerRevokeDevice } from './revokeDevice.ts';
import { registerShowDevice } from './showDevice.ts';
import { registerShowPointOfSale } from './showPointOfSale.ts';
import { registerShowReceipt } from './showReceipt.ts';

/**
 * Point of sale: the partner pairs, lists and revokes a merchant's devices (from the dashboard); a paired device,
 * with its own key, charges, follows and cancels its own payments and nothing else; the app it runs at `/pos`, and
 * the receipt pages its buyers keep.
 */
export function registerPointOfSaleRoutes(app: App, ctx: AppContext): void {
  registerPairDevice(app, ctx);
  registerListDevices(app, ctx);
  registerRevokeDevice(app, ctx);
  registerClaimPairing(app, ctx);
  registerShowDevice(app, ctx);
  registerCreateCharge(app, ctx);
  registerListCharges(app, ctx);
  registerGetCharge(app, ctx);
  registerCancelCharge(app, ctx);
  registerShowPointOfSale(app);
  registerShowReceipt(app, ctx);
}
