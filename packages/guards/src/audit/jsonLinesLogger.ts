import type { AuditEntry, AuditLogger } from './auditLog';

/**
 * A logger for `auditLog` that writes one JSON line per entry: `{"level":"info",…entry,"msg":…}`
 * (`"warn"` for errors and refusals). By default to stderr through `console.error`, never
 * stdout, which a stdio server speaks MCP on; with only the console it runs anywhere,
 * Workers included. `write` sends each line elsewhere (a file, a log shipper).
 */
export function jsonLinesLogger(write: (line: string) => void = (line) => console.error(line)): AuditLogger {
  if (typeof write !== 'function') throw new TypeError('jsonLinesLogger(write): write must be a function that takes one line');
  return { info: (entry, message) => write(line('info', entry, message)), warn: (entry, message) => write(line('warn', entry, message)) };
}

/** What JSON leaves as it is but some line readers break lines at (Python's splitlines, editors): NEL, LINE and PARAGRAPH SEPARATOR. */
const BREAK = /[\u0085\u2028\u2029]/;
const BREAKS = /[\u0085\u2028\u2029]/g;

/** The entry's JSON with the level spliced in front and the message behind: the entry is written once, never copied first. */
function line(level: 'info' | 'warn', entry: AuditEntry, message: string | undefined): string {
  const text = spliced(level, entry, message);
  // Escaped as JSON may write them: the line stays one line for every reader, and parses the same.
  return BREAK.test(text) ? text.replace(BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

function spliced(level: 'info' | 'warn', entry: AuditEntry, message: string | undefined): string {
  const json = JSON.stringify(entry);
  // An entry always has fields of its own; anything else (or one naming a level or message itself) takes the plain way.
  if (json === undefined || json.length <= 2 || json.charCodeAt(0) !== 0x7b || 'level' in entry || 'msg' in entry) {
    return JSON.stringify(message === undefined ? { level, ...entry } : { level, ...entry, msg: message });
  }
  const fields = json.slice(1, -1);
  return message === undefined ? `{"level":"${level}",${fields}}` : `{"level":"${level}",${fields},"msg":${JSON.stringify(message)}}`;
}
