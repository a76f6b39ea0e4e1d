export { openTelemetry } from './openTelemetry';
export type { OpenTelemetryOptions } from './options';
