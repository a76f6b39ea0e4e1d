import { Redis } from 'ioredis';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

/**
 * One real redis-server for the test file (started in beforeAll, stopped in afterAll) and
 * connections to it that are quit after each test. `prefix()` gives each test keys of its own.
 */
export function useRedis(): {
  readonly server: RedisServer;
  readonly url: string;
  client(): Redis;
  prefix(): string;
} {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  let prefixes = 0;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => (client.status === 'ready' ? client.quit().then(() => undefined) : Promise.resolve(client.disconnect()))));
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server() {
      return server!;
    },
    get url() {
      return server!.url;
    },
    client() {
      const client = new Redis(server!.url);
      clients.push(client);
      return client;
    },
    prefix() {
      return `t${process.pid}-${++prefixes}:`;
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
