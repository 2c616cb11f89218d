import type { Redis } from "ioredis";

/**
 * Cached answers in Redis: one string key per answer with its TTL (`SET … EX`), under the
 * deployment's prefix. While Redis is not connected nothing is sent (a lookup is a miss at once
 * rather than a request queued until Redis returns).
 */
export class RedisAnswerStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    this.requireReady();
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.requireReady();
    await this.redis.set(this.prefix + key, value, "EX", ttlSeconds);
  }

  private requireReady(): void {
    if (this.redis.status !== "ready") throw new Error(`Redis is ${this.redis.status}`);
  }
}
