import { brand } from './brand';
/**
 * A request to the client (sampling, elicitation, roots) was attempted after the client
 * request it belongs to had been answered; the protocol only allows them while one is open.
 */
export class RequestEndedError extends Error {
  readonly code = 'REQUEST_ENDED';

  constructor(message: string) {
    super(message);
    this.name = 'RequestEndedError';
  }
}

brand(RequestEndedError, 'RequestEndedError');
