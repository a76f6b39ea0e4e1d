/** MCP shapes the session and request context carry. Kept loose: clients add fields freely. */

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export interface ClientCapabilities {
  sampling?: { context?: object; tools?: object; [key: string]: unknown };
  elicitation?: { form?: object; url?: object; [key: string]: unknown };
  roots?: { listChanged?: boolean; [key: string]: unknown };
  experimental?: Record<string, unknown>;
  [key: string]: unknown;
}

export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];
