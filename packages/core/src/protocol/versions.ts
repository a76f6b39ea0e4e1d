/** Protocol revisions served, oldest first, and what differs between them. */

export const HANDSHAKE_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type HandshakeVersion = (typeof HANDSHAKE_VERSIONS)[number];
export const LATEST_HANDSHAKE_VERSION: HandshakeVersion = '2025-11-25';

/** Revisions without a handshake: every request carries its version and client in `_meta`. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export const LATEST_MODERN_VERSION: ModernVersion = '2026-07-28';

/** Every version served, newest first: what `server/discover` and -32022 list. */
export const SUPPORTED_VERSIONS: readonly string[] = [...[...MODERN_VERSIONS].reverse(), ...[...HANDSHAKE_VERSIONS].reverse()];

/**
 * How a protocol version carries a request's context (DESIGN.md §1): `handshake`, an
 * `initialize` handshake and a session; `modern`, the request's own `_meta`.
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

/** The requested version when served, else the newest (the client then decides whether to go on). */
export function negotiateVersion(requested: unknown): HandshakeVersion {
  return isServedVersion(requested) ? requested : LATEST_HANDSHAKE_VERSION;
}

/**
 * The era a request asks for: `modern` when it names a protocol version in
 * `_meta[PROTOCOL_VERSION_META]` (served or not: an unknown one is refused with -32022 by that
 * era), undefined when it names none and the connection's handshake era applies.
 */
export function requestedEra(params: Record<string, unknown>): EraName | undefined {
  const meta = params._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META] === undefined ? undefined : 'modern';
}

/** Features a version may carry. Dates compare lexically, so `>=` on the string works. */
export interface VersionFeatures {
  /** How requests of this version carry their context. */
  era: EraName;
  /** JSON-RPC batches exist only in 2025-03-26. */
  batching: boolean;
  /** Tool `annotations` appeared in 2025-03-26. */
  toolAnnotations: boolean;
  /** `title`, `outputSchema`, `structuredContent`, `_meta` on definitions: 2025-06-18. */
  titlesAndStructuredOutput: boolean;
  /** `icons`, `execution` on tools and `description` in serverInfo: 2025-11-25. */
  icons: boolean;
  /** Audio content blocks: 2025-03-26. */
  audioContent: boolean;
  /** The `completions` server capability (`completion/complete`): 2025-03-26. */
  completions: boolean;
  /** A `message` on progress notifications: 2025-03-26. */
  progressMessage: boolean;
  /** `elicitation/create`: 2025-06-18. */
  elicitation: boolean;
  /** Elicitation modes (form and url) and the richer form schemas (titled enums, defaults): 2025-11-25. */
  elicitationModes: boolean;
  /** Sampling with tools (`tools`, `toolChoice`, tool_use and tool_result content): 2025-11-25. */
  samplingTools: boolean;
  /** `elicitationId` on URL-mode elicitations and `notifications/elicitation/complete`: 2025-11-25 only. */
  elicitationIds: boolean;
  /**
   * A missing client capability is the protocol error -32021 (with `requiredCapabilities`)
   * rather than a tool error, and an unknown resource -32602 rather than -32002: 2026-07-28.
   */
  modernErrors: boolean;
  /** `resultType` on results and `ttlMs`/`cacheScope` on cacheable ones: 2026-07-28. */
  resultTypes: boolean;
}

const featureCache = new Map<string, VersionFeatures>();

export function featuresOf(version: string): VersionFeatures {
  let features = featureCache.get(version);
  if (!features) {
    const modern = isModernVersion(version);
    features = {
      era: modern ? 'modern' : 'handshake',
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
      modernErrors: version >= '2026-07-28',
      resultTypes: version >= '2026-07-28',
    };
    featureCache.set(version, features);
  }
  return features;
}
