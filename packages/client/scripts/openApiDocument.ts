import { Registry } from 'prom-client';
import { buildApp } from '../../server/src/app.ts';
import { ChainRegistry } from '../../server/src/chains/registry.ts';
import { MAINNET_NETWORKS } from '../../server/src/chains/mainnets.ts';
import { systemClock } from '../../server/src/clock.ts';
import { loadConfig } from '../../server/src/config.ts';
import type { AppContext } from '../../server/src/context.ts';
import { createLogger } from '../../server/src/log.ts';

/**
 * The OpenAPI document the service serves at `/openapi.json`, built from the route schemas in this process: the app
 * is built and made ready but never listens, and nothing it is given opens a connection (building the routes reads
 * only the configuration, chains, logger and metrics registry, and closing it the long-poll waiter; no request is
 * ever handled).
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const ctx = {
    config: loadConfig({ LOG_LEVEL: 'silent', BASE_URL: 'http://localhost:8080' }),
    chains: new ChainRegistry(MAINNET_NETWORKS),
    clock: systemClock,
    logger: createLogger('silent'),
    metrics: new Registry(),
    // Closing the app stops the long-poll waiter; no long-poll is ever held here, so there is nothing to stop.
    statusWaiter: { stop: () => {} } as unknown as AppContext['statusWaiter'],
  } as Partial<AppContext> as AppContext;
  const app = await buildApp(ctx);
  try {
    await app.ready();
    return structuredClone(app.swagger()) as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
