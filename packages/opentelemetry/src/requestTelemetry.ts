import { context as otelContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Context as OtelContext, Histogram, Link, Meter, Span, TextMapGetter, TextMapPropagator, Tracer, UpDownCounter } from '@opentelemetry/api';
import type { Middleware, ObservedRequest, RequestOutcome, ServerObserver } from '@typemcp/core';
import {
  ACTIVE_REQUESTS,
  CLIENT_ADDRESS,
  DURATION_BUCKETS,
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_NAME,
  JSONRPC_REQUEST_ID,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  MCP_RESOURCE_URI,
  MCP_RESPONSE_RESULT_TYPE,
  MCP_SESSION_ID,
  NETWORK_TRANSPORT,
  NOT_SERVER_ERRORS,
  OPERATION_DURATION,
  OTHER,
  RESOURCE_METHODS,
  RPC_RESPONSE_STATUS_CODE,
  TOOL_ERROR,
} from './constants';

export interface TelemetrySettings {
  tracer: Tracer;
  /** Called at the first request, so that a global meter provider registered after `server.plugin` is used. */
  meter: () => Meter;
  propagator: Pick<TextMapPropagator, 'extract'>;
  /** Reports a failure of the telemetry itself, which must not fail the request. */
  reportError: (what: string, error: unknown) => void;
}

interface Instruments {
  duration: Histogram;
  active: UpDownCounter;
}

/** Reads `params._meta` as a propagation carrier: own string entries only. */
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  },
};

/** Attribute sets of the in-progress gauge kept at most: the methods and versions a server serves are few. */
const MAX_ACTIVE_KEYS = 256;

/**
 * The plugin's two parts: an observer that opens one SERVER span and one duration measurement
 * per request, per the MCP semantic conventions, and closes them with the outcome the
 * request's era answered; and a middleware that makes the span the active one while the rest of
 * the request (other middleware, author code) runs.
 */
export function requestTelemetry({ tracer, meter, propagator, reportError }: TelemetrySettings): { observer: ServerObserver; middleware: Middleware } {
  let instruments: Instruments | undefined;
  // The context each request runs in, by its params object (the one middleware sees too).
  const running = new WeakMap<object, OtelContext>();
  const activeAttributes = new Map<string, Attributes>();
  const activeAttributesOf = (method: string, protocolVersion: string | undefined): Attributes => {
    const key = `${method}\u0000${protocolVersion ?? ''}`;
    let attributes = activeAttributes.get(key);
    if (attributes === undefined) {
      attributes = protocolVersion === undefined ? { [MCP_METHOD_NAME]: method } : { [MCP_METHOD_NAME]: method, [MCP_PROTOCOL_VERSION]: protocolVersion };
      if (activeAttributes.size < MAX_ACTIVE_KEYS) activeAttributes.set(key, attributes);
    }
    return attributes;
  };

  const observer: ServerObserver = {
    request(request) {
      const started = performance.now();
      const { active, duration } = (instruments ??= createInstruments(meter()));
      // A method the server does not have was named by the client alone: it stays out of names and metrics.
      const method = request.known ? request.method : OTHER;
      const protocolVersion = request.protocolVersion;

      // Low-cardinality attributes: the span's and the metric's.
      const attributes: Attributes = { [MCP_METHOD_NAME]: method };
      if (protocolVersion !== undefined) attributes[MCP_PROTOCOL_VERSION] = protocolVersion;
      const targetKey = method === 'tools/call' ? GEN_AI_TOOL_NAME : method === 'prompts/get' ? GEN_AI_PROMPT_NAME : undefined;
      const target = targetKey !== undefined && typeof request.params.name === 'string' ? request.params.name : undefined;
      if (target !== undefined) attributes[targetKey!] = target;
      if (method === 'tools/call') attributes[GEN_AI_OPERATION_NAME] = EXECUTE_TOOL;
      if (request.networkTransport !== undefined) attributes[NETWORK_TRANSPORT] = request.networkTransport;

      // The client's span (from `_meta`) is the parent; the ambient one (an HTTP server span) is linked.
      const ambient = otelContext.active();
      const parent = extractParent(request.params._meta, ambient);
      const remote = trace.getSpanContext(parent);
      const around = trace.getSpanContext(ambient);
      const links: Link[] | undefined = remote !== undefined && around !== undefined && remote.spanId !== around.spanId ? [{ context: around }] : undefined;
      const span = tracer.startSpan(target === undefined ? method : `${method} ${target}`, { kind: SpanKind.SERVER, attributes: spanAttributes(request, attributes), links }, parent);
      running.set(request.params, trace.setSpan(parent, span));
      const activeKey = activeAttributesOf(method, protocolVersion);
      active.add(1, activeKey);
      return (outcome) => {
        try {
          ended(span, attributes, method, targetKey, outcome);
        } finally {
          span.end();
          active.add(-1, activeKey);
          duration.record((performance.now() - started) / 1000, attributes);
        }
      };
    },
  };

  /** The context `_meta` carries (a remote parent, baggage) over the ambient one. */
  function extractParent(meta: unknown, ambient: OtelContext): OtelContext {
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return ambient;
    try {
      return propagator.extract(ambient, meta as Record<string, unknown>, metaGetter);
    } catch (error) {
      // A custom propagator that chokes on what a client sent: the request goes on without a parent from it.
      reportError('the propagator failed to read params._meta', error);
      return ambient;
    }
  }

  const middleware: Middleware = function openTelemetry({ params }, next) {
    const context = running.get(params);
    return context === undefined ? next() : otelContext.with(context, next);
  };

  return { observer, middleware };
}

/** The span's own attributes: unique per request or session, or naming the client. */
function spanAttributes(request: ObservedRequest, attributes: Attributes): Attributes {
  const own: Attributes = { ...attributes, [JSONRPC_REQUEST_ID]: String(request.id) };
  if (request.sessionId !== undefined) own[MCP_SESSION_ID] = request.sessionId;
  if (RESOURCE_METHODS.has(request.method) && typeof request.params.uri === 'string') own[MCP_RESOURCE_URI] = request.params.uri;
  if (request.clientAddress !== undefined) own[CLIENT_ADDRESS] = request.clientAddress;
  return own;
}

function createInstruments(meter: Meter): Instruments {
  return {
    duration: meter.createHistogram(OPERATION_DURATION, {
      description: 'MCP request duration as observed on the server, from the time it was received until the result is sent.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    active: meter.createUpDownCounter(ACTIVE_REQUESTS, {
      description: 'Number of MCP requests the server is handling.',
      unit: '{request}',
    }),
  };
}

/**
 * Records how the request ended, as its era answered it. A tool result with `isError` fails
 * the call; a JSON-RPC error is recorded by its code, and is an error of the server unless the
 * conventions say the client caused it (parse, invalid request, unknown method or params,
 * unknown resource); a result's type (2026-07-28) is recorded as it was sent.
 */
function ended(span: Span, attributes: Attributes, method: string, targetKey: string | undefined, outcome: RequestOutcome): void {
  switch (outcome.type) {
    case 'result': {
      const resultType = outcome.result.resultType;
      if (typeof resultType === 'string') record(span, attributes, MCP_RESPONSE_RESULT_TYPE, resultType);
      return;
    }
    case 'tool_error': {
      // The result's text is for the model and may quote anything: it stays out of the span.
      record(span, attributes, ERROR_TYPE, TOOL_ERROR);
      const resultType = outcome.result.resultType;
      if (typeof resultType === 'string') record(span, attributes, MCP_RESPONSE_RESULT_TYPE, resultType);
      span.setStatus({ code: SpanStatusCode.ERROR });
      return;
    }
    case 'cancelled':
      return;
    case 'error': {
      const { code, message } = outcome.error;
      record(span, attributes, ERROR_TYPE, String(code));
      record(span, attributes, RPC_RESPONSE_STATUS_CODE, String(code));
      if (targetKey !== undefined && attributes[targetKey] !== undefined && (code === -32602 || code === -32601)) {
        // A name the server refused (an unknown tool or prompt) was chosen by the client: it stays
        // on the span, but not in the span's name or the metric, whose cardinality it would grow.
        delete attributes[targetKey];
        span.updateName(method);
      }
      if (NOT_SERVER_ERRORS.has(code)) return;
      if (outcome.thrown !== undefined) span.recordException(outcome.thrown instanceof Error ? outcome.thrown : String(outcome.thrown));
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.thrown instanceof Error ? outcome.thrown.message : message });
    }
  }
}

/** Sets an attribute on the span and on the metric's attributes. */
function record(span: Span, attributes: Attributes, key: string, value: string): void {
  attributes[key] = value;
  span.setAttribute(key, value);
}
