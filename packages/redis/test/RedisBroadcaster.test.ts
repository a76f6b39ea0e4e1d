import { DefinitionError } from '@typemcp/core';
import type { ClusterMessage } from '@typemcp/core';
import { RedisBroadcaster } from '@typemcp/redis';
import type { RedisBroadcasterOptions } from '@typemcp/redis';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();
const broadcasters: RedisBroadcaster[] = [];

afterEach(async () => {
  await Promise.all(broadcasters.splice(0).map((b) => b.close()));
});

function broadcaster(options: RedisBroadcasterOptions = {}): RedisBroadcaster {
  const b = new RedisBroadcaster(redis.client(), options);
  broadcasters.push(b);
  return b;
}

/** Resolves once `count` messages arrived (or rejects after a second). */
function collector(count: number): { messages: ClusterMessage[]; onMessage: (m: ClusterMessage) => void; done: Promise<ClusterMessage[]> } {
  const messages: ClusterMessage[] = [];
  let finish!: () => void;
  const done = new Promise<ClusterMessage[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`got ${messages.length} of ${count} messages: ${JSON.stringify(messages)}`)), 1000);
    finish = () => {
      clearTimeout(timer);
      resolve(messages);
    };
  });
  return {
    messages,
    onMessage: (message) => {
      messages.push(message);
      if (messages.length === count) finish();
    },
    done,
  };
}

async function numsub(channel: string): Promise<number> {
  const reply = (await redis.client().pubsub('NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

it('fans a message out to every replica on its own connection, the publisher included, as JSON copies', async () => {
  const keyPrefix = redis.prefix();
  const a = broadcaster({ keyPrefix });
  const b = broadcaster({ keyPrefix });
  expect(a.subscriberConnection).not.toBe(b.subscriberConnection);
  const atA = collector(1);
  const atB = collector(1);
  await a.subscribe('changes', atA.onMessage);
  await b.subscribe('changes', atB.onMessage);
  const message = { origin: 'a', change: { kind: 'list', method: 'tools', n: 1.5, list: [1, 'x', null, { y: false }] } };
  await a.publish('changes', message);
  expect(await atA.done).toEqual([message]);
  expect(await atB.done).toEqual([message]);
  expect(atA.messages[0]).not.toBe(atB.messages[0]);
  expect(await numsub(`${keyPrefix}bus:changes`)).toBe(2);
});

it('delivers in publishing order per publisher', async () => {
  const keyPrefix = redis.prefix();
  const a = broadcaster({ keyPrefix });
  const b = broadcaster({ keyPrefix });
  const got = collector(200);
  await b.subscribe('ordered', got.onMessage);
  await Promise.all(Array.from({ length: 200 }, (_, n) => a.publish('ordered', { n })));
  expect((await got.done).map((m) => m.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
});

it('subscribes once in Redis per topic however many local subscribers; each gets its own copy; the last one leaving unsubscribes', async () => {
  const keyPrefix = redis.prefix();
  const channel = `${keyPrefix}bus:t`;
  const b = broadcaster({ keyPrefix });
  const publisher = broadcaster({ keyPrefix });
  const first = collector(2);
  const second = collector(1);
  const onBoth = jest.fn();
  const unsubscribeFirst = await b.subscribe('t', first.onMessage);
  const unsubscribeSecond = await b.subscribe('t', second.onMessage);
  // The same function twice is two subscriptions.
  const unsubscribeBoth1 = await b.subscribe('t', onBoth);
  const unsubscribeBoth2 = await b.subscribe('t', onBoth);
  expect(await numsub(channel)).toBe(1);
  await publisher.publish('t', { n: 1 });
  await second.done;
  expect(second.messages[0]).not.toBe(first.messages[0]);
  second.messages[0].n = 'changed';
  expect(first.messages[0]).toEqual({ n: 1 });
  expect(onBoth).toHaveBeenCalledTimes(2);

  await unsubscribeSecond();
  await unsubscribeSecond(); // twice is harmless
  await unsubscribeBoth1();
  expect(await numsub(channel)).toBe(1);
  await publisher.publish('t', { n: 2 });
  expect((await first.done).map((m) => m.n)).toEqual([1, 2]);
  expect(second.messages).toHaveLength(1);
  await sleep(20);
  expect(onBoth).toHaveBeenCalledTimes(3);

  await unsubscribeFirst();
  await unsubscribeBoth2();
  expect(await numsub(channel)).toBe(0);
  await publisher.publish('t', { n: 3 });
  await sleep(50);
  expect(first.messages).toHaveLength(2);
  expect(onBoth).toHaveBeenCalledTimes(3);

  // Subscribing again after the last left subscribes in Redis again.
  const again = collector(1);
  await b.subscribe('t', again.onMessage);
  expect(await numsub(channel)).toBe(1);
  await publisher.publish('t', { n: 4 });
  expect(await again.done).toEqual([{ n: 4 }]);
});

it('a subscribe racing the last unsubscribe ends subscribed', async () => {
  const keyPrefix = redis.prefix();
  const b = broadcaster({ keyPrefix });
  const unsubscribe = await b.subscribe('race', () => {});
  const got = collector(1);
  const [, resubscribed] = await Promise.all([unsubscribe(), b.subscribe('race', got.onMessage)]);
  expect(await numsub(`${keyPrefix}bus:race`)).toBe(1);
  await broadcaster({ keyPrefix }).publish('race', { ok: true });
  expect(await got.done).toEqual([{ ok: true }]);
  await resubscribed();
  expect(await numsub(`${keyPrefix}bus:race`)).toBe(0);
});

it('keeps topics and prefixes apart', async () => {
  const keyPrefix = redis.prefix();
  const a = broadcaster({ keyPrefix });
  const other = broadcaster({ keyPrefix: redis.prefix() });
  const onX = jest.fn();
  const onOther = jest.fn();
  const onY = collector(1);
  await a.subscribe('x', onX);
  await other.subscribe('y', onOther);
  await a.subscribe('y', onY.onMessage);
  await a.publish('y', { to: 'y' });
  await onY.done;
  await sleep(20);
  expect(onX).not.toHaveBeenCalled();
  expect(onOther).not.toHaveBeenCalled();
});

it('reports subscribers that throw and messages that are not JSON, and goes on delivering', async () => {
  const keyPrefix = redis.prefix();
  const onError = jest.fn();
  const b = broadcaster({ keyPrefix, onError });
  const got = collector(1);
  await b.subscribe('e', () => {
    throw new Error('subscriber failed');
  });
  await b.subscribe('e', got.onMessage);
  await redis.client().publish(`${keyPrefix}bus:e`, 'not json');
  await b.publish('e', { fine: true });
  expect(await got.done).toEqual([{ fine: true }]);
  expect(onError).toHaveBeenCalledTimes(3);
  expect(onError.mock.calls.map(([what]) => what)).toEqual(Array(3).fill(`a message on ${JSON.stringify(`${keyPrefix}bus:e`)} could not be delivered`));
  expect(onError.mock.calls.map(([, error]) => (error as Error).message)).toContain('subscriber failed');
});

it('close() quits the subscriber connection it made, not the client nor a given subscriber', async () => {
  const client = redis.client();
  const own = new RedisBroadcaster(client);
  expect(own.subscriberConnection.status).toBe('wait'); // connects on the first subscribe
  await own.subscribe('c', () => {});
  expect(own.subscriberConnection.status).toBe('ready');
  await own.close();
  expect(own.subscriberConnection.status).toBe('end');
  expect(client.status).toBe('ready');
  await expect(own.subscribe('c', () => {})).rejects.toThrow(/closed/);

  const subscriber = redis.client();
  const given = new RedisBroadcaster(client, { subscriber });
  await given.subscribe('c', () => {});
  await given.close();
  expect(subscriber.status).toBe('ready');

  const unused = new RedisBroadcaster(client);
  await unused.close();
  expect(unused.subscriberConnection.status).toBe('end');
});

it('refuses invalid options', () => {
  const client = redis.client();
  expect(() => new RedisBroadcaster(client, { subscriber: client })).toThrow(DefinitionError);
  expect(() => new RedisBroadcaster(client, { subscriber: {} as never })).toThrow(/subscriber: the first argument must be an ioredis client/);
  expect(() => new RedisBroadcaster(client, { onError: 'log' as never })).toThrow(/onError must be a function/);
});
