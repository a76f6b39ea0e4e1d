/** MCP shapes the session and request context carry. Kept loose: clients add fields freely. */

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

/**
 * What the client said it can do (`initialize`, or `_meta` on 2026-07-28): sampling,
 * elicitation, roots. Features that need one check it first.
 */
export interface ClientCapabilities {
  sampling?: { context?: object; tools?: object; [key: string]: unknown };
  elicitation?: { form?: object; url?: object; [key: string]: unknown };
  roots?: { listChanged?: boolean; [key: string]: unknown };
  experimental?: Record<string, unknown>;
  [key: string]: unknown;
}

export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** A log message's severity, lowest first in `LOGGING_LEVELS` (RFC 5424's levels, as MCP uses them). */
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];
