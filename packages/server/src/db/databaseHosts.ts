import pg from 'pg';

/**
 * Several database hosts in one URL, as libpq takes them: `postgresql://user:pw@host1:5432,host2:5433/db`, with
 * `target_session_attrs` saying which server a connection may keep (`read-write` unless given). node-postgres reads
 * one host only, so each new connection asks `HostSelection` where to go, and that tries the hosts in order.
 */

export interface DatabaseHost {
  host: string;
  port: number;
}

/** libpq's `target_session_attrs` that a service which writes can use. */
export type SessionAttrs = 'any' | 'read-write' | 'primary';

export interface DatabaseTarget {
  hosts: DatabaseHost[];
  sessionAttrs: SessionAttrs;
  /** The URL naming `host` alone, without `target_session_attrs`: what node-postgres is given. */
  urlOf(host: DatabaseHost): string;
}

export class DatabaseUrlError extends Error {}

const SESSION_ATTRS: SessionAttrs[] = ['any', 'read-write', 'primary'];
const DEFAULT_PORT = 5432;
const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/;

function parseHost(entry: string): DatabaseHost {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d+))?$/.exec(entry);
  if (!match) throw new DatabaseUrlError(`"${entry}" is not a host or host:port`);
  const port = match[2] === undefined ? DEFAULT_PORT : Number(match[2]);
  if (!(port > 0 && port < 65_536)) throw new DatabaseUrlError(`"${entry}" has no valid port`);
  return { host: match[1] as string, port };
}

/**
 * The hosts of `url` and the session it asks for. A URL with one host and no `target_session_attrs` is left to
 * node-postgres as it is (undefined here), so a single server behaves exactly as before.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget | undefined {
  const parts = URL_PARTS.exec(url);
  if (!parts) return undefined;
  const [, scheme, userInfo, authority, rest] = parts as unknown as [
    string,
    string,
    string | undefined,
    string,
    string,
  ];
  const queryStart = rest.indexOf('?');
  const query = new URLSearchParams(queryStart < 0 ? '' : rest.slice(queryStart + 1).split('#')[0]);
  const attrs = query.get('target_session_attrs');
  if (!authority.includes(',') && attrs === null) return undefined;
  if (attrs !== null && !SESSION_ATTRS.includes(attrs as SessionAttrs))
    throw new DatabaseUrlError(`target_session_attrs=${attrs} is not one of ${SESSION_ATTRS.join(', ')}`);
  if (query.has('host') || query.has('port'))
    throw new DatabaseUrlError('with several hosts, name each host and port before the path, not in the query');
  const hosts = authority.split(',').map((entry) => parseHost(entry.trim()));
  query.delete('target_session_attrs');
  const path = queryStart < 0 ? rest : rest.slice(0, queryStart);
  const remainingQuery = query.toString();
  const credentials = userInfo === undefined ? '' : `${userInfo}@`;
  return {
    hosts,
    sessionAttrs: (attrs as SessionAttrs | null) ?? 'read-write',
    urlOf: (host) =>
      `${scheme}${credentials}${host.host}:${host.port}${path}${remainingQuery ? `?${remainingQuery}` : ''}`,
  };
}

/** Where `url` points, without its credentials, for messages: `host:port[,host:port]/database`. */
export function describeDatabaseUrl(url: string): string {
  const parts = URL_PARTS.exec(url);
  if (!parts) return 'DATABASE_URL (not a postgresql:// URL)';
  const authority = parts[3] as string;
  const path = (parts[4] as string).split(/[?#]/)[0] as string;
  return `${authority
    .split(',')
    .map((entry) => (entry.includes(':') && !entry.endsWith(']') ? entry : `${entry}:${DEFAULT_PORT}`))
    .join(',')}${path}`;
}

/** What a server says of itself at connection start (PostgreSQL 14+ reports both), or undefined where it did not. */
interface ServerState {
  inHotStandby: string | undefined;
  defaultReadOnly: string | undefined;
}

/** Whether a session on a server in `state` is one `attrs` may keep; asks the server when it did not report it. */
async function acceptable(client: pg.Client, state: ServerState, attrs: SessionAttrs): Promise<boolean> {
  if (attrs === 'any') return true;
  let { inHotStandby, defaultReadOnly } = state;
  if (inHotStandby === undefined || defaultReadOnly === undefined) {
    const { rows } = await client.query<{ standby: string; read_only: string }>(
      "SELECT CASE WHEN pg_is_in_recovery() THEN 'on' ELSE 'off' END AS standby, current_setting('default_transaction_read_only') AS read_only",
    );
    inHotStandby = rows[0]?.standby;
    defaultReadOnly = rows[0]?.read_only;
  }
  if (inHotStandby === 'on') return false;
  return attrs === 'primary' || defaultReadOnly !== 'on';
}

/** Records the server state a connection reports as it starts. */
function watchServerState(client: pg.Client): ServerState {
  const state: ServerState = { inHotStandby: undefined, defaultReadOnly: undefined };
  client.connection.on('parameterStatus', (message: { parameterName: string; parameterValue: string }) => {
    if (message.parameterName === 'in_hot_standby') state.inHotStandby = message.parameterValue;
    if (message.parameterName === 'default_transaction_read_only') state.defaultReadOnly = message.parameterValue;
  });
  return state;
}

/** `08001` (sqlclient_unable_to_establish_sqlconnection): the service reads it as the database being away. */
export class NoWritableHostError extends Error {
  readonly code = '08001';
}

/** How long one host may take to accept a connection while the hosts are tried. */
const PROBE_TIMEOUT_MS = 5_000;
/** How long a round that found no host is answered from memory, so a burst of requests does not probe each. */
const FAILED_ROUND_KEPT_MS = 500;

/**
 * Which host new connections of one URL go to, shared by every pool and session of the process. The host found
 * last is used without asking until a connection to it fails; then the next connection tries the hosts in order
 * (libpq's way) and keeps the first one `target_session_attrs` accepts, so after a standby is promoted new
 * connections reach it. Staying on the host found, rather than going back to the first, keeps a former primary
 * that comes back as a second primary from taking writes.
 */
export class HostSelection {
  private found: DatabaseHost | undefined;
  private round: Promise<DatabaseHost | undefined> | undefined;
  private failedRound: { at: number; message: string } | undefined;

  constructor(readonly target: DatabaseTarget) {}

  async host(): Promise<DatabaseHost> {
    if (this.found) return this.found;
    if (!this.failedRound || Date.now() - this.failedRound.at >= FAILED_ROUND_KEPT_MS) {
      this.round ??= this.tryHosts().finally(() => {
        this.round = undefined;
      });
      const found = await this.round;
      if (found) return found;
    }
    // A new error for each caller, with a stack of its own.
    throw new NoWritableHostError(this.failedRound?.message ?? 'no database host was found');
  }

  /** A connection to `host` failed or found it unfit: the next connection tries the hosts again. */
  lost(host: DatabaseHost): void {
    if (this.found === host) this.found = undefined;
  }

  /** The first host that `target_session_attrs` accepts, or undefined (and `failedRound` says why). */
  private async tryHosts(): Promise<DatabaseHost | undefined> {
    const refusals: string[] = [];
    for (const host of this.target.hosts) {
      const probe = new pg.Client({
        connectionString: this.target.urlOf(host),
        connectionTimeoutMillis: PROBE_TIMEOUT_MS,
        application_name: 'paygate host check',
      });
      probe.on('error', () => {});
      const state = watchServerState(probe);
      try {
        await probe.connect();
        if (await acceptable(probe, state, this.target.sessionAttrs)) {
          this.found = host;
          this.failedRound = undefined;
          return host;
        }
        refusals.push(`${host.host}:${host.port} is not ${this.target.sessionAttrs}`);
      } catch (error) {
        refusals.push(`${host.host}:${host.port} ${(error as { code?: string }).code ?? (error as Error).message}`);
      } finally {
        await probe.end().catch(() => {});
      }
    }
    this.failedRound = {
      at: Date.now(),
      message: `no database host is ${this.target.sessionAttrs} (target_session_attrs): ${refusals.join('; ')}`,
    };
    return undefined;
  }
}

/** One selection per URL in the process: what one connection learns, every other one uses. */
const selections = new Map<string, HostSelection>();

function selectionOf(url: string): HostSelection | undefined {
  const existing = selections.get(url);
  if (existing) return existing;
  const target = parseDatabaseUrl(url);
  if (!target) return undefined;
  const selection = new HostSelection(target);
  selections.set(url, selection);
  return selection;
}

type ClientClass = new (config?: pg.ClientConfig) => pg.Client;
interface SelectingConfig extends pg.ClientConfig {
  hostSelection?: HostSelection;
}

const selectingClasses = new WeakMap<ClientClass, ClientClass>();

/** `Base` whose connections go to the host their `hostSelection` gives, and leave it when they find it unfit. */
function selectingClass(Base: ClientClass): ClientClass {
  const known = selectingClasses.get(Base);
  if (known) return known;
  class SelectingClient extends Base {
    private readonly selection: HostSelection | undefined;
    private readonly serverState: ServerState;

    constructor(config?: SelectingConfig) {
      super(config);
      this.selection = config?.hostSelection;
      this.serverState = watchServerState(this);
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg's connect overloads (promise or callback) are kept.
    override connect(callback?: any): any {
      const connecting = this.connectToSelectedHost();
      if (!callback) return connecting;
      connecting.then(
        () => callback(null, this),
        (error: Error) => callback(error),
      );
    }

    private async connectToSelectedHost(): Promise<this> {
      const selection = this.selection;
      if (!selection) {
        await super.connect();
        return this;
      }
      const host = await selection.host();
      this.host = host.host;
      this.port = host.port;
      try {
        await super.connect();
      } catch (error) {
        selection.lost(host);
        throw error;
      }
      // A connection that breaks later (the server died) sends the next one looking again.
      this.on('error', () => selection.lost(host));
      if (await acceptable(this, this.serverState, selection.target.sessionAttrs)) return this;
      selection.lost(host);
      await this.end().catch(() => {});
      throw new NoWritableHostError(
        `database host ${host.host}:${host.port} is no longer ${selection.target.sessionAttrs}`,
      );
    }
  }
  selectingClasses.set(Base, SelectingClient);
  return SelectingClient;
}

/**
 * node-postgres options for connections to `url` made by `Base` (a pool's `Client`): the URL as it is for one
 * server, or the first host's URL with a client that finds the host to use among several.
 */
export function clientOptions(
  url: string,
  Base: ClientClass = pg.Client,
): { connectionString: string; Client: ClientClass; hostSelection?: HostSelection } {
  const selection = selectionOf(url);
  if (!selection) return { connectionString: url, Client: Base };
  return {
    connectionString: selection.target.urlOf(selection.target.hosts[0] as DatabaseHost),
    Client: selectingClass(Base),
    hostSelection: selection,
  };
}

/** A client for a session of its own (LISTEN, advisory locks) on `url`, whichever host it must reach. */
export function sessionClient(url: string, config: Omit<pg.ClientConfig, 'connectionString'>): pg.Client {
  const { Client, ...options } = clientOptions(url);
  return new Client({ ...config, ...options } as SelectingConfig);
}
