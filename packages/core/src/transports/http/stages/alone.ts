import { isModernBatch, isSessionless, sessionlessVersion } from '../../../eras';
import { McpError } from '../../../errors';
import type { JsonRpcRequest, JsonRpcResponse, RequestId } from '../../../protocol';
import type { Endpoint } from '../endpoint';
import { Exchange } from '../Exchange';
import { HttpError, jsonReply, NO_HEADERS } from '../HttpReply';
import type { HttpReply } from '../HttpReply';
import { checkMirroredHeaders, statusOfError } from '../mirroredHeaders';
import type { StageRun } from '../pipeline';
import type { Message, StagedRequest } from '../StagedRequest';

const NO_BUFFERING: Readonly<Record<string, string>> = Object.freeze({ 'x-accel-buffering': 'no' });
export const ACCEPTED: HttpReply = Object.freeze({ status: 202, headers: NO_HEADERS });

/**
 * `alone`: a POST that speaks 2026-07-28 (its `_meta` or its `MCP-Protocol-Version` names a
 * version without a handshake) is served alone: no session and no connection. Its mirrored
 * headers are checked, its answer and notifications go on this response, and the client going
 * away cancels it. Such a batch is refused: batches exist only in 2025-03-26.
 */
export function routeAlone(endpoint: Endpoint): StageRun {
  return (request) => {
    const versionHeader = request.headers.get('mcp-protocol-version') ?? undefined;
    if (isModernBatch(versionHeader, request.payload)) {
      throw new HttpError(400, 'Invalid Request: JSON-RPC batches exist only in protocol 2025-03-26; send each 2026-07-28 request on its own', -32600);
    }
    if (!isSessionless(versionHeader, request.payload)) return undefined;
    return postAlone(endpoint, request, request.payload as Message);
  };
}

function postAlone(endpoint: Endpoint, request: StagedRequest, message: Message): Promise<HttpReply> | HttpReply {
  const { host } = endpoint;
  const params = (message.params ?? {}) as Record<string, unknown>;
  const method = message.method as string;
  const id = message.id as RequestId | undefined;
  try {
    const bodyVersion = sessionlessVersion(params);
    const tool = method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    checkMirroredHeaders(request.incoming, { method, params }, bodyVersion, tool === undefined ? [] : host.headerParams(tool));
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return jsonReply(statusOfError(error.code), id === undefined ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() });
  }
  const incoming = request.incoming;
  // 2026-07-28 defines no client notifications over HTTP (closing a stream cancels).
  if (id === undefined || incoming.gone) return ACCEPTED;
  let cancel: ((reason: Error) => void) | undefined;
  const exchange = new Exchange([id], false, {
    headers: NO_BUFFERING,
    eventStore: undefined,
    streamPrefix: 'stateless.',
    answerStatus: statusOfError,
    keepAliveMs: endpoint.keepAliveMs,
    refusal: endpoint.refusal,
    onStream: host.observers.active ? (streamId, opened) => endpoint.streamEvent(streamId, 'request', undefined, opened) : undefined,
    onGone: () => cancel?.(new Error('Connection closed')),
  });
  incoming.onGone(() => {
    cancel?.(new Error('Connection closed'));
    exchange.abort();
  });
  const answer = host.serveAlone(message as unknown as JsonRpcRequest, request.messageInfo(), {
    relate: (notification) => exchange.relate(notification),
    started: (cancelRequest) => (cancel = cancelRequest),
  });
  const answered = (response: JsonRpcResponse | undefined) => (response === undefined ? exchange.drop(id) : exchange.answer(response));
  if (answer instanceof Promise) answer.then(answered, (error) => host.reportError('a request failed', error));
  else answered(answer);
  return endpoint.answer(exchange);
}
