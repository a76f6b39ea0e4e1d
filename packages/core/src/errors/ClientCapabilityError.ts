import { brand } from './brand';
/**
 * The client did not declare the capability a call needs (e.g. `sampling.tools` for
 * sampling with tools), or the negotiated protocol version lacks the feature. Nothing was
 * sent to the client.
 */
export class ClientCapabilityError extends Error {
  readonly code = 'CLIENT_CAPABILITY_MISSING';

  constructor(
    readonly capability: string,
    message: string,
  ) {
    super(message);
    this.name = 'ClientCapabilityError';
  }
}

brand(ClientCapabilityError, 'ClientCapabilityError');
