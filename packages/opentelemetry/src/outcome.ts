import { ClientCapabilityError, ErrorCode, InvalidClientResponseError, McpError, MODERN_VERSIONS } from '@typemcp/core';
import { OTHER_ERROR } from './constants';

/** True for a 2026-07-28 (session-less) request. */
export function isModern(protocolVersion: string): boolean {
  return (MODERN_VERSIONS as readonly string[]).includes(protocolVersion);
}

/**
 * The JSON-RPC error code the server answers a thrown `error` with. Mirrors how core maps
 * errors per era: an `McpError` keeps its code, anything else is -32603; at 2026-07-28 a
 * missing client capability is -32021 and an unknown resource or malformed input response -32602.
 */
export function responseCode(error: unknown, modern: boolean): number {
  if (modern) {
    if (error instanceof ClientCapabilityError) return ErrorCode.MissingRequiredClientCapability;
    if (error instanceof InvalidClientResponseError) return ErrorCode.InvalidParams;
    if (error instanceof McpError && error.code === ErrorCode.ResourceNotFound) return ErrorCode.InvalidParams;
  }
  return error instanceof McpError ? error.code : ErrorCode.InternalError;
}

/**
 * `error.type` of a thrown error: the JSON-RPC code when the error chose it (an `McpError`, or
 * one the era maps to a code of its own); otherwise the error's class, which says more than
 * the -32603 every unexpected error is answered with.
 */
export function errorType(error: unknown, code: number): string {
  if (error instanceof McpError || code !== ErrorCode.InternalError) return String(code);
  if (error instanceof Error) return error.constructor?.name || error.name || OTHER_ERROR;
  return OTHER_ERROR;
}
