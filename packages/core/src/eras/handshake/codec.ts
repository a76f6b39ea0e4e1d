import { InvalidRequestError, McpError, MethodNotFoundError } from '../../errors';
import { clip, PROTOCOL_VERSION_META } from '../../protocol';
import type { EraCodec, Prepared } from '../EraCodec';
import { handshakeTasks } from './tasks';

/**
 * The handshake era (2024-11-05 … 2025-11-25): `initialize` negotiates the revision and the
 * client's capabilities once (see lifecycle.ts); the session is every request's scope (and
 * holds the log level set with `logging/setLevel`); server-to-client requests go out on the
 * same connection; results and errors go out as the handlers made them.
 */
export const handshakeCodec: EraCodec = {
  name: 'handshake',
  refusal(source, method, _params, route) {
    if (route?.eras !== undefined && !route.eras.includes('handshake')) {
      return new MethodNotFoundError(`Method not found: ${clip(method)} (it needs protocol 2026-07-28: name it in _meta["${PROTOCOL_VERSION_META}"])`);
    }
    const session = source.session;
    if (!session) return new InvalidRequestError(`Invalid Request: "${clip(method)}" needs a session: send "initialize" first`);
    // Before the handshake only pings may be served.
    if (session.state === 'awaiting-initialize' && method !== 'ping') {
      return new InvalidRequestError(`Server not initialized: send "initialize" before "${clip(method)}"`);
    }
    return undefined;
  },
  versionOf: (source) => (source.session && source.session.state !== 'awaiting-initialize' ? source.session.protocolVersion : undefined),
  // The connection's own scope and channel: nothing is made per request.
  prepare: (source) => source as Prepared,
  complete: (_source, _method, result) => result,
  error: (error) => (error instanceof McpError ? error : undefined),
  describe(server, revision) {
    const { name, version, title, description, websiteUrl, icons } = server.info;
    const serverInfo: Record<string, unknown> = { name, version };
    if (revision.titlesAndStructuredOutput && title !== undefined) serverInfo.title = title;
    if (revision.icons) {
      if (description !== undefined) serverInfo.description = description;
      if (websiteUrl !== undefined) serverInfo.websiteUrl = websiteUrl;
      if (icons !== undefined) serverInfo.icons = icons;
    }
    // Extensions negotiate in `capabilities.extensions` at every version; each says at which it applies.
    const capabilities = server.capabilities(revision);
    const extensions = server.extensions(revision);
    const result: Record<string, unknown> = {
      protocolVersion: revision.version,
      capabilities: Object.keys(extensions).length > 0 ? { ...capabilities, extensions } : capabilities,
      serverInfo,
    };
    if (server.instructions !== undefined) result.instructions = server.instructions;
    return result;
  },
  tasks: handshakeTasks,
};
