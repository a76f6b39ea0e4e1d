import type { MeterProvider, TextMapPropagator, TracerProvider } from '@opentelemetry/api';
import { DefinitionError } from '@typemcp/core';

/** Options of `server.plugin(openTelemetry, options)`; every one defaults to the global API. */
export interface OpenTelemetryOptions {
  /** Where the request spans go. Default: the global tracer provider (a no-op until an SDK registers one). */
  tracerProvider?: TracerProvider;
  /** Where the request metrics go. Default: the global meter provider, read at the first request. */
  meterProvider?: MeterProvider;
  /** Reads the parent context from `params._meta`. Default: the global propagator (`propagation`). */
  propagator?: TextMapPropagator;
}

/** Each option: the @opentelemetry/api interface it is, and the method the plugin calls on it. */
const EXPECTED: Record<keyof OpenTelemetryOptions, [kind: string, method: string]> = {
  tracerProvider: ['TracerProvider', 'getTracer'],
  meterProvider: ['MeterProvider', 'getMeter'],
  propagator: ['TextMapPropagator', 'extract'],
};

/** Refuses options that would only fail at the first request, naming the fix. */
export function checkOptions(options: unknown): asserts options is OpenTelemetryOptions | undefined {
  const fail = (message: string): never => {
    throw new DefinitionError('INVALID_OPTION', `@typemcp/opentelemetry: ${message}`);
  };
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    fail(`options must be an object { tracerProvider?, meterProvider?, propagator? }, not ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  for (const [key, value] of Object.entries(options as Record<string, unknown>)) {
    if (!Object.hasOwn(EXPECTED, key)) fail(`unknown option "${key}" (known: ${Object.keys(EXPECTED).join(', ')})`);
    const [kind, method] = EXPECTED[key as keyof OpenTelemetryOptions];
    if (value !== undefined && typeof (value as Record<string, unknown> | null)?.[method] !== 'function') {
      fail(`${key} must be a ${kind} of @opentelemetry/api (an object with ${method}())`);
    }
  }
}
