import type { App, AppContext } from '../context.ts';
import { registerGetFeesReport } from './getFeesReport.ts';
import { registerGetSettlementBatch } from './getSettlementBatch.ts';
import { registerListSettlementBatches } from './listSettlementBatches.ts';

export function registerSettlementRoutes(app: App, ctx: AppContext): void {
  registerListSettlementBatches(app, ctx);
  registerGetSettlementBatch(app, ctx);
  registerGetFeesReport(app, ctx);
}
