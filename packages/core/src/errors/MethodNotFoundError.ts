import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The method does not exist or is not available (JSON-RPC -32601). */
export class MethodNotFoundError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.MethodNotFound, message, data);
  }
}

brand(MethodNotFoundError, 'MethodNotFoundError');
