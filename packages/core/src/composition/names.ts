import { DefinitionError } from '../errors';

/** How the names of a mounted server's tools and prompts are checked. */
export type MountedNames = 'mcp' | 'strict' | 'shorten';

const NAMESPACE = /^[A-Za-z0-9_-]{1,64}$/;
/** The names MCP allows (and the framework's own rule). */
const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The names some model APIs accept for functions. */
const STRICT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const STRICT_LENGTH = 64;

export function checkNamespace(namespace: unknown): asserts namespace is string {
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw new DefinitionError('INVALID_OPTION', `server.mount: namespace must be 1-64 characters of A-Z, a-z, 0-9, "_" or "-", not ${JSON.stringify(namespace)}`);
  }
}

/**
 * A tool's or prompt's name under the namespace: `<namespace>_<name>`. `strict` refuses a name
 * that is not 1-64 characters of A-Z, a-z, 0-9, "_" and "-"; `shorten` makes it one: every other
 * character becomes "_", and a name longer than 64 keeps its first 55 characters, then "_" and 8
 * hex digits of a hash of the whole name (FNV-1a), so two long names stay apart.
 */
export function mountedName(namespace: string, name: string, rule: MountedNames, kind: string): string {
  const full = `${namespace}_${name}`;
  if (rule === 'shorten') {
    const plain = full.replace(/[^A-Za-z0-9_-]/g, '_');
    return plain.length <= STRICT_LENGTH ? plain : `${plain.slice(0, STRICT_LENGTH - 9)}_${fnv1a(full)}`;
  }
  const allowed = rule === 'strict' ? STRICT_NAME : MCP_NAME;
  if (!allowed.test(full)) {
    const what = rule === 'strict' ? '1-64 characters of A-Z, a-z, 0-9, "_" or "-" (names: \'strict\')' : '1-128 characters of A-Z, a-z, 0-9, "_", "-" or "."';
    throw new DefinitionError('INVALID_OPTION', `server.mount: the ${kind} "${name}" would be "${full}" here, which is not ${what}; use names: 'shorten' or a shorter namespace`);
  }
  return full;
}

/**
 * A resource uri (or uri template) of a mounted server as the parent shows it: the namespace is
 * the first segment after the scheme's `//` (`docs://guide/{page}` under `kb` is
 * `docs://kb/guide/{page}`), or after the scheme's colon for uris without one (`urn:isbn:1`
 * is `urn:kb:isbn:1`). `ui://` uris stay as they are: an app's tool names its UI by it.
 */
export function mountedUri(namespace: string, uri: string): string {
  const split = splitScheme(uri);
  if (!split || split.scheme === 'ui') return uri;
  return split.hierarchical ? `${split.scheme}://${namespace}/${split.rest}` : `${split.scheme}:${namespace}:${split.rest}`;
}

/** The mounted server's own uri for one the parent shows; undefined when the namespace is not in it. */
export function unmountedUri(namespace: string, uri: string): string | undefined {
  const split = splitScheme(uri);
  if (!split) return undefined;
  if (split.scheme === 'ui') return uri;
  const prefix = split.hierarchical ? `${namespace}/` : `${namespace}:`;
  if (!split.rest.startsWith(prefix)) return undefined;
  const rest = split.rest.slice(prefix.length);
  return split.hierarchical ? `${split.scheme}://${rest}` : `${split.scheme}:${rest}`;
}

function splitScheme(uri: string): { scheme: string; hierarchical: boolean; rest: string } | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/)?/.exec(uri);
  if (!match) return undefined;
  return { scheme: match[1].toLowerCase() === 'ui' ? 'ui' : match[1], hierarchical: match[2] !== undefined, rest: uri.slice(match[0].length) };
}

/** FNV-1a, 32 bits, as 8 hex digits: short, stable, no crypto needed. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
