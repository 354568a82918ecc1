import type { TaskList } from 'graphile-worker';
import { inject } from 'vitest';
import { startWorkers } from '../../src/jobs/queue.ts';
import { buildApp } from '../../src/app.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import { loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { systemClock } from '../../src/clock.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { createRuntime } from '../../src/runtime.ts';
import { createPartner } from '../../src/partners/partners.ts';

/** Parts of the context to use instead of the defaults (mainnet chains, system clock, no chain services). */
export type ContextOverrides = Partial<
  Pick<AppContext, 'chains' | 'clock' | 'chainServices' | 'logoFetch' | 'webhookDelivery' | 'screening'>
>;

export interface TestServer {
  url: string;
  db: Db;
  ctx: AppContext;
  close(): Promise<void>;
}

/** A real service on a real socket and the run's real database; `env` overrides configuration variables. */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    context?: ContextOverrides;
    /** Background tasks this server's process runs; only these are claimed from the shared queue. */
    tasks?: (ctx: AppContext) => TaskList;
    /** Another database than the run's, e.g. one of the test's own. */
    databaseUrl?: string;
  } = {},
): Promise<TestServer> {
  const databaseUrl = options.databaseUrl ?? inject('databaseUrl');
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_MAX: '100000',
    PAYMENT_RATE_LIMIT_MAX: '100000',
    ...options.env,
  });
  const db = connect(databaseUrl, 10);
  const { context = {} } = options;
  const runtime = await createRuntime({
    config,
    db,
    databaseUrl,
    chains: context.chains ?? new ChainRegistry(MAINNET_NETWORKS),
    clock: context.clock ?? systemClock,
    ...(context.chainServices ? { chainServices: context.chainServices } : {}),
    ...(context.logoFetch ? { logoFetch: context.logoFetch } : {}),
    ...(context.webhookDelivery ? { webhookDelivery: context.webhookDelivery } : {}),
    ...(context.screening ? { screening: context.screening } : {}),
  });
  const { ctx } = runtime;
  const app = await buildApp(ctx);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  ctx.config.baseUrl = address;
  ctx.config.checkoutUrl = address;
  const workers = options.tasks ? await startWorkers(databaseUrl, options.tasks(ctx), { concurrency: 2 }) : undefined;
  return {
    url: address,
    db,
    ctx,
    close: async () => {
      await workers?.stop();
      await app.close();
      await runtime.stop();
      await db.destroy();
    },
  };
}

export type TestPartner = Awaited<ReturnType<typeof createPartner>>;

/** A fresh partner per test file keeps tests independent on the shared database. */
export function newPartner(db: Db, name = 'Test partner'): Promise<TestPartner> {
  return createPartner(db, name);
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP request to the test server; JSON bodies are sent and parsed. */
export async function call<T = any>(
  server: { url: string },
  path: string,
  options: CallOptions = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Asserts the interface's error body shape and returns it. */
export function expectErrorBody(result: CallResult): {
  code: string;
  message: string;
  issues?: { field: string; message: string }[];
} {
  const body = result.body;
  if (typeof body !== 'object' || body === null || typeof body.code !== 'string' || typeof body.message !== 'string') {
    throw new Error(`not an error body (status ${result.status}): ${result.text.slice(0, 300)}`);
  }
  if (body.issues !== undefined) {
    if (
      !Array.isArray(body.issues) ||
      body.issues.some((issue: any) => typeof issue.field !== 'string' || typeof issue.message !== 'string')
    ) {
      throw new Error(`malformed issues: ${result.text.slice(0, 300)}`);
    }
  }
  return body;
}
