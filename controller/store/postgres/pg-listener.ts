import pg from 'pg';
import type { StoreEvent } from '../ports.js';

/** The channel replicas announce committed writes on. */
export const EVENTS_CHANNEL = 'flagops_events';
/** How a listening connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'flagops-listener';

export interface PgListenerOptions {
  /** First wait before reconnecting a dropped connection; doubles on each failure up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  onError?: (error: Error) => void;
}

/**
 * One dedicated connection (a pooled one could be handed to a query mid-LISTEN) that LISTENs on the
 * events channel and hands each notification to the subscribers. When the connection drops it
 * reconnects with backoff and LISTENs again; what was announced while it was down is not replayed, so
 * the subscribers get a `resync` event once it is back and read what they depend on again.
 */
export class PgListener {
  private client: pg.Client | undefined;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  private wait: number;
  /** The connection dropped since the last one was up: the next one announces a resync. */
  private interrupted = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly options: PgListenerOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 100;
    this.maxRetryMs = options.maxRetryMs ?? 5000;
    this.wait = this.retryMs;
  }

  /** Connects and starts listening; rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.config, application_name: LISTENER_APPLICATION_NAME });
    // Registered before connecting: an error event with no listener would crash the process.
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client));
    // A notification can be parsed before the LISTEN query's continuation runs: hold those back so the
    // resync (when there is one) always comes first, and drop a dropped connection's stragglers.
    const early: (string | undefined)[] = [];
    client.on('notification', (message) => {
      if (this.client === client) this.deliver(message.payload);
      else if (this.client === undefined && !this.closed) early.push(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.wait = this.retryMs;
    if (this.interrupted) {
      this.interrupted = false;
      this.notify({ topic: 'resync', id: '' });
    }
    for (const payload of early.splice(0)) this.deliver(payload);
  }

  private dropped(client: pg.Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.interrupted = true;
    if (error) this.options.onError?.(error);
    void client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.connect().catch((error: Error) => {
        this.options.onError?.(error);
        this.wait = Math.min(this.wait * 2, this.maxRetryMs);
        this.scheduleReconnect();
      });
    }, this.wait);
    this.retryTimer.unref();
  }

  private deliver(payload: string | undefined): void {
    if (payload === undefined) return;
    let event: StoreEvent;
    try {
      event = JSON.parse(payload) as StoreEvent;
    } catch {
      return; // not ours: anyone connected may NOTIFY on the channel
    }
    if (typeof event !== 'object' || event === null || event.topic !== 'review' || typeof event.id !== 'string') return;
    this.notify(event);
  }

  private notify(event: StoreEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.onError?.(error as Error);
      }
    }
  }
}
