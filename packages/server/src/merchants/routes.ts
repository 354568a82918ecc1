import type { App, AppContext } from '../context.ts';
import { registerCreateCryptoSettlements } from './createCryptoSettlements.ts';
import { registerCreateMerchant } from './createMerchant.ts';
import { registerDeleteCryptoSettlement } from './deleteCryptoSettlement.ts';
import { registerDeleteMerchant } from './deleteMerchant.ts';
import { registerGetMerchant } from './getMerchant.ts';
import { registerListMerchants } from './listMerchants.ts';
import { registerListSettlements } from './listSettlements.ts';
import { registerServeLogo } from './serveLogo.ts';
import { registerUpdateCryptoSettlement } from './updateCryptoSettlement.ts';
import { registerUpdateMerchant } from './updateMerchant.ts';

export function registerMerchantRoutes(app: App, ctx: AppContext): void {
  registerCreateMerchant(app, ctx);
  registerListMerchants(app, ctx);
  registerGetMerchant(app, ctx);
  registerUpdateMerchant(app, ctx);
  registerDeleteMerchant(app, ctx);
  registerServeLogo(app, ctx);
  registerListSettlements(app, ctx);
  registerCreateCryptoSettlements(app, ctx);
  registerUpdateCryptoSettlement(app, ctx);
  registerDeleteCryptoSettlement(app, ctx);
}
