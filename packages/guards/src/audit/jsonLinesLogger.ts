import type { AuditEntry, AuditLogger } from './auditLog';

/**
 * A logger for `auditLog` that writes one JSON line per entry: `{"level":"info",…entry,"msg":…}`
 * (`"warn"` for errors and refusals). By default to stderr through `console.error`, never
 * stdout, which a stdio server speaks MCP on; with only the console it runs anywhere,
 * Workers included. `write` sends each line elsewhere (a file, a log shipper).
 */
export function jsonLinesLogger(write: (line: string) => void = (line) => console.error(line)): AuditLogger {
  if (typeof write !== 'function') throw new TypeError('jsonLinesLogger(write): write must be a function that takes one line');
  const logAt =
    (level: 'info' | 'warn') =>
    (entry: AuditEntry, message?: string): void => {
      write(JSON.stringify(message === undefined ? { level, ...entry } : { level, ...entry, msg: message }));
    };
  return { info: logAt('info'), warn: logAt('warn') };
}
