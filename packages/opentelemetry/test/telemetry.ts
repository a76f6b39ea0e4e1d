/** An in-memory OpenTelemetry pipeline for the tests: spans, metrics and W3C propagation. */
import { context } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Collects on demand only. */
class TestMetricReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface MetricPoint<T> {
  attributes: Attributes;
  value: T;
}

export class Telemetry {
  readonly exporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
  readonly reader = new TestMetricReader();
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  readonly propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });

  /** The plugin's options: this pipeline, no globals. */
  get options() {
    return { tracerProvider: this.tracerProvider, meterProvider: this.meterProvider, propagator: this.propagator };
  }

  /** Every finished span, in the order they ended. */
  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }

  /** The one finished span of this name; fails when there is not exactly one. */
  span(name: string): ReadableSpan {
    const found = this.spans().filter((s) => s.name === name);
    if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length} among: ${this.spans().map((s) => s.name).join(', ')}`);
    return found[0];
  }

  /** The data points of one metric, by name, as collected now. */
  async metric<T = number>(name: string): Promise<{ unit: string; type: DataPointType; points: MetricPoint<T>[] }> {
    const { resourceMetrics, errors } = await this.reader.collect();
    if (errors.length > 0) throw errors[0];
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        if (metric.descriptor.name !== name) continue;
        const points = (metric.dataPoints as DataPoint<T>[]).map((p) => ({ attributes: p.attributes, value: p.value }));
        return { unit: metric.descriptor.unit, type: metric.dataPointType, points };
      }
    }
    throw new Error(`no metric "${name}" was collected`);
  }

  async shutdown(): Promise<void> {
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
  }
}

export type HistogramValue = Histogram;

/** Makes `context.with` carry the active span across awaits, as the Node SDK does. */
export function useAsyncContext(): void {
  let manager: AsyncLocalStorageContextManager;
  beforeAll(() => {
    manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
  });
  afterAll(() => {
    context.disable();
  });
}

/** A W3C traceparent: the client's trace and span. */
export const CLIENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const CLIENT_SPAN_ID = '00f067aa0ba902b7';
export const TRACEPARENT = `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01`;
