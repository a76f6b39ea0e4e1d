import type { RemoteAccess } from '@typemcp/core';
import type { Documents } from './refs';
import { isObject } from './schema';

/**
 * Who may use an operation, from its security requirements (else the document's):
 * `security: []`, or an empty alternative `{}`, makes it public; otherwise the OAuth 2 and
 * OpenID Connect scopes of the first alternative are required, and so are the scopes named for a
 * scheme the document does not define or whose $ref cannot be read. Other schemes (API keys,
 * HTTP auth) need nothing of the MCP caller: the `headers` option supplies the credentials.
 */
export function accessOf(security: unknown, documents: Documents, root: Record<string, unknown>, rootUrl: string): RemoteAccess {
  if (!Array.isArray(security)) return {};
  if (security.length === 0 || security.some((alternative) => isObject(alternative) && Object.keys(alternative).length === 0)) return { public: true };
  const first = security[0];
  if (!isObject(first)) return {};
  const schemes = isObject(root.components) && isObject(root.components.securitySchemes) ? root.components.securitySchemes : {};
  const scopes = new Set<string>();
  for (const name of Object.keys(first)) {
    let scheme: unknown;
    try {
      scheme = schemes[name] === undefined ? undefined : documents.deref(schemes[name], rootUrl).value;
    } catch {
      scheme = undefined;
    }
    // A scheme that cannot be read (missing, or its $ref refused) may be OAuth: its scopes are
    // required all the same, so a broken document closes the operation instead of opening it.
    if (isObject(scheme) && scheme.type !== 'oauth2' && scheme.type !== 'openIdConnect') continue;
    const wanted = first[name];
    if (Array.isArray(wanted)) for (const scope of wanted) if (typeof scope === 'string' && scope !== '') scopes.add(scope);
  }
  return scopes.size > 0 ? { scopes: [...scopes] } : {};
}
