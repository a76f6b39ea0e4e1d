import { invalid } from './options';
import { isObject } from './schema';

/**
 * The API's URL: the option, else the document's first server (its variables at their
 * defaults), resolved against the document's URL when relative; without servers, the
 * document's own origin when it was read over HTTP.
 */
export function baseUrlOf(option: string | undefined, root: Record<string, unknown>, documentUrl: string): string {
  const fix = 'give the baseUrl option (e.g. "https://api.example.com/v1")';
  if (option !== undefined) {
    if (typeof option !== 'string' || !/^https?:\/\//i.test(option)) throw invalid(`baseUrl must be an absolute http(s) URL, not ${JSON.stringify(option)}`);
    return option.replace(/\/+$/, '');
  }
  const servers = Array.isArray(root.servers) ? root.servers : [];
  const first = servers.find((server) => isObject(server) && typeof server.url === 'string') as Record<string, unknown> | undefined;
  let url = first ? (first.url as string) : '/';
  if (first && isObject(first.variables)) {
    const variables = first.variables;
    url = url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole;
    });
  }
  let resolved: URL;
  try {
    resolved = new URL(url, documentUrl);
  } catch {
    throw invalid(`the document's server URL ${JSON.stringify(url)} is not a URL: ${fix}`);
  }
  if (!/^https?:$/.test(resolved.protocol)) {
    const what = first ? `the document's server URL ${JSON.stringify(url)} is relative to ${documentUrl}, not an http(s) URL` : 'the document names no servers';
    throw invalid(`${what}: ${fix}`);
  }
  if (/\{[^}]*\}/.test(decodeURI(resolved.href))) throw invalid(`the document's server URL ${JSON.stringify(url)} has a variable without a default: ${fix}`);
  return resolved.href.replace(/\/+$/, '');
}
