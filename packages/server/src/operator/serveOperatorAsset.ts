import { Type } from '@sinclair/typebox';
import type { App } from '../context.ts';
import { sendConsoleAsset } from '../dashboard/serveDashboardAsset.ts';

/** The operator console's script, stylesheet and icon, under its own paths, as the dashboard serves its own. */
export function registerServeOperatorAsset(app: App): void {
  app.get(
    '/operator/assets/:file',
    {
      config: { auth: false },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) },
    },
    async (request, reply) => sendConsoleAsset(request.params.file, request.headers['accept-encoding'], reply),
  );
}
