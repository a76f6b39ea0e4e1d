import { statelessVersion } from '../../../eras';
import type { HttpRequestInfo, RequestId } from '../../../protocol';
import { HttpError } from '../HttpReply';
import type { StageRun } from '../pipeline';
import type { Message, StagedRequest } from '../StagedRequest';

/** `method`: past GET and DELETE, only POST is served; the others get 405 with what is allowed. */
export function onlyPost(allow: string): StageRun {
  const allowed = { allow };
  return (request) => {
    if (request.method !== 'POST') throw new HttpError(405, `Method ${request.method} not allowed`, -32000, allowed);
    return undefined;
  };
}

/** `body`: the POST body within the limits, parsed once. */
export const readPayload: StageRun = async (request) => {
  request.payload = await readJson(request);
  return undefined;
};

/** The body of a request as JSON: what a framework parsed, else the text read within the limits (400 when it is not JSON). */
export async function readJson(request: StagedRequest): Promise<unknown> {
  if (request.parsedBody !== undefined) return request.parsedBody;
  const text = await request.readBody();
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Parse error: ${(error as Error).message}`, -32700);
  }
}

/** `headers`: a POST accepts both JSON and an event stream, and its body is JSON. */
export const checkContentHeaders: StageRun = (request) => {
  const accept = request.headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new HttpError(406, 'Not Acceptable: the client must accept both application/json and text/event-stream');
  }
  if (!(request.headers.get('content-type') ?? '').includes('application/json')) {
    throw new HttpError(415, 'Unsupported Media Type: the body must be application/json');
  }
  return undefined;
};

/**
 * `messages`: a handshake-era POST holds JSON-RPC messages whose requests can be answered on
 * it, and an `initialize` comes alone.
 */
export const checkMessages: StageRun = (request) => {
  const payload = request.payload;
  const messages = (Array.isArray(payload) ? payload : [payload]) as Message[];
  if (messages.length === 0 || !messages.every(isMessage)) {
    throw new HttpError(400, 'Invalid Request: expected JSON-RPC messages (each with "method", "result" or "error")', -32600);
  }
  // A request whose id cannot be correlated could never be answered on this POST.
  if (messages.some((m) => 'method' in m && 'id' in m && !isRequestId(m.id))) {
    throw new HttpError(400, 'Invalid Request: a request id must be a string or an integer', -32600);
  }
  if (messages.some((m) => m.method === 'initialize' && !('id' in m))) {
    throw new HttpError(400, 'Invalid Request: initialize must be a request (with an id)', -32600);
  }
  const initialize = messages.some((m) => m.method === 'initialize');
  if (initialize && messages.length > 1) throw new HttpError(400, 'Invalid Request: initialize must be sent alone', -32600);
  request.messages = messages;
  request.requestIds = messages.filter((m) => 'method' in m && 'id' in m).map((m) => m.id as RequestId);
  request.initialize = initialize;
  return undefined;
};

const isMessage = (m: Message) => typeof m === 'object' && m !== null && ('method' in m || 'result' in m || 'error' in m);

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || Number.isSafeInteger(id);
}

/** The handshake-era version a request without a session speaks (its header), checked: 400 for one not served. */
export function versionOf(request: HttpRequestInfo): string {
  const spoken = statelessVersion(request.headers.get('mcp-protocol-version') ?? undefined);
  if (spoken.refused !== undefined) throw new HttpError(400, `Bad Request: ${spoken.refused}`);
  return spoken.version;
}
