/** One HTTP request the notes service received: what it needs to tell who sent it. */
export interface LoggedRequest {
  method: string;
  /** The `Mcp-Method` header, where the client sent one. */
  mcpMethod?: string;
  /** Whether `x-api-key` carried the service's key. */
  apiKey: 'valid' | 'wrong' | 'missing';
  /** The names of every header, lower case. */
  headers: string[];
}

const KEPT = 100;

/** The latest requests, newest last: the audit trail `audit://requests` serves. */
export class RequestLog {
  private readonly entries: LoggedRequest[] = [];

  add(entry: LoggedRequest): void {
    this.entries.push(entry);
    if (this.entries.length > KEPT) this.entries.shift();
  }

  recent(): readonly LoggedRequest[] {
    return this.entries;
  }
}
