import { brand } from './brand';
import { McpError } from './McpError';

/** The client's user declined a sampling request (the client answered with error code -1). */
export class UserRejectedError extends McpError {
  constructor(message = 'The user rejected the request', data?: unknown) {
    super(-1, message, data);
  }
}

brand(UserRejectedError, 'UserRejectedError');
