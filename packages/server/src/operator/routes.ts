import type { App, AppContext } from '../context.ts';
import { registerCreatePartner } from './createPartner.ts';
import { registerFollowOperatorLink } from './followOperatorLink.ts';
import { registerListMerchants } from './listMerchants.ts';
import { registerListPartners } from './listPartners.ts';
import { authenticateOperator } from './operatorSession.ts';
import { registerPinPartnerVersion } from './pinPartnerVersion.ts';
import { registerServeOperatorAsset } from './serveOperatorAsset.ts';
import { registerSetMerchantStatus } from './setMerchantStatus.ts';
import { registerSetPartnerDataThreshold } from './setPartnerDataThreshold.ts';
import { registerSetPartnerFees } from './setPartnerFees.ts';
import { registerShowOperatorConsole } from './showOperatorConsole.ts';
import { registerShowOperatorSession } from './showOperatorSession.ts';
import { registerShowServiceHealth } from './showServiceHealth.ts';
import { registerSignOutOperator } from './signOutOperator.ts';

/**
 * The operator console's routes: its one-time link, and under `/operator/api/` what the console reads and changes,
 * every route of which is authenticated by the operator's session in one hook, so none can forget it.
 */
export async function registerOperatorRoutes(app: App, ctx: AppContext): Promise<void> {
  registerFollowOperatorLink(app, ctx);
  // The console's pages and assets: public, like the dashboard's; what they show comes from the API below.
  registerShowOperatorConsole(app);
  registerServeOperatorAsset(app);
  await app.register(async (scoped: App) => {
    scoped.decorateRequest('operatorSession', undefined);
    scoped.addHook('onRequest', async (request) => {
      request.operatorSession = await authenticateOperator(ctx, request);
    });
    registerShowOperatorSession(scoped, ctx);
    registerSignOutOperator(scoped, ctx);
    registerListPartners(scoped, ctx);
    registerCreatePartner(scoped, ctx);
    registerSetPartnerFees(scoped, ctx);
    registerPinPartnerVersion(scoped, ctx);
    registerSetPartnerDataThreshold(scoped, ctx);
    registerListMerchants(scoped, ctx);
    registerSetMerchantStatus(scoped, ctx);
    registerShowServiceHealth(scoped, ctx);
  });
}
