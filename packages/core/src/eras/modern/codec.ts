import { ClientCapabilityError, ErrorCode, InvalidClientResponseError, InvalidParamsError, McpError, MethodNotFoundError } from '../../errors';
import { MissingClientCapabilityError, UnsupportedProtocolVersionError } from '../../errors';
import { clip, echo, isModernVersion, isPlainObject, PROTOCOL_VERSION_META, quote, revisionOf, SUPPORTED_VERSIONS } from '../../protocol';
import type { Revision } from '../../protocol';
import { LOGGING_LEVELS } from '../../session';
import type { ClientCapabilities, Implementation, LoggingLevel, RequestScope } from '../../session';
import type { EraCodec, Prepared } from '../EraCodec';
import { InputRound } from './InputRound';
import { paramsDigest } from './requestState';
import type { RequestBinding } from './requestState';
import { modernTasks } from './tasks';

const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** A 2026-07-28 request's own scope, read from its `_meta`. */
class MetaScope implements RequestScope {
  readonly session = undefined;
  readonly revision: Revision;

  constructor(private readonly meta: Record<string, unknown>) {
    this.revision = revisionOf(meta[PROTOCOL_VERSION_META] as string);
  }

  get protocolVersion(): string {
    return this.revision.version;
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

/** What a request's `requestState` is bound to; the digest costs a hash of the params, paid only by a request that carries or issues a state. */
class Binding implements RequestBinding {
  private hashed: Promise<string> | undefined;

  constructor(
    readonly method: string,
    private readonly params: Record<string, unknown>,
    readonly principal: string | undefined,
  ) {}

  get digest(): Promise<string> {
    return (this.hashed ??= paramsDigest(this.params));
  }
}

/** A 2026-07-28 request's scope and channel; what may end it early is made only when the handler does not answer at once. */
class ModernRequest implements Prepared {
  constructor(
    readonly scope: MetaScope,
    readonly channel: InputRound,
  ) {}

  get interrupt(): Promise<object> {
    return this.channel.needed;
  }

  get ready(): Promise<void> | undefined {
    return this.channel.ready;
  }
}

/**
 * 2026-07-28: no handshake and no session. Every request carries its version, client
 * capabilities, client info and log level in `_meta`; questions to the client become
 * `input_required` results (InputRound); results carry `resultType`, the server's identity
 * and, where cacheable, caching hints; a missing client capability, a malformed input
 * response and an unknown resource are protocol errors of their own.
 */
export const modernCodec: EraCodec = {
  name: 'modern',
  refusal(_source, method, params, route) {
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
    if (route?.eras !== undefined && !route.eras.includes('modern')) return new MethodNotFoundError(`Method not found: ${clip(method)} (not part of protocol ${version})`);
    return undefined;
  },
  versionOf(_source, params) {
    const version = (params._meta as Record<string, unknown>)[PROTOCOL_VERSION_META];
    return typeof version === 'string' ? version : undefined;
  },
  prepare(source, method, params, _id, principal) {
    const binding = new Binding(method, params, principal?.subject);
    return new ModernRequest(new MetaScope(params._meta as Record<string, unknown>), new InputRound(source.channel, source.server.modern.requestStateKey, binding, params));
  },
  complete(source, method, result, hints) {
    const own = result._meta as Record<string, unknown> | undefined;
    const serverInfo = method === 'server/discover' ? source.server.modern.discoverInfo : source.server.modern.serverInfo;
    // Literal keys and a plain copy loop: spreading with a computed key costs about 1 µs per
    // result here (the objects end up slow to build and to stringify); this costs a tenth.
    const meta = own === undefined ? { 'io.modelcontextprotocol/serverInfo': serverInfo } : { ...own, [SERVER_INFO_META]: serverInfo };
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
      const hint = source.server.modern.cacheHint(method);
      if (hint) {
        completed.ttlMs ??= hints?.ttlMs ?? hint.ttlMs;
        completed.cacheScope ??= hints?.cacheScope ?? hint.cacheScope;
      }
    }
    return completed;
  },
  error(error) {
    if (error instanceof ClientCapabilityError) return new MissingClientCapabilityError(error.message, capabilityObject(error.capability));
    // The client's answer in inputResponses is malformed: its request's params are invalid.
    if (error instanceof InvalidClientResponseError) return new InvalidParamsError(`Invalid input response: ${error.message}`);
    // -32002 is reserved in 2026-07-28; an unknown resource is invalid params there.
    if (error instanceof McpError && error.code === ErrorCode.ResourceNotFound) return new InvalidParamsError(error.message, error.data);
    return error instanceof McpError ? error : undefined;
  },
  describe(server, revision) {
    const capabilities = server.capabilities(revision);
    const extensions = server.extensions(revision);
    const result: Record<string, unknown> = {
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: Object.keys(extensions).length > 0 ? { ...capabilities, extensions } : capabilities,
    };
    if (server.instructions !== undefined) result.instructions = server.instructions;
    return result;
  },
  tasks: modernTasks,
};

/** `sampling.tools` → `{ sampling: { tools: {} } }`: a ClientCapabilities object naming what is missing. */
function capabilityObject(path: string): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<Record<string, unknown>>((inner, name) => ({ [name]: inner }), {});
}
