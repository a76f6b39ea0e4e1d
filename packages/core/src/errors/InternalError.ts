import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The server failed while handling the request (JSON-RPC -32603). */
export class InternalError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.InternalError, message, data);
  }
}

brand(InternalError, 'InternalError');
