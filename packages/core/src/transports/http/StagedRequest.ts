import type { HttpStageRequest, MessageInfo, Principal, RequestId } from '../../protocol';
import type { IncomingRequest } from './HttpRequest';

/** A JSON-RPC message of a POST body, before it is known to be one. */
export type Message = Record<string, unknown>;

/** The body limits of an endpoint. */
export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * One request on its way through the stages: the adapter's view of it, and what the stages
 * learned of it so far. The one object made per request; plugins' stages see it as an
 * `HttpStageRequest`.
 */
export class StagedRequest implements HttpStageRequest {
  /** Set by the `authenticate` stage. */
  principal: Principal | undefined = undefined;
  /** The parsed body, once the `body` stage read it. */
  payload: unknown = undefined;
  /** The messages of a handshake-era POST, once the `messages` stage checked them. */
  messages: readonly Message[] = NONE;
  /** The ids of the requests among them. */
  requestIds: readonly RequestId[] = NONE;
  /** Whether the POST is an `initialize`. */
  initialize = false;
  private body: Promise<string> | undefined = undefined;

  constructor(
    readonly incoming: IncomingRequest,
    readonly pathname: string,
    private readonly limits: BodyLimits,
    readonly endpointPath: string | undefined,
  ) {}

  get method(): string {
    return this.incoming.method;
  }

  get url(): string {
    return this.incoming.url;
  }

  get headers(): IncomingRequest['headers'] {
    return this.incoming.headers;
  }

  get clientAddress(): string | undefined {
    return this.incoming.clientAddress;
  }

  get parsedBody(): unknown {
    return this.incoming.parsedBody;
  }

  readBody(): Promise<string> {
    return (this.body ??= this.incoming.readBody(this.limits.maxBodyBytes, this.limits.bodyTimeoutMs));
  }

  /** What the transport hands over with each message of this request. */
  messageInfo(): MessageInfo {
    return { principal: this.principal, clientAddress: this.incoming.clientAddress, request: this.incoming };
  }
}
