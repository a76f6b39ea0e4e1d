import { context as otelContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Histogram, Link, Meter, Span, TextMapGetter, TextMapPropagator, Tracer, UpDownCounter } from '@opentelemetry/api';
import { ErrorCode, RequestEndedError } from '@typemcp/core';
import type { Middleware } from '@typemcp/core';
import {
  ACTIVE_REQUESTS,
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
  OPERATION_DURATION,
  OTHER_ERROR,
  RESOURCE_METHODS,
  RPC_RESPONSE_STATUS_CODE,
  TOOL_ERROR,
} from './constants';
import { errorType, isModern, responseCode } from './outcome';

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

/**
 * The middleware of the plugin: one SERVER span and one duration measurement per request, per
 * the MCP semantic conventions. Its span is the active one while the rest of the request runs.
 */
export function requestTelemetry({ tracer, meter, propagator, reportError }: TelemetrySettings): Middleware {
  let instruments: Instruments | undefined;
  // Methods that reach middleware are routed ones and versions are supported ones: a bounded
  // set, so one attributes object per pair serves every request.
  const activeAttributes = new Map<string, Map<string, Attributes>>();
  const activeAttributesOf = (method: string, protocolVersion: string): Attributes => {
    let byVersion = activeAttributes.get(method);
    if (byVersion === undefined) activeAttributes.set(method, (byVersion = new Map()));
    let attributes = byVersion.get(protocolVersion);
    if (attributes === undefined) byVersion.set(protocolVersion, (attributes = { [MCP_METHOD_NAME]: method, [MCP_PROTOCOL_VERSION]: protocolVersion }));
    return attributes;
  };

  return async function openTelemetry({ method, params, context: ctx }, next) {
    const started = performance.now();
    const { active, duration } = (instruments ??= createInstruments(meter()));
    const protocolVersion = ctx.protocolVersion;
    const modern = isModern(protocolVersion);

    // Low-cardinality attributes: the span's and the metric's.
    const attributes: Attributes = { [MCP_METHOD_NAME]: method, [MCP_PROTOCOL_VERSION]: protocolVersion };
    const targetKey = method === 'tools/call' ? GEN_AI_TOOL_NAME : method === 'prompts/get' ? GEN_AI_PROMPT_NAME : undefined;
    const target = targetKey !== undefined && typeof params.name === 'string' ? params.name : undefined;
    if (target !== undefined) attributes[targetKey!] = target;
    if (method === 'tools/call') attributes[GEN_AI_OPERATION_NAME] = EXECUTE_TOOL;

    // The span's own: unique per request or session.
    const spanAttributes: Attributes = { ...attributes, [JSONRPC_REQUEST_ID]: String(ctx.requestId) };
    const session = ctx.session;
    // A stateless HTTP request's session lives for that request only: it identifies nothing.
    if (session !== undefined && !session.stateless) spanAttributes[MCP_SESSION_ID] = session.id;
    if (RESOURCE_METHODS.has(method) && typeof params.uri === 'string') spanAttributes[MCP_RESOURCE_URI] = params.uri;

    // The client's span (from `_meta`) is the parent; the ambient one (an HTTP server span) is linked.
    const ambient = otelContext.active();
    let parent = ambient;
    let links: Link[] | undefined;
    const meta = params._meta;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
      try {
        parent = propagator.extract(ambient, meta, metaGetter);
      } catch (error) {
        // A custom propagator that chokes on what a client sent: the request goes on without a parent from it.
        reportError('the propagator failed to read params._meta', error);
      }
      const remote = trace.getSpanContext(parent);
      const around = trace.getSpanContext(ambient);
      if (remote !== undefined && around !== undefined && remote.spanId !== around.spanId) links = [{ context: around }];
    }

    const span = tracer.startSpan(target === undefined ? method : `${method} ${target}`, { kind: SpanKind.SERVER, attributes: spanAttributes, links }, parent);
    const activeKey = activeAttributesOf(method, protocolVersion);
    active.add(1, activeKey);
    try {
      const result = await otelContext.with(trace.setSpan(parent, span), next);
      settled(span, attributes, method, modern, result);
      return result;
    } catch (error) {
      failed(span, attributes, method, modern, targetKey, error);
      throw error;
    } finally {
      span.end();
      active.add(-1, activeKey);
      duration.record((performance.now() - started) / 1000, attributes);
    }
  };
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

/** A result came back: a tool's `isError` fails the call; a 2026-07-28 result says its type. */
function settled(span: Span, attributes: Attributes, method: string, modern: boolean, result: unknown): void {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    // Core answers -32603 for a route or middleware that produced no result object.
    const code = String(ErrorCode.InternalError);
    record(span, attributes, ERROR_TYPE, OTHER_ERROR);
    record(span, attributes, RPC_RESPONSE_STATUS_CODE, code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: `"${method}" produced no result object` });
    return;
  }
  const fields = result as Record<string, unknown>;
  if (method === 'tools/call' && fields.isError === true) {
    // The result's text is for the model and may quote anything: it stays out of the span.
    record(span, attributes, ERROR_TYPE, TOOL_ERROR);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  if (modern) record(span, attributes, MCP_RESPONSE_RESULT_TYPE, fields.resultType === 'input_required' ? 'input_required' : 'complete');
}

/** The request threw: answered with a JSON-RPC error, or at 2026-07-28 possibly with `input_required`. */
function failed(span: Span, attributes: Attributes, method: string, modern: boolean, targetKey: string | undefined, error: unknown): void {
  if (modern && error instanceof RequestEndedError) {
    // The handler asked the client a question; the request was answered with input_required
    // and the handler ends this way. Not a failure: the client retries with the answers.
    record(span, attributes, MCP_RESPONSE_RESULT_TYPE, 'input_required');
    return;
  }
  const code = responseCode(error, modern);
  record(span, attributes, ERROR_TYPE, errorType(error, code));
  record(span, attributes, RPC_RESPONSE_STATUS_CODE, String(code));
  if (code === ErrorCode.InvalidParams && targetKey !== undefined && attributes[targetKey] !== undefined) {
    // A name the server refused (an unknown tool or prompt) was chosen by the client: it stays
    // on the span, but not in the span's name or the metric, whose cardinality it would grow.
    delete attributes[targetKey];
    span.updateName(method);
  }
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
}

/** Sets an attribute on the span and on the metric's attributes. */
function record(span: Span, attributes: Attributes, key: string, value: string): void {
  attributes[key] = value;
  span.setAttribute(key, value);
}
