/**
 * Wraps the transport of an official SDK client and records the conversation, so a test can
 * check everything the server said: `expectValidServerMessages(version, recorder.received)`.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface ReceivedMessage {
  message: JSONRPCMessage;
  /** For a response: the method of the request it answers (unknown ids stay undefined). */
  requestMethod?: string;
}

export interface RecordingTransportOptions {
  /** Applied to each outgoing message before it is recorded and sent (e.g. to pin a version). */
  rewriteOutgoing?: (message: JSONRPCMessage) => JSONRPCMessage;
}

export class RecordingTransport implements Transport {
  /** Messages from the other side, in arrival order. */
  readonly received: ReceivedMessage[] = [];
  /** Messages this side sent, as they went on the wire. */
  readonly sent: JSONRPCMessage[] = [];
  /** The version the client settled on (set when the client calls setProtocolVersion). */
  protocolVersion: string | undefined;

  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly pendingRequests = new Map<RequestId, string>();
  private readonly rewriteOutgoing: ((message: JSONRPCMessage) => JSONRPCMessage) | undefined;

  constructor(
    readonly inner: Transport,
    options: RecordingTransportOptions = {},
  ) {
    this.rewriteOutgoing = options.rewriteOutgoing;
    // Read this.on* at call time: the Protocol installs its handlers after construction.
    inner.onmessage = (message, extra) => {
      this.record(message);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  set sessionId(value: string | undefined) {
    this.inner.sessionId = value;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const outgoing = this.rewriteOutgoing ? this.rewriteOutgoing(message) : message;
    // Registered before sending: an in-memory peer may answer synchronously.
    if ('method' in outgoing && 'id' in outgoing) this.pendingRequests.set(outgoing.id, outgoing.method);
    this.sent.push(outgoing);
    return this.inner.send(outgoing, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }

  private record(message: JSONRPCMessage): void {
    if (!('method' in message) && 'id' in message && message.id !== undefined) {
      const requestMethod = this.pendingRequests.get(message.id);
      this.pendingRequests.delete(message.id);
      this.received.push(requestMethod === undefined ? { message } : { message, requestMethod });
      return;
    }
    this.received.push({ message });
  }
}
