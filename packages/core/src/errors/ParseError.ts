import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/** The message is not valid JSON (JSON-RPC -32700). */
export class ParseError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.ParseError, message, data);
  }
}

brand(ParseError, 'ParseError');
