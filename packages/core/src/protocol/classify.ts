import { InvalidRequestError } from '../errors';
import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
  RequestId,
} from './messages';

export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'result'; message: JsonRpcResultResponse }
  | { kind: 'error'; message: JsonRpcErrorResponse }
  /** Not a valid message; `id` is whatever id could be recovered, so the error can be addressed. */
  | { kind: 'invalid'; error: InvalidRequestError; id: RequestId | null };

/** A JSON object: not null, not an array. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Ids may be strings or integers; MCP forbids null. */
const isValidId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

function invalid(reason: string, id: unknown): ClassifiedMessage {
  return { kind: 'invalid', error: new InvalidRequestError(`Invalid JSON-RPC message: ${reason}`), id: isValidId(id) ? id : null };
}

/** Sorts one decoded JSON value into a request, notification, result or error response. */
export function classify(value: unknown): ClassifiedMessage {
  if (!isPlainObject(value)) return invalid('expected an object', null);
  const { id } = value;
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"', id);

  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') return invalid('"method" must be a non-empty string', id);
    if (value.params !== undefined && !isPlainObject(value.params)) return invalid('"params" must be an object', id);
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isValidId(id)) return invalid('"id" must be a string or an integer', null);
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }

  if ('result' in value) {
    if (!isValidId(id)) return invalid('a response "id" must be a string or an integer', null);
    if (!isPlainObject(value.result)) return invalid('"result" must be an object', id);
    return { kind: 'result', message: value as unknown as JsonRpcResultResponse };
  }

  if ('error' in value) {
    const error = value.error;
    if (!isPlainObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return invalid('"error" must have a numeric "code" and a string "message"', id);
    }
    if (id !== undefined && id !== null && !isValidId(id)) {
      return invalid('an error response "id" must be a string, an integer or absent', null);
    }
    return { kind: 'error', message: value as unknown as JsonRpcErrorResponse };
  }

  return invalid('expected "method", "result" or "error"', id);
}
