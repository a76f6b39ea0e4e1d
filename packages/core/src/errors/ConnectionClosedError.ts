import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The connection closed before the request was answered (MCP -32000). */
export class ConnectionClosedError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.ConnectionClosed, message, data);
  }
}

brand(ConnectionClosedError, 'ConnectionClosedError');
