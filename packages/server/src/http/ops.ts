import { sql } from 'kysely';
import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { App, AppContext } from '../context.ts';
import { SERVICE_VERSION } from '../version.ts';

const publicRoute = { auth: false as const, rateLimit: false as const };

/** Liveness, readiness, Prometheus metrics and the OpenAPI document. */
export function registerOpsRoutes(app: App, ctx: AppContext, metrics: Registry): void {
  app.get(
    '/healthz',
    {
      config: publicRoute,
      schema: {
        hide: true,
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
      },
    },
    // The version lets a rolling upgrade see which release each process behind the balancer runs.
    async () => ({ status: 'ok' as const, version: SERVICE_VERSION }),
  );

  app.get('/readyz', { config: publicRoute, schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`SELECT 1`.execute(ctx.db);
      return { status: 'ready', database: 'ok' };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: 'unreachable' });
    }
  });

  app.get('/metrics', { config: publicRoute, schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );

  app.get('/openapi.json', { config: publicRoute, schema: { hide: true } }, async () => app.swagger());
}
