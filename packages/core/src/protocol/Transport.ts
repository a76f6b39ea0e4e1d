import type { OutgoingMessage, RequestId } from './messages';
import type { Principal } from './Principal';

export interface TransportSendOptions {
  /** The incoming request this message belongs to, so stream-based transports can route it. */
  relatedRequestId?: RequestId;
}

/**
 * What a transport knows of the sender of one message, handed over with it. Over HTTP it is
 * the request's own (its credentials may change from one POST to the next); transports that
 * carry no credentials (stdio, in-memory) leave it out and the connection's principal applies.
 */
export interface MessageInfo {
  /** Who sent the message, as the transport's authentication established it. */
  readonly principal?: Principal;
}

/**
 * A bidirectional message channel. The shape matches the official SDK's transports, so a
 * server connects to any of them and our in-memory pair works with the SDK client.
 *
 * `onmessage` receives either a decoded value or raw text still to be parsed: a transport
 * that reads bytes hands over the text so a parse error can be answered with -32700.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: OutgoingMessage, options?: TransportSendOptions): void | Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: unknown, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /**
   * Called when the peer will send nothing more but replies can still be written (stdin
   * ended). Without it, the transport closes at end of input.
   */
  oninputend?: () => void;
  /**
   * The request with this id ends without a response (the client cancelled it). A transport
   * that holds something open per request (an HTTP response) releases it here.
   */
  requestEnded?(id: RequestId): void;
  sessionId?: string;
}
