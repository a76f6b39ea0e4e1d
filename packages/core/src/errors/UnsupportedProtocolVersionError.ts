import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/**
 * The request names a protocol version this server does not serve (-32022). `data` lists
 * the versions it does serve, so the client can retry with one of them.
 */
export class UnsupportedProtocolVersionError extends McpError {
  constructor(message = 'Unsupported protocol version', data?: { supported: readonly string[]; requested: unknown }) {
    super(ErrorCode.UnsupportedProtocolVersion, message, data);
  }
}

brand(UnsupportedProtocolVersionError, 'UnsupportedProtocolVersionError');
