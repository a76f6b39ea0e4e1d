import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/**
 * Serving the request needs a client capability the request did not declare (-32021).
 * `data.requiredCapabilities` is a ClientCapabilities object naming what is missing, e.g.
 * `{ sampling: {} }`.
 */
export class MissingClientCapabilityError extends McpError {
  constructor(message = 'Missing required client capability', requiredCapabilities: Record<string, unknown> = {}) {
    super(ErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities });
  }
}

brand(MissingClientCapabilityError, 'MissingClientCapabilityError');
