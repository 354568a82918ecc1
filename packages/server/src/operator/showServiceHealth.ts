import { Type } from '@sinclair/typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import type { App, AppContext } from '../context.ts';
import { errorResponses, Nullable } from '../http/schemas.ts';
import { type NodeReading, readServiceHealth, type ServiceHealth } from './serviceHealth.ts';

const Timestamp = Type.String({ description: 'ISO 8601 timestamp' });
const MinorUnits = Type.String({ description: 'Minor units of the token' });

const NodeStatus = Type.Union([Type.Literal('reachable'), Type.Literal('unreachable'), Type.Literal('no_node')], {
  description: '`no_node`: this process has no node for the network',
});

/** A token by its CAIP-19 id, with its symbol and decimals when the configured networks list it. */
const TokenFields = {
  asset: Type.String({ description: 'CAIP-19 id' }),
  symbol: Nullable(Type.String()),
  decimals: Nullable(Type.Integer()),
};

const CollectorBalance = Type.Object({
  ...TokenFields,
  chain: Type.String({ description: 'Minor units the collector holds on the chain' }),
  ledger: Type.String({ description: "Minor units of the ledger's collector account" }),
  difference: Type.String({ description: 'Chain less ledger, in minor units' }),
  readAt: Type.String({ description: 'Where the chain was read: `block <n>` (EVM) or the commitment (Solana)' }),
});

const NetworkHealthView = Type.Object({
  network: Type.String({ description: 'CAIP-2 id' }),
  name: Type.String(),
  unit: Type.Union([Type.Literal('block'), Type.Literal('slot')]),
  confirmations: Type.Integer(),
  node: Type.Object({
    status: NodeStatus,
    latest: Nullable(Type.String({ description: 'The newest block number (EVM) or slot (Solana)' })),
    problem: Nullable(Type.String({ description: 'Why the node gave no answer; never its URL' })),
  }),
  follower: Type.Object({
    followed: Type.Boolean({ description: "Whether some process holds the network's follower lock" }),
    readUpTo: Nullable(
      Type.String({
        description: 'The last block the deposit follower read at depth; null where none is stored (Solana)',
      }),
    ),
    lag: Nullable(Type.String({ description: "Blocks from readUpTo to the node's newest, depth included" })),
    movedAt: Nullable(Timestamp),
  }),
  collector: Type.Object({
    status: NodeStatus,
    problem: Nullable(Type.String()),
    balances: Type.Array(CollectorBalance),
  }),
});

export const ServiceHealthView = Type.Object({
  checkedAt: Timestamp,
  networks: Type.Array(NetworkHealthView),
  jobs: Type.Array(
    Type.Object({
      task: Type.String(),
      due: Type.Integer({ description: 'Due and not taken by a worker' }),
      scheduled: Type.Integer({ description: 'To run later (retries waiting, or added for later)' }),
      running: Type.Integer(),
      givenUp: Type.Integer({ description: 'Out of attempts, kept by the queue' }),
      oldestDueAt: Nullable(Timestamp),
    }),
  ),
  webhooks: Type.Object({
    pending: Type.Integer({ description: 'Deliveries not succeeded, failed or cancelled yet' }),
    retrying: Type.Integer({ description: 'Of those, deliveries already attempted' }),
    oldestPendingSince: Nullable(Timestamp),
  }),
  settlements: Type.Object({
    unconfirmed: Type.Array(
      Type.Object({
        ...TokenFields,
        status: Type.Union([Type.Literal('claimed'), Type.Literal('sent')]),
        batches: Type.Integer(),
        amount: MinorUnits,
        oldestCreatedAt: Timestamp,
      }),
    ),
    shortfalls: Type.Array(
      Type.Object(
        { ...TokenFields, needed: MinorUnits, held: MinorUnits },
        { description: 'What the collector lacked for the batches waiting on it, as /metrics shows' },
      ),
    ),
  }),
});

function nodeView(reading: NodeReading<bigint> | null) {
  if (!reading) return { status: 'no_node' as const, latest: null, problem: null };
  if (reading.status === 'unreachable') return { status: reading.status, latest: null, problem: reading.problem };
  return { status: reading.status, latest: reading.value.toString(), problem: null };
}

function toServiceHealthView(health: ServiceHealth, chains: ChainRegistry) {
  const tokenFields = (asset: string) => {
    const token = chains.token(asset);
    return { asset, symbol: token?.symbol ?? null, decimals: token?.decimals ?? null };
  };
  return {
    checkedAt: health.checkedAt.toISOString(),
    networks: health.networks.map(({ network, latest, followed, position, collector }) => ({
      network: network.caip2,
      name: network.name,
      unit: network.namespace === 'solana' ? ('slot' as const) : ('block' as const),
      confirmations: network.confirmations,
      node: nodeView(latest),
      follower: {
        followed,
        readUpTo: position ? position.readUpTo.toString() : null,
        lag: position && latest?.status === 'reachable' ? (latest.value - position.readUpTo).toString() : null,
        movedAt: position ? position.movedAt.toISOString() : null,
      },
      collector: {
        status: collector ? collector.status : ('no_node' as const),
        problem: collector?.status === 'unreachable' ? collector.problem : null,
        balances:
          collector?.status === 'reachable'
            ? collector.value.map((check) => ({
                ...tokenFields(check.asset),
                chain: check.chain,
                ledger: check.ledger,
                difference: check.difference,
                readAt: check.readAt,
              }))
            : [],
      },
    })),
    jobs: health.jobs.map((depth) => ({ ...depth, oldestDueAt: depth.oldestDueAt?.toISOString() ?? null })),
    webhooks: {
      pending: health.webhooks.pending,
      retrying: health.webhooks.retrying,
      oldestPendingSince: health.webhooks.oldestPendingSince?.toISOString() ?? null,
    },
    settlements: {
      unconfirmed: health.settlements.unconfirmed.map((group) => ({
        ...group,
        ...tokenFields(group.asset),
        amount: group.amount.toString(),
        oldestCreatedAt: group.oldestCreatedAt.toISOString(),
      })),
      shortfalls: health.settlements.shortfalls.map((shortfall) => ({
        ...tokenFields(shortfall.asset),
        needed: shortfall.needed.toString(),
        held: shortfall.held.toString(),
      })),
    },
  };
}

/**
 * The service's health for the operator: per network the node's newest block or slot, whether a process follows
 * it and how far behind its stored position is, and the collector's balances against the ledger; the job queue,
 * pending webhook deliveries and settlements not confirmed yet. A node that does not answer shows as unreachable.
 */
export function registerShowServiceHealth(app: App, ctx: AppContext): void {
  app.get(
    '/operator/api/health',
    {
      schema: {
        tags: ['operator'],
        summary: "The service's health: chains, followers, jobs, webhooks, settlements, collector",
        response: { 200: ServiceHealthView, ...errorResponses() },
      },
    },
    async () => toServiceHealthView(await readServiceHealth(ctx), ctx.chains),
  );
}
