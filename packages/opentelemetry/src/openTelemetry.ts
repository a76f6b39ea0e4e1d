import { metrics, propagation, trace } from '@opentelemetry/api';
import type { Plugin } from '@typemcp/core';
import { SCOPE_NAME, SCOPE_VERSION } from './constants';
import { checkOptions } from './options';
import type { OpenTelemetryOptions } from './options';
import { requestTelemetry } from './requestTelemetry';

/**
 * OpenTelemetry for a TypeMCP server: a SERVER span and a duration measurement for every
 * request, per the MCP semantic conventions, with the parent trace read from `params._meta`
 * and the outcome as the request's era answered it. Add it before other middleware so that
 * its span is active around them: `server.plugin(openTelemetry)`, or with options.
 */
export const openTelemetry: Plugin<OpenTelemetryOptions | undefined> = {
  name: SCOPE_NAME,
  version: SCOPE_VERSION,
  register(host, options) {
    checkOptions(options);
    const tracer = (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION);
    const meterProvider = options?.meterProvider;
    const { observer, middleware } = requestTelemetry({
      tracer,
      meter: () => (meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION),
      propagator: options?.propagator ?? propagation,
      reportError: (what, error) => host.reportError(what, error),
    });
    // The observer sees every request and how its era answered it; the middleware runs the rest inside its span.
    host.observe(observer);
    host.use(middleware);
  },
};
