import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import { type Logger, silentLogger } from '../log.ts';
import { sessionClient } from './databaseHosts.ts';

export interface ChannelSubscriber {
  /** A notification committed on the channel by any process; `payload` is what was given to `pg_notify`. */
  notification(payload: string): void;
  /**
   * `false` when the connection is lost (notifications are missed from then on), `true` once listening again, so
   * a subscriber that relies on notifications knows when it must not.
   */
  listening?(listening: boolean): void;
}

const RECONNECT_DELAY_MS = 1000;

/**
 * PostgreSQL LISTEN/NOTIFY for the whole process: one connection listens on every subscribed channel and passes
 * each notification to the channel's subscribers, reconnecting when the connection is lost.
 */
export class DatabaseNotifications {
  private client: pg.Client | undefined;
  private readonly subscribers = new Map<string, ChannelSubscriber[]>();
  private listening = false;
  private started = false;
  private stopping = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger = silentLogger,
  ) {}

  /** Channels are listened to from `start()` on, so every subscriber is added before it. */
  subscribe(channel: string, subscriber: ChannelSubscriber): void {
    if (this.started) throw new Error(`subscribe to ${channel} before the notifications listener starts`);
    this.subscribers.set(channel, [...(this.subscribers.get(channel) ?? []), subscriber]);
  }

  /** Listens, or fails without retrying: a process that cannot listen at start should not start. */
  async start(): Promise<void> {
    this.started = true;
    try {
      await this.connect();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Whether notifications are being received right now. */
  get connected(): boolean {
    return this.listening;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    this.setListening(false);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    // Named after the process, so an operator (or a test) can tell which process a listening connection serves.
    const client = sessionClient(this.databaseUrl, {
      application_name: `paygate notifications ${process.pid}`,
      keepAlive: true,
    });
    client.on('notification', (message) => {
      if (message.payload === undefined) return;
      for (const subscriber of this.subscribers.get(message.channel) ?? []) subscriber.notification(message.payload);
    });
    client.on('error', (error) => this.lost(client, `notifications listener connection lost: ${error.message}`));
    client.on('end', () => this.lost(client, 'notifications listener connection ended'));
    this.client = client;
    try {
      await client.connect();
      for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      this.lost(client, `notifications listener could not listen: ${(error as Error).message}`);
      throw error;
    }
    if (this.client === client) this.setListening(true);
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.client !== client || this.stopping) return;
    this.client = undefined;
    this.log.warn(reason);
    this.setListening(false);
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      // A failed attempt has reported itself and scheduled the next one.
      this.connect().catch(() => {});
    }, RECONNECT_DELAY_MS);
  }

  private setListening(listening: boolean): void {
    if (this.listening === listening) return;
    this.listening = listening;
    for (const subscribers of this.subscribers.values())
      for (const subscriber of subscribers) subscriber.listening?.(listening);
  }
}

/** `paygate_notifications_listening`: 1 while this process receives notifications; alert when it stays 0. */
export function registerNotificationMetrics(registry: Registry, notifications: DatabaseNotifications): void {
  new Gauge({
    name: 'paygate_notifications_listening',
    help: 'Whether this process is listening for database notifications (1) or reconnecting (0)',
    registers: [registry],
    collect() {
      this.set(notifications.connected ? 1 : 0);
    },
  });
}
