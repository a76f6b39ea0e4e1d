import { brand } from './brand';
/**
 * An error that travels as a JSON-RPC error response: `code`, `message` and optional `data`.
 * Throw one (or a subclass) from any handler to answer with that error.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

brand(McpError, 'McpError');
