import { ErrorCode, HeaderMismatchError } from '../../errors';
import { clip, quote } from '../../protocol';
import type { HttpRequestInfo } from '../../protocol';

/** Where a tool argument marked with `x-mcp-header` is mirrored: `Mcp-Param-<name>`. */
export interface HeaderParam {
  readonly name: string;
  /** The chain of `properties` keys from the arguments object to the value. */
  readonly path: readonly string[];
}

/**
 * Methods whose target is mirrored in `Mcp-Name`: the tool or prompt name, the resource uri
 * (SEP-2243), the task id of the tasks extension's methods (SEP-2663), so that a balancer
 * routes a task's requests without reading bodies.
 */
const NAMED: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * Streamable HTTP, 2026-07-28: the headers that mirror a request's body for intermediaries
 * must be there and match it, or the request is refused with -32020 (HTTP 400) before
 * anything runs. Header names are case-insensitive; values are compared after trimming the
 * whitespace around them. A header sent twice reads as its values joined by ", ", which
 * matches no body value.
 */
export function checkMirroredHeaders(
  req: HttpRequestInfo,
  message: { method: string; params: Record<string, unknown> },
  bodyVersion: string,
  headerParams: readonly HeaderParam[],
): void {
  const { method, params } = message;
  const versionHeader = single(req, 'mcp-protocol-version');
  if (versionHeader === undefined) throw new HeaderMismatchError('Header mismatch: the MCP-Protocol-Version header is required');
  if (versionHeader !== bodyVersion) {
    throw new HeaderMismatchError(`Header mismatch: MCP-Protocol-Version header value '${clip(versionHeader)}' does not match body value ${quote(bodyVersion)}`);
  }
  const methodHeader = single(req, 'mcp-method');
  if (methodHeader === undefined) throw new HeaderMismatchError('Header mismatch: the Mcp-Method header is required');
  if (methodHeader !== method) throw new HeaderMismatchError(`Header mismatch: Mcp-Method header value '${clip(methodHeader)}' does not match body value ${quote(method)}`);

  const nameField = NAMED[method];
  if (nameField !== undefined && typeof params[nameField] === 'string') {
    const nameHeader = single(req, 'mcp-name');
    if (nameHeader === undefined) throw new HeaderMismatchError(`Header mismatch: the Mcp-Name header is required for ${method}`);
    const name = decodeHeaderValue(nameHeader, 'Mcp-Name');
    if (name !== params[nameField]) {
      throw new HeaderMismatchError(`Header mismatch: Mcp-Name header value '${clip(nameHeader)}' does not match body value ${quote(params[nameField])}`);
    }
  }

  const args = params.arguments;
  for (const param of headerParams) {
    const headerName = `Mcp-Param-${param.name}`;
    const header = single(req, headerName.toLowerCase());
    const value = valueAt(args, param.path);
    if (value === undefined || value === null) {
      if (header !== undefined) throw new HeaderMismatchError(`Header mismatch: ${headerName} is set but the argument "${param.path.join('.')}" is absent`);
      continue;
    }
    if (header === undefined) throw new HeaderMismatchError(`Header mismatch: the ${headerName} header is required: the argument "${param.path.join('.')}" is set`);
    const decoded = decodeHeaderValue(header, headerName);
    if (!sameValue(decoded, value)) {
      throw new HeaderMismatchError(`Header mismatch: ${headerName} header value '${clip(header)}' does not match body value ${quote(value)}`);
    }
  }
}

/** The HTTP status a 2026-07-28 JSON-RPC error goes out with. */
export function statusOfError(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  const badRequest: number[] = [
    ErrorCode.ParseError,
    ErrorCode.InvalidRequest,
    ErrorCode.InvalidParams,
    ErrorCode.HeaderMismatch,
    ErrorCode.MissingRequiredClientCapability,
    ErrorCode.UnsupportedProtocolVersion,
  ];
  return badRequest.includes(code) ? 400 : 200;
}

/** One header's value, trimmed. */
function single(req: HttpRequestInfo, name: string): string | undefined {
  return req.headers.get(name)?.trim() ?? undefined;
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as the body would hold it: plain visible ASCII, or `=?base64?…?=` of UTF-8. */
function decodeHeaderValue(value: string, header: string): string {
  if (/[^\x20-\x7e\t]/.test(value)) throw new HeaderMismatchError(`Header mismatch: the ${header} header contains characters a header cannot carry`);
  const encoded = SENTINEL.exec(value);
  if (!encoded) return value;
  if (!BASE64.test(encoded[1])) throw new HeaderMismatchError(`Header mismatch: the ${header} header is not valid Base64 inside =?base64?…?=`);
  const decoded = Uint8Array.from(atob(encoded[1]), (char) => char.charCodeAt(0));
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(decoded);
  } catch {
    throw new HeaderMismatchError(`Header mismatch: the ${header} header is not Base64 of UTF-8 text`);
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Strings as they are, integers numerically (`42.0` is 42), booleans as `true`/`false`. */
function sameValue(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  // Decimal only: `0x2A` or `4.2e1` would match 42 for this check but not for a gateway reading the text.
  if (typeof value === 'number') return /^-?\d+(\.0+)?$/.test(header) && Number(header) === value;
  if (typeof value === 'boolean') return header === String(value);
  return false;
}
