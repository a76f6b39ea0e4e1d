import { ClientCapabilityError, ErrorCode, InvalidClientResponseError, InvalidParamsError, InvalidRequestError, McpError, MethodNotFoundError } from '../errors';
import { MissingClientCapabilityError, UnsupportedProtocolVersionError } from '../errors';
import { clip, echo, isModernVersion, isPlainObject, PROTOCOL_VERSION_META, quote, requestedEra, SUPPORTED_VERSIONS } from '../protocol';
import type { EraName, RequestId } from '../protocol';
import { InputRound } from './InputRound';
import { paramsDigest } from './requestState';
import type { RequestStateKey } from './requestState';
import type { RequestChannel } from './RequestChannel';
import type { RequestScope } from './RequestScope';
import type { Session } from './Session';
import { LOGGING_LEVELS } from './types';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types';

/** `ttlMs` and `cacheScope` of a cacheable 2026-07-28 result. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** What the server sets for requests without a handshake. */
export interface ModernSettings {
  readonly serverInfo: Implementation;
  readonly requestStateKey: RequestStateKey;
  /** The caching hint of a method's results, for the methods whose results are cacheable. */
  cacheHint(method: string): CacheHint | undefined;
}

/** What a connection offers the era of a request to build its scope and channel from. */
export interface EraSource {
  /** The connection's handshake-era session. */
  readonly session: Session;
  /** The connection's channel to its client. */
  readonly channel: RequestChannel;
  readonly modern: ModernSettings;
  /** Who sent the request, when the transport knows it. */
  readonly principal: string | undefined;
}

/** The scope and client channel one request is served with. */
export interface Prepared {
  scope: RequestScope;
  channel: RequestChannel;
}

/**
 * How one protocol era carries a request's context (DESIGN.md §1). For every request the
 * runtime asks the request's era whether it may be served, for its scope (protocol version,
 * client info and capabilities, log level) and the channel on which progress, logs,
 * sampling, elicitation and roots reach the client, and how its results and errors are sent.
 * Handlers see none of it: only the Context built from them.
 */
export interface Era {
  readonly name: EraName;
  /** The error that answers `method` before any handler runs, or undefined when it may be served. */
  refusal(source: EraSource, method: string, params: Record<string, unknown>): McpError | undefined;
  /** The request's scope and channel; throws an McpError (sent as the answer) for bad round params. */
  prepare(source: EraSource, method: string, params: Record<string, unknown>, id: RequestId): Prepared;
  /** A handler's result as this era sends it. */
  complete(source: EraSource, method: string, result: Record<string, unknown>): Record<string, unknown>;
  /** An error as this era sends it. */
  error(error: unknown): unknown;
}

/** Methods of the handshake era that 2026-07-28 removed. */
const HANDSHAKE_ONLY: ReadonlySet<string> = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);
/** Methods that exist only without a handshake. */
const MODERN_ONLY: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen']);

/**
 * The handshake era (2024-11-05 … 2025-11-25): `initialize` negotiates the version and the
 * client's capabilities once; the session is every request's scope (and holds the log level
 * set with `logging/setLevel`); server-to-client requests go out on the same connection.
 */
export const handshakeEra: Era = {
  name: 'handshake',
  refusal(source, method) {
    if (MODERN_ONLY.has(method)) {
      return new MethodNotFoundError(`Method not found: ${clip(method)} (it needs protocol 2026-07-28: name it in _meta["${PROTOCOL_VERSION_META}"])`);
    }
    if (source.session.state === 'awaiting-initialize' && method !== 'ping') {
      return new InvalidRequestError(`Server not initialized: send "initialize" before "${clip(method)}"`);
    }
    return undefined;
  },
  prepare: (source) => ({ scope: source.session, channel: source.channel }),
  complete: (_source, _method, result) => result,
  error: (error) => error,
};

const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

/** A 2026-07-28 request's own scope, read from its `_meta`. */
class MetaScope implements RequestScope {
  readonly session = undefined;

  constructor(private readonly meta: Record<string, unknown>) {}

  get protocolVersion(): string {
    return this.meta[PROTOCOL_VERSION_META] as string;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.meta[CLIENT_CAPABILITIES_META] as ClientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.meta[CLIENT_INFO_META] as Implementation | undefined;
  }

  get logLevel(): LoggingLevel | undefined {
    return this.meta[LOG_LEVEL_META] as LoggingLevel | undefined;
  }
}

/**
 * 2026-07-28: no handshake and no session. Every request carries its version, client
 * capabilities, client info and log level in `_meta`; questions to the client become
 * `input_required` results (InputRound); results carry `resultType`, the server's identity
 * and, where cacheable, caching hints.
 */
export const modernEra: Era = {
  name: 'modern',
  refusal(_source, method, params) {
    const meta = params._meta as Record<string, unknown>;
    const version = meta[PROTOCOL_VERSION_META];
    if (typeof version !== 'string') {
      return new InvalidParamsError(`Invalid _meta: "${PROTOCOL_VERSION_META}" must be a protocol version string`);
    }
    if (!isModernVersion(version)) {
      return new UnsupportedProtocolVersionError(`Unsupported protocol version: ${quote(version)} (supported: ${SUPPORTED_VERSIONS.join(', ')})`, {
        supported: SUPPORTED_VERSIONS,
        requested: echo(version),
      });
    }
    if (!isPlainObject(meta[CLIENT_CAPABILITIES_META])) {
      return new InvalidParamsError(`Invalid _meta: "${CLIENT_CAPABILITIES_META}" is required and must be an object`);
    }
    const info = meta[CLIENT_INFO_META];
    if (info !== undefined && !(isPlainObject(info) && typeof info.name === 'string')) {
      return new InvalidParamsError(`Invalid _meta: "${CLIENT_INFO_META}" must be an object with a string "name"`);
    }
    const level = meta[LOG_LEVEL_META];
    if (level !== undefined && !(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
      return new InvalidParamsError(`Invalid _meta: "${LOG_LEVEL_META}" must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
    if (HANDSHAKE_ONLY.has(method)) return new MethodNotFoundError(`Method not found: ${method} (not part of protocol ${version})`);
    return undefined;
  },
  prepare(source, method, params) {
    let digest: string | undefined;
    // The digest costs a hash of the params: only a request that carries or issues a state pays it.
    const binding = {
      method,
      get digest() {
        return (digest ??= paramsDigest(params));
      },
      principal: source.principal,
    };
    return {
      scope: new MetaScope(params._meta as Record<string, unknown>),
      channel: new InputRound(source.channel, source.modern.requestStateKey, binding, params),
    };
  },
  complete(source, method, result) {
    const own = result._meta as Record<string, unknown> | undefined;
    // Literal keys and a plain copy loop: spreading with a computed key costs about 1 µs per
    // result here (the objects end up slow to build and to stringify); this costs a tenth.
    const meta = own === undefined ? { 'io.modelcontextprotocol/serverInfo': source.modern.serverInfo } : { ...own, 'io.modelcontextprotocol/serverInfo': source.modern.serverInfo };
    const completed: Record<string, unknown> = {};
    for (const key in result) {
      if (!Object.prototype.hasOwnProperty.call(result, key)) continue;
      // A key Object.prototype has ("__proto__" from JSON.parse, "constructor", …) is defined,
      // as a spread does: assigning it would go through the prototype.
      if (key in Object.prototype) Object.defineProperty(completed, key, { value: result[key], enumerable: true, writable: true, configurable: true });
      else completed[key] = result[key];
    }
    completed.resultType = result.resultType ?? 'complete';
    completed._meta = meta;
    if (completed.resultType === 'complete') {
      const hint = source.modern.cacheHint(method);
      if (hint) {
        completed.ttlMs ??= hint.ttlMs;
        completed.cacheScope ??= hint.cacheScope;
      }
    }
    return completed;
  },
  error(error) {
    if (error instanceof ClientCapabilityError) {
      return new MissingClientCapabilityError(error.message, capabilityObject(error.capability));
    }
    // The client's answer in inputResponses is malformed: its request's params are invalid.
    if (error instanceof InvalidClientResponseError) return new InvalidParamsError(`Invalid input response: ${error.message}`);
    // -32002 is reserved in 2026-07-28; an unknown resource is invalid params there.
    if (error instanceof McpError && error.code === ErrorCode.ResourceNotFound) return new InvalidParamsError(error.message, error.data);
    return error;
  },
};

/** `sampling.tools` → `{ sampling: { tools: {} } }`: a ClientCapabilities object naming what is missing. */
function capabilityObject(path: string): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<Record<string, unknown>>((inner, name) => ({ [name]: inner }), {});
}


const eras: ReadonlyMap<EraName, Era> = new Map([
  [handshakeEra.name, handshakeEra],
  [modernEra.name, modernEra],
]);

/**
 * The era a request is served in, picked per request: the modern era when it names a
 * protocol version in `_meta["io.modelcontextprotocol/protocolVersion"]`, else the handshake
 * era of its connection. Costs one property read for a request without `_meta`.
 */
export function eraOf(params: Record<string, unknown>): Era {
  const requested = requestedEra(params);
  return (requested === undefined ? undefined : eras.get(requested)) ?? handshakeEra;
}

/** The protocol version a 2026-07-28 request names in its `_meta`, for transports that mirror it in headers. */
export function requestedVersion(params: Record<string, unknown>): unknown {
  const meta = params._meta;
  return isPlainObject(meta) ? meta[PROTOCOL_VERSION_META] : undefined;
}
