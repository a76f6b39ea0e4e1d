import { LOGGING_LEVELS } from '../session';
import type { LoggingLevel } from '../session';

/** Sends MCP log messages (`notifications/message`), one method per RFC 5424 level. */
export interface Logger {
  debug(data: unknown, logger?: string): void;
  info(data: unknown, logger?: string): void;
  notice(data: unknown, logger?: string): void;
  warning(data: unknown, logger?: string): void;
  error(data: unknown, logger?: string): void;
  critical(data: unknown, logger?: string): void;
  alert(data: unknown, logger?: string): void;
  emergency(data: unknown, logger?: string): void;
}

export type LogSink = (level: LoggingLevel, data: unknown, logger: string | undefined) => void;

export function createLogger(sink: LogSink): Logger {
  const logger = {} as Record<LoggingLevel, (data: unknown, name?: string) => void>;
  for (const level of LOGGING_LEVELS) logger[level] = (data, name) => sink(level, data, name);
  return logger as Logger;
}

const SEVERITY = new Map<string, number>(LOGGING_LEVELS.map((level, index) => [level, index]));

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && SEVERITY.has(value);
}

/** True when a message at `level` passes a client's `threshold`. */
export function passes(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return SEVERITY.get(level)! >= SEVERITY.get(threshold)!;
}

/**
 * A token bucket per session: bursts up to `burst` messages, refilled at `perSecond`. Keeps
 * a chatty handler from flooding a client.
 */
export class RateLimiter {
  private tokens: number;
  private last = Date.now();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
