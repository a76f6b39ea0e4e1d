/** Protocol revisions served, oldest first, and what each one's messages can carry. */

export const HANDSHAKE_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type HandshakeVersion = (typeof HANDSHAKE_VERSIONS)[number];
/**
 * The newest handshake revision: what the server answers an `initialize` that asks for one it
 * does not serve.
 */
export const LATEST_HANDSHAKE_VERSION: HandshakeVersion = '2025-11-25';

/** Revisions without a handshake: every request carries its version and client in `_meta`. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
/** The newest revision without a handshake. */
export const LATEST_MODERN_VERSION: ModernVersion = '2026-07-28';

/** Every version served, newest first: what `server/discover` and -32022 list. */
export const SUPPORTED_VERSIONS: readonly string[] = [...[...MODERN_VERSIONS].reverse(), ...[...HANDSHAKE_VERSIONS].reverse()];

/**
 * How a protocol version carries a request's context (docs/architecture.md, `eras/`):
 * `handshake`, an `initialize` handshake and a session; `modern`, the request's own `_meta`.
 */
export type EraName = 'handshake' | 'modern';

/** The version Streamable HTTP assumes for a request without an `MCP-Protocol-Version` header. */
export const VERSION_WITHOUT_HEADER: HandshakeVersion = '2025-03-26';

/** The `_meta` key a request may name its protocol version with. */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** True for a handshake-era version this server serves. */
export function isServedVersion(version: unknown): version is HandshakeVersion {
  return HANDSHAKE_VERSIONS.includes(version as HandshakeVersion);
}

/** True for a version without a handshake that this server serves. */
export function isModernVersion(version: unknown): version is ModernVersion {
  return MODERN_VERSIONS.includes(version as ModernVersion);
}

/**
 * What one protocol revision's messages can carry. A request's revision comes with its scope
 * (`ctx.revision`): features ask it what to put in a listing or a result, and never compare
 * versions or ask which era a request belongs to; how an era frames results and errors is
 * its codec's business (eras/).
 */
export interface Revision {
  readonly version: string;
  /** How requests of this version carry their context; read by the era codecs only. */
  readonly era: EraName;
  /** JSON-RPC batches exist only in 2025-03-26. */
  readonly batching: boolean;
  /** Tool `annotations` appeared in 2025-03-26. */
  readonly toolAnnotations: boolean;
  /** `title`, `outputSchema`, `structuredContent`, `_meta` on definitions: 2025-06-18. */
  readonly titlesAndStructuredOutput: boolean;
  /** `icons` and `description` in serverInfo: 2025-11-25. */
  readonly icons: boolean;
  /** Audio content blocks: 2025-03-26. */
  readonly audioContent: boolean;
  /** The `completions` server capability (`completion/complete`): 2025-03-26. */
  readonly completions: boolean;
  /** A `message` on progress notifications: 2025-03-26. */
  readonly progressMessage: boolean;
  /** `elicitation/create`: 2025-06-18. */
  readonly elicitation: boolean;
  /** Elicitation modes (form and url) and the richer form schemas (titled enums, defaults): 2025-11-25. */
  readonly elicitationModes: boolean;
  /** Sampling with tools (`tools`, `toolChoice`, tool_use and tool_result content): 2025-11-25. */
  readonly samplingTools: boolean;
  /** `elicitationId` on URL-mode elicitations and `notifications/elicitation/complete`: 2025-11-25 only. */
  readonly elicitationIds: boolean;
  /** MCP tasks: 2025-11-25 in the protocol itself, then the `io.modelcontextprotocol/tasks` extension. */
  readonly tasks: boolean;
  /**
   * Tasks as 2025-11-25 defines them: the `tasks` capability, `execution.taskSupport` on tool
   * listings and task-augmented requests (the extension that replaced them decides per call).
   */
  readonly taskAugmentation: boolean;
}

const revisions = new Map<string, Revision>();

/** What a version's messages can carry; one frozen object per version. */
export function revisionOf(version: string): Revision {
  let revision = revisions.get(version);
  if (!revision) {
    const era: EraName = isModernVersion(version) ? 'modern' : 'handshake';
    // Dates compare lexically, so `>=` on the string works.
    revision = Object.freeze({
      version,
      era,
      batching: version === '2025-03-26',
      toolAnnotations: version >= '2025-03-26',
      titlesAndStructuredOutput: version >= '2025-06-18',
      icons: version >= '2025-11-25',
      audioContent: version >= '2025-03-26',
      completions: version >= '2025-03-26',
      progressMessage: version >= '2025-03-26',
      elicitation: version >= '2025-06-18',
      elicitationModes: version >= '2025-11-25',
      samplingTools: version >= '2025-11-25',
      elicitationIds: version === '2025-11-25',
      tasks: version >= '2025-11-25',
      taskAugmentation: version === '2025-11-25',
    });
    revisions.set(version, revision);
  }
  return revision;
}
