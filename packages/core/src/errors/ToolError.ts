import { brand } from './brand';
/**
 * Thrown by a tool to report a failure the model should see: the call answers
 * `isError: true` with this message as text, not a JSON-RPC error.
 */
export class ToolError extends Error {
  readonly code = 'TOOL_ERROR';

  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

brand(ToolError, 'ToolError');
