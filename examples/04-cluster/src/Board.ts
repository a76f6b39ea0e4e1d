import type { Cluster, Redis } from 'ioredis';

/** One message on the board. */
export interface BoardMessage {
  id: number;
  channel: string;
  text: string;
  author?: string;
  /** The replica that stored it. */
  replica: string;
  at: string;
}

/** How many messages the board keeps (older ones fall off). */
export const BOARD_SIZE = 200;

/**
 * The board, kept in Redis so every replica reads and writes the same one. `notify` is how a
 * post announces itself (the server's `resources.notifyUpdated`, set once the server exists).
 */
export class Board {
  notify: (uri: string) => void = () => undefined;

  constructor(
    private readonly redis: Redis | Cluster,
    readonly replicaId: string,
    private readonly keyPrefix = 'board:',
  ) {}

  /** Stores a message and announces `board://latest` and its channel's resource as updated. */
  async post(channel: string, text: string, author?: string): Promise<BoardMessage> {
    const id = await this.redis.incr(`${this.keyPrefix}next-id`);
    const message: BoardMessage = { id, channel, text, replica: this.replicaId, at: new Date().toISOString() };
    if (author !== undefined) message.author = author;
    await this.redis
      .multi()
      .lpush(`${this.keyPrefix}messages`, JSON.stringify(message))
      .ltrim(`${this.keyPrefix}messages`, 0, BOARD_SIZE - 1)
      .exec();
    this.notify('board://latest');
    this.notify(`board://channels/${channel}`);
    return message;
  }

  /** The newest messages first, `limit` at most, of one channel or all. */
  async latest(limit: number, channel?: string): Promise<BoardMessage[]> {
    const raw = await this.redis.lrange(`${this.keyPrefix}messages`, 0, channel === undefined ? limit - 1 : BOARD_SIZE - 1);
    const messages = raw.map((text) => JSON.parse(text) as BoardMessage);
    return (channel === undefined ? messages : messages.filter((m) => m.channel === channel)).slice(0, limit);
  }

  async count(): Promise<number> {
    return this.redis.llen(`${this.keyPrefix}messages`);
  }

  /** Moves every message to the archive; returns how many moved. */
  async archive(): Promise<number> {
    const script = "local m = redis.call('LRANGE', KEYS[1], 0, -1) for i = #m, 1, -1 do redis.call('LPUSH', KEYS[2], m[i]) end redis.call('DEL', KEYS[1]) return #m";
    const moved = Number(await this.redis.eval(script, 2, `${this.keyPrefix}messages`, `${this.keyPrefix}archive`));
    this.notify('board://latest');
    return moved;
  }
}

/** Formats messages one per line, newest first. */
export function describe(messages: BoardMessage[]): string {
  if (messages.length === 0) return 'The board is empty.';
  return messages.map((m) => `#${m.id} [${m.channel}] ${m.author ?? 'anonymous'}: ${m.text}`).join('\n');
}
