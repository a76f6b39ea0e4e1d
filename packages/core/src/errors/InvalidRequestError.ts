import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The message is not a valid JSON-RPC request (JSON-RPC -32600). */
export class InvalidRequestError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.InvalidRequest, message, data);
  }
}

brand(InvalidRequestError, 'InvalidRequestError');
