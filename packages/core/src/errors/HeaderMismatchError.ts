import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/**
 * Streamable HTTP, 2026-07-28: a header that mirrors the body (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) is missing, malformed or differs from it (-32020).
 */
export class HeaderMismatchError extends McpError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.HeaderMismatch, message, data);
  }
}

brand(HeaderMismatchError, 'HeaderMismatchError');
