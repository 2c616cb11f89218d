import { Redis } from "ioredis";

/** The Redis the integration suites use (the CI machine runs one on 127.0.0.1:6379). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export async function redisAvailable(): Promise<boolean> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Under CI=true a missing Redis fails the suite instead of skipping it. */
export async function requireRedis(): Promise<boolean> {
  const available = await redisAvailable();
  if (!available && process.env.CI) {
    throw new Error(`Redis is required under CI but not reachable at ${TEST_REDIS_URL}`);
  }
  return available;
}
