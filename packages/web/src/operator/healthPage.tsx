import { ErrorNotice, PageHeading, usePageTitle } from '../ui/common.tsx';
import { formatDateTime, formatTokenExact } from '../ui/format.ts';
import { useLiveData } from '../ui/liveData.ts';
import {
  type HealthToken,
  type NetworkHealth,
  type NodeStatus,
  readServiceHealth,
  type ServiceHealth,
} from './operatorApi.ts';
import { CONSOLE_NAME } from './paths.ts';

/** The page follows the service while it is open. */
const HEALTH_REFRESH_MS = 15_000;

const count = new Intl.NumberFormat();

/** A token amount in minor units, exact, with its symbol (minor units where the token is not listed). */
function amountOf(value: string, token: HealthToken): string {
  const { symbol, decimals } = token;
  return formatTokenExact(value, symbol !== null && decimals !== null ? { symbol, decimals } : undefined);
}

/** A node's state in words and colour; the words alone say it. */
function NodeBadge(props: { status: NodeStatus }) {
  const [tone, label] = {
    reachable: ['succeeded', 'Reachable'],
    unreachable: ['failed', 'Unreachable'],
    no_node: ['requires_action', 'No node'],
  }[props.status];
  return <span class={`status status-${tone}`}>{label}</span>;
}

/** One element per cell: on a phone, a cell's children are laid out beside its label. */
function NodeCell(props: { network: NetworkHealth }) {
  const { node, unit } = props.network;
  if (node.status === 'reachable') {
    return (
      <span>
        <NodeBadge status="reachable" /> {unit} <span class="latest">{node.latest}</span>
      </span>
    );
  }
  return (
    <span>
      <NodeBadge status={node.status} />
      {node.problem && <span class="hint"> {node.problem}</span>}
    </span>
  );
}

function FollowerCell(props: { network: NetworkHealth }) {
  const { follower, unit, confirmations } = props.network;
  const followed = follower.followed ? 'Followed' : 'Followed by no process';
  if (follower.readUpTo === null) {
    return (
      <span>
        {followed}
        <span class="hint">
          {unit === 'slot'
            ? '; reads open transactions by signature, no position kept'
            : '; no position yet (no deposit address opened)'}
        </span>
      </span>
    );
  }
  return (
    <span>
      {followed}; read to {unit} <span class="read-up-to">{follower.readUpTo}</span>
      {follower.lag !== null && (
        <>
          , <span class="lag">{follower.lag}</span> behind (reads at depth {confirmations})
        </>
      )}
    </span>
  );
}

function NetworkRows(props: { networks: NetworkHealth[] }) {
  if (props.networks.length === 0) return <p class="empty">No networks are configured.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Chains and their followers</caption>
        <thead>
          <tr>
            <th scope="col">Network</th>
            <th scope="col">Node</th>
            <th scope="col">Follower</th>
          </tr>
        </thead>
        <tbody>
          {props.networks.map((network) => (
            <tr key={network.network} data-network={network.network}>
              <td data-label="Network">
                <span>
                  {network.name} <code class="hash">{network.network}</code>
                </span>
              </td>
              <td data-label="Node">
                <NodeCell network={network} />
              </td>
              <td data-label="Follower">
                <FollowerCell network={network} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The collector's balance of every token on every network against the ledger, as `paygate audit` compares them. */
function CollectorRows(props: { networks: NetworkHealth[] }) {
  const rows = props.networks.flatMap((network) =>
    network.collector.status === 'reachable' ? network.collector.balances.map((balance) => ({ network, balance })) : [],
  );
  const unread = props.networks.filter((network) => network.collector.status === 'unreachable');
  return (
    <>
      {unread.map((network) => (
        <p key={network.network} class="error">
          {network.name}: the collector could not be read ({network.collector.problem}).
        </p>
      ))}
      {rows.length === 0 ? (
        <p class="empty">The collector holds nothing on the networks read, and the ledger agrees.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">The collector’s balances on the chains against the ledger</caption>
            <thead>
              <tr>
                <th scope="col">Network</th>
                <th scope="col">Token</th>
                <th scope="col">On the chain</th>
                <th scope="col">In the ledger</th>
                <th scope="col">Difference</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ network, balance }) => (
                <tr key={balance.asset} data-asset={balance.asset}>
                  <td data-label="Network">
                    <span>
                      {network.name} <span class="hint">at {balance.readAt}</span>
                    </span>
                  </td>
                  <td data-label="Token">{balance.symbol ?? <code class="hash">{balance.asset}</code>}</td>
                  <td data-label="On the chain">{amountOf(balance.chain, balance)}</td>
                  <td data-label="In the ledger">{amountOf(balance.ledger, balance)}</td>
                  <td data-label="Difference">
                    {balance.difference === '0' ? 'None' : <strong>{amountOf(balance.difference, balance)}</strong>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function JobRows(props: { jobs: ServiceHealth['jobs'] }) {
  if (props.jobs.length === 0) return <p class="empty">The job queue is empty.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Jobs per task</caption>
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Due</th>
            <th scope="col">Scheduled</th>
            <th scope="col">Running</th>
            <th scope="col">Given up</th>
            <th scope="col">Oldest due since</th>
          </tr>
        </thead>
        <tbody>
          {props.jobs.map((job) => (
            <tr key={job.task} data-task={job.task}>
              <td data-label="Task">
                <code>{job.task}</code>
              </td>
              <td data-label="Due">{count.format(job.due)}</td>
              <td data-label="Scheduled">{count.format(job.scheduled)}</td>
              <td data-label="Running">{count.format(job.running)}</td>
              <td data-label="Given up">{count.format(job.givenUp)}</td>
              <td data-label="Oldest due since">{job.oldestDueAt ? formatDateTime(job.oldestDueAt) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SettlementRows(props: { settlements: ServiceHealth['settlements'] }) {
  const { unconfirmed, shortfalls } = props.settlements;
  return (
    <>
      {shortfalls.map((shortfall) => (
        <p key={shortfall.asset} class="error">
          The collector lacks {amountOf((BigInt(shortfall.needed) - BigInt(shortfall.held)).toString(), shortfall)} for
          the batches waiting on it: fund it.
        </p>
      ))}
      {unconfirmed.length === 0 ? (
        <p class="empty">Every settlement batch is confirmed.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Settlement batches not confirmed yet</caption>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Status</th>
                <th scope="col">Batches</th>
                <th scope="col">Amount</th>
                <th scope="col">Oldest made</th>
              </tr>
            </thead>
            <tbody>
              {unconfirmed.map((group) => (
                <tr key={`${group.asset} ${group.status}`} data-asset={group.asset} data-status={group.status}>
                  <td data-label="Token">{group.symbol ?? <code class="hash">{group.asset}</code>}</td>
                  <td data-label="Status">
                    {group.status === 'sent' ? 'Sent, not final yet' : 'Claimed, not sent yet'}
                  </td>
                  <td data-label="Batches">{count.format(group.batches)}</td>
                  <td data-label="Amount">{amountOf(group.amount, group)}</td>
                  <td data-label="Oldest made">{formatDateTime(group.oldestCreatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * The service's health: each network's node and follower, the collector against the ledger, the job queue,
 * webhook deliveries and settlements, refreshed while the page is open.
 */
export function HealthPage() {
  usePageTitle('Health', CONSOLE_NAME);
  const health = useLiveData('health', readServiceHealth, () => HEALTH_REFRESH_MS);
  const data = health.data;
  return (
    <>
      <PageHeading>Service health</PageHeading>
      {health.error && <ErrorNotice error={health.error} />}
      {health.loading && <p class="loading">Asking the database and every node…</p>}
      {data && (
        <>
          <p class="hint updated">
            Checked {formatDateTime(data.checkedAt)}; the page checks again every {HEALTH_REFRESH_MS / 1000} seconds.
          </p>
          <section aria-labelledby="chains-heading">
            <h2 id="chains-heading">Chains</h2>
            <NetworkRows networks={data.networks} />
          </section>
          <section aria-labelledby="collector-heading">
            <h2 id="collector-heading">Collector against the ledger</h2>
            <p class="hint">
              Read where <code>paygate audit</code> reads them: each network at its newest final block. The audit’s
              checks of merchants, buyers and deposit addresses run with the command.
            </p>
            <CollectorRows networks={data.networks} />
          </section>
          <section aria-labelledby="jobs-heading">
            <h2 id="jobs-heading">Job queue</h2>
            <JobRows jobs={data.jobs} />
          </section>
          <section aria-labelledby="webhooks-heading">
            <h2 id="webhooks-heading">Webhook deliveries</h2>
            <dl class="figures">
              <div>
                <dt>Pending</dt>
                <dd data-figure="webhooks-pending">{count.format(data.webhooks.pending)}</dd>
              </div>
              <div>
                <dt>Of those, retrying</dt>
                <dd data-figure="webhooks-retrying">{count.format(data.webhooks.retrying)}</dd>
              </div>
              <div>
                <dt>Oldest pending since</dt>
                <dd>{data.webhooks.oldestPendingSince ? formatDateTime(data.webhooks.oldestPendingSince) : '—'}</dd>
              </div>
            </dl>
          </section>
          <section aria-labelledby="settlements-heading">
            <h2 id="settlements-heading">Settlements not confirmed</h2>
            <SettlementRows settlements={data.settlements} />
          </section>
        </>
      )}
    </>
  );
}
