import { metrics, propagation, trace } from '@opentelemetry/api';
import type { Plugin } from '@typemcp/core';
import { SCOPE_NAME, SCOPE_VERSION } from './constants';
import { checkOptions } from './options';
import type { OpenTelemetryOptions } from './options';
import { requestTelemetry } from './requestTelemetry';

/**
 * OpenTelemetry for a TypeMCP server: a SERVER span and a duration measurement for every
 * request that goes through the server's middleware, per the MCP semantic conventions, with
 * the parent trace read from `params._meta`. Add it before other middleware so that its span
 * covers them: `server.plugin(openTelemetry)`, or `server.plugin(openTelemetry, options)`.
 */
export const openTelemetry: Plugin<OpenTelemetryOptions | undefined> = {
  name: SCOPE_NAME,
  version: SCOPE_VERSION,
  register(host, options) {
    checkOptions(options);
    const tracer = (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION);
    const meterProvider = options?.meterProvider;
    host.use(
      requestTelemetry({
        tracer,
        meter: () => (meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION),
        propagator: options?.propagator ?? propagation,
        reportError: (what, error) => host.reportError(what, error),
      }),
    );
  },
};
