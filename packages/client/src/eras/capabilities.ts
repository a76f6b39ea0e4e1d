import type { ClientOptions, JsonObject } from '../types';

/**
 * The capabilities a client declares at `version`: those its handlers imply, as that revision
 * spells them (elicitation from 2025-06-18, with its modes from 2025-11-25; sampling with tools
 * from 2025-11-25), under what the options declare (extensions, experimental, anything more).
 */
export function capabilitiesFor(version: string, options: ClientOptions): JsonObject {
  const capabilities: JsonObject = {};
  if (options.onSample) capabilities.sampling = version >= '2025-11-25' ? { tools: {} } : {};
  if (options.onElicit && version >= '2025-06-18') capabilities.elicitation = version >= '2025-11-25' ? { form: {}, url: {} } : {};
  if (options.onRoots) capabilities.roots = { listChanged: true };
  for (const [key, value] of Object.entries(options.capabilities ?? {})) {
    const mine = capabilities[key];
    capabilities[key] = isObject(mine) && isObject(value) ? { ...mine, ...value } : value;
  }
  return capabilities;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
