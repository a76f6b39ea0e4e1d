import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The method's parameters are invalid (JSON-RPC -32602). */
export class InvalidParamsError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.InvalidParams, message, data);
  }
}

brand(InvalidParamsError, 'InvalidParamsError');
