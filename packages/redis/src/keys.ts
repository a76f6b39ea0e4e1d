import { DefinitionError } from '@typemcp/core';
import type { Redis } from 'ioredis';

/** The default prefix of every key and channel: several servers can share one Redis. */
export const DEFAULT_KEY_PREFIX = 'typemcp:';

/** Options every Redis store takes. */
export interface RedisStoreOptions {
  /** Put before every key and channel this store uses (default `typemcp:`). Give each server its own. */
  keyPrefix?: string;
}

/** The key prefix given, or the default; refuses anything but a string. */
export function keyPrefixOf(options: RedisStoreOptions | undefined, where: string): string {
  const prefix = options?.keyPrefix ?? DEFAULT_KEY_PREFIX;
  if (typeof prefix !== 'string') throw invalidOption(`${where}: keyPrefix must be a string such as "myserver:", not ${JSON.stringify(prefix)}`);
  return prefix;
}

/** Refuses what is not an ioredis client (a common slip: passing the options or the URL). */
export function checkClient(client: unknown, where: string): asserts client is Redis {
  if (typeof client !== 'object' || client === null || typeof (client as Redis).evalsha !== 'function' || typeof (client as Redis).duplicate !== 'function') {
    throw invalidOption(`${where}: the first argument must be an ioredis client (new Redis(url) from 'ioredis')`);
  }
}

/** A DefinitionError('INVALID_OPTION'): the message names the option and its fix. */
export function invalidOption(message: string): DefinitionError {
  return new DefinitionError('INVALID_OPTION', message);
}

/** The value, the fallback when undefined, or an error naming the option. */
export function positiveInteger(value: unknown, fallback: number, where: string, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw invalidOption(`${where}: ${name} must be a positive integer, not ${JSON.stringify(value)}`);
  return value;
}
