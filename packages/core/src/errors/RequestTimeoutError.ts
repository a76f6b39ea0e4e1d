import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The peer did not answer in time (MCP -32001). */
export class RequestTimeoutError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.RequestTimeout, message, data);
  }
}

brand(RequestTimeoutError, 'RequestTimeoutError');
