import type { AuthOptions } from './options';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The RFC 9728 metadata document of the resource, and the paths it is served at. */
export function protectedResource(options: AuthOptions): { url: string; paths: string[]; document: Record<string, unknown> } {
  const resource = new URL(options.resource);
  if (resource.hash !== '' || resource.search !== '') throw new TypeError(`auth: resource must be a URL without query or fragment, not ${options.resource}`);
  const path = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: [options.issuer],
    bearer_methods_supported: ['header'],
  };
  if (options.scopesSupported !== undefined) document.scopes_supported = options.scopesSupported;
  if (options.resourceName !== undefined) document.resource_name = options.resourceName;
  if (options.resourceDocumentation !== undefined) document.resource_documentation = options.resourceDocumentation;
  // RFC 9728 §3.1 inserts the well-known segment before the resource's path; clients that
  // only try the root find it there too.
  const paths = path === '' ? [WELL_KNOWN] : [`${WELL_KNOWN}${path}`, WELL_KNOWN];
  return { url: `${resource.origin}${paths[0]}`, paths, document };
}
