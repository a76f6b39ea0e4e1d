import type { OutgoingMessage, RequestId } from './messages';
import type { Principal } from './Principal';

/** What the server tells a transport about a message it sends (`Transport.send`). */
export interface TransportSendOptions {
  /** The incoming request this message belongs to, so stream-based transports can route it. */
  relatedRequestId?: RequestId;
  /**
   * Names an event every replica of a cluster sends (a change or a log heard through the
   * cluster), so a stream the replicas share records it once.
   */
  eventKey?: string;
}

/**
 * What the server reads of an HTTP request, on every runtime: the part of the Fetch API's
 * `Request` it uses. A `Request` is one; over Node the server gives a view over the
 * `IncomingMessage` (its headers read from it, no `Request` built).
 */
export interface HttpRequestInfo {
  readonly method: string;
  /** The request URL: absolute for a `Request`, its path and query over Node. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/**
 * What a transport knows of the sender of one message, handed over with it. Over HTTP it is
 * the request's own (its credentials may change from one POST to the next); transports that
 * carry no credentials (stdio, in-memory) leave it out and the connection's principal applies.
 */
export interface MessageInfo {
  /** Who sent the message, as the transport's authentication established it. */
  readonly principal?: Principal;
  /** The client's network address, when the transport knows it (HTTP). */
  readonly clientAddress?: string;
  /** The HTTP request that carried the message: what handlers may read of it (`ctx.httpRequest`). */
  readonly request?: HttpRequestInfo;
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
  /** How the transport carries messages, as OpenTelemetry's `network.transport` names it (`pipe`, `tcp`); for observers. */
  readonly network?: string;
}
