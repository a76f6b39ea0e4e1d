import type { JsonRpcErrorObject, JsonRpcResponse, Principal, RequestId } from '../protocol';

/** A request as observers see it on arrival, before it is checked or routed. */
export interface ObservedRequest {
  readonly id: RequestId;
  readonly method: string;
  /** True when the server has the method (a route, or the handshake's `initialize`): an unknown one's name came from the client alone. */
  readonly known: boolean;
  /** The request's params as received: the same object middleware sees. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The version it speaks when known: its session's, or the one its `_meta` names. */
  readonly protocolVersion: string | undefined;
  /** Its handshake-era session, when it has one that outlives it. */
  readonly sessionId: string | undefined;
  readonly principal: Principal | undefined;
  /** How it arrived, as OpenTelemetry's `network.transport` says it: `pipe` (stdio), `tcp` (HTTP); undefined in memory. */
  readonly networkTransport: string | undefined;
  /** The client's address, over HTTP when the host knows it. */
  readonly clientAddress: string | undefined;
}

/**
 * How a request ended, as its era answered it: a result (`tool_error` for a `tools/call`
 * result with `isError`), a JSON-RPC error with the exact code and message sent (and what
 * was thrown, when a handler or middleware threw it), or no answer at all (cancelled).
 */
export type RequestOutcome =
  | { readonly type: 'result'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly type: 'tool_error'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly type: 'error'; readonly error: Readonly<JsonRpcErrorObject>; readonly thrown?: unknown }
  | { readonly type: 'cancelled' };

/** A conversation with one client: a stdio pipe, an in-memory pair, an HTTP session. */
export interface ObservedConnection {
  readonly sessionId: string | undefined;
  readonly networkTransport: string | undefined;
}

/** A stream of server-sent events (Streamable HTTP): a POST's answer, a session's GET stream, a legacy HTTP+SSE stream. */
export interface ObservedStream {
  readonly streamId: string;
  readonly kind: 'request' | 'session' | 'legacy';
  readonly sessionId: string | undefined;
}

/**
 * Hears the life of a server (`host.observe(observer)`): requests and how they ended,
 * connections and streams opening and closing. Every member is optional; an observer that
 * throws is reported and the server goes on.
 */
export interface ServerObserver {
  /** A request arrived; the function returned, if any, hears how it ended. */
  request?(request: ObservedRequest): ((outcome: RequestOutcome) => void) | void;
  connectionOpened?(connection: ObservedConnection): void;
  connectionClosed?(connection: ObservedConnection): void;
  streamOpened?(stream: ObservedStream): void;
  streamClosed?(stream: ObservedStream): void;
  /**
   * A resource was announced updated (`server.notifyResourceUpdated`, here or on another
   * replica of its cluster), whether any client subscribed or not.
   */
  resourceUpdated?(uri: string): void;
}

/** What was thrown behind error answers (an internal error's answer hides it), for observers. */
const hiddenCauses = new WeakMap<JsonRpcResponse, unknown>();

/** Remembers what an error answer was made from. */
export function rememberCause(response: JsonRpcResponse, thrown: unknown): JsonRpcResponse {
  hiddenCauses.set(response, thrown);
  return response;
}

/** The outcome of a request from its answer (undefined: it was not answered). */
export function outcomeOf(method: string, response: JsonRpcResponse | undefined): RequestOutcome {
  if (response === undefined) return { type: 'cancelled' };
  if ('error' in response) {
    const thrown = hiddenCauses.get(response);
    return thrown === undefined ? { type: 'error', error: response.error } : { type: 'error', error: response.error, thrown };
  }
  return method === 'tools/call' && response.result.isError === true ? { type: 'tool_error', result: response.result } : { type: 'result', result: response.result };
}

type Answer = JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined>;

/** The observers of one server: each event goes to all of them; with none, nothing is built. */
export class Observers {
  private readonly observers: ServerObserver[] = [];

  constructor(private readonly reportError: (what: string, error: unknown) => void) {}

  add(observer: ServerObserver): void {
    this.observers.push(observer);
  }

  get active(): boolean {
    return this.observers.length > 0;
  }

  /**
   * Tells every observer of a request; returns what hears its outcome (pass it to `watch`, which
   * reports it if it throws), or undefined when nobody listens. With one hearer, that hearer
   * itself: nothing is built per request for the common case.
   */
  request(event: ObservedRequest): ((outcome: RequestOutcome) => void) | undefined {
    let first: ((outcome: RequestOutcome) => void) | undefined;
    let more: Array<(outcome: RequestOutcome) => void> | undefined;
    for (const observer of this.observers) {
      if (observer.request === undefined) continue;
      let hear: ((outcome: RequestOutcome) => void) | void;
      try {
        hear = observer.request(event);
      } catch (error) {
        this.reportError('an observer failed', error);
        continue;
      }
      if (typeof hear !== 'function') continue;
      if (first === undefined) first = hear;
      else (more ??= []).push(hear);
    }
    if (more === undefined) return first;
    const hearers = [first!, ...more];
    return (outcome) => {
      for (const hear of hearers) this.tell(hear, outcome);
    };
  }

  /**
   * Passes an answer on and tells `hear` how the request ended: now for an answer already
   * made, when it settles for a promise, and through `deliver` for one delivered later.
   */
  watch(method: string, hear: ((outcome: RequestOutcome) => void) | undefined, run: (deliver: ((response: JsonRpcResponse | undefined) => void) | undefined) => Answer, deliver: ((response: JsonRpcResponse | undefined) => void) | undefined): Answer {
    if (!hear) return run(deliver);
    const heard = deliver && ((response: JsonRpcResponse | undefined) => {
      this.tell(hear, outcomeOf(method, response));
      deliver(response);
    });
    const answer = run(heard);
    if (answer instanceof Promise) {
      return answer.then((response) => {
        this.tell(hear, outcomeOf(method, response));
        return response;
      });
    }
    // With a deliver function, nothing now means the answer comes later, through it.
    if (answer !== undefined || !deliver) this.tell(hear, outcomeOf(method, answer));
    return answer;
  }

  /** Tells one hearer how a request ended; one that throws is reported, and the request goes on. */
  private tell(hear: (outcome: RequestOutcome) => void, outcome: RequestOutcome): void {
    try {
      hear(outcome);
    } catch (error) {
      this.reportError('an observer failed', error);
    }
  }

  connectionOpened(connection: ObservedConnection): void {
    for (const observer of this.observers) this.call(() => observer.connectionOpened?.(connection));
  }

  connectionClosed(connection: ObservedConnection): void {
    for (const observer of this.observers) this.call(() => observer.connectionClosed?.(connection));
  }

  streamOpened(stream: ObservedStream): void {
    for (const observer of this.observers) this.call(() => observer.streamOpened?.(stream));
  }

  streamClosed(stream: ObservedStream): void {
    for (const observer of this.observers) this.call(() => observer.streamClosed?.(stream));
  }

  resourceUpdated(uri: string): void {
    for (const observer of this.observers) this.call(() => observer.resourceUpdated?.(uri));
  }

  private call<T>(event: () => T): T | undefined {
    try {
      return event();
    } catch (error) {
      this.reportError('an observer failed', error);
      return undefined;
    }
  }
}
