/**
 * Session notices over Redis pub/sub (Bun's client): one channel per
 * deployment, under its key prefix. A subscribed connection can do nothing
 * else, so publishing goes over a second one. When the subscriber's
 * connection is lost it is made anew (a fresh client, subscribed again) a
 * second later and then less often, and the listener is told it may have
 * missed notices.
 */
import { RedisClient } from "bun";
import { RespConnection } from "../limits/redis-connection.ts";
import type { Logger } from "../log.ts";
import { decodeNotice, encodeNotice, type NoticeListener, type SessionNotice, type SessionNotices } from "./session-notices.ts";

const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

export class RedisNotices implements SessionNotices {
  readonly name = "redis";
  private readonly publisher: RespConnection;
  private readonly channel: string;
  private subscriber: RedisClient | undefined;
  /** Set when the listener stops hearing: the subscriber is not made again. */
  private stopped = false;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly url: string,
    keyPrefix: string,
    private readonly log: Logger,
  ) {
    this.publisher = new RespConnection(url);
    this.channel = `${keyPrefix}mcp:notices`;
  }

  /** Resolves once subscribed, or once the first attempt failed (said in the log; it is tried again). One listener. */
  async listen(listener: NoticeListener): Promise<() => Promise<void>> {
    await this.subscribe(listener, 0);
    return async () => {
      this.stopped = true;
      clearTimeout(this.retry);
      this.subscriber?.close();
    };
  }

  async publish(notice: SessionNotice): Promise<void> {
    await (await this.publisher.ready()).publish(this.channel, encodeNotice(notice));
  }

  async close(): Promise<void> {
    this.publisher.close();
  }

  /** A fresh subscriber; after the first, the listener is told notices may have gone unheard. */
  private async subscribe(listener: NoticeListener, attempt: number): Promise<void> {
    const client = new RedisClient(this.url, { autoReconnect: false, connectionTimeout: 2_000 });
    this.subscriber = client;
    client.onclose = () => {
      if (this.stopped || this.subscriber !== client) return;
      this.log.warn("MCP session notices: the Redis subscription was lost; subscribing again");
      this.again(listener, 1);
    };
    try {
      await client.subscribe(this.channel, (payload) => {
        const notice = decodeNotice(payload);
        if (notice) listener.heard(notice);
      });
    } catch (error) {
      client.onclose = null;
      client.close();
      if (attempt === 0) this.log.warn("MCP session notices: cannot subscribe in Redis; trying again", { error });
      this.again(listener, attempt + 1);
      return;
    }
    if (this.stopped) client.close();
    else if (attempt > 0) listener.reconnected();
  }

  private again(listener: NoticeListener, attempt: number): void {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.subscribe(listener, attempt), RETRY_MS[Math.min(attempt - 1, RETRY_MS.length - 1)]);
  }
}
