import { clip } from '../protocol';

/** The options of `@IsUrl` (validator.js's isURL) that decide what a URL must look like. */
interface UrlOptions {
  protocols?: string[];
  require_tld?: boolean;
  require_protocol?: boolean;
  require_valid_protocol?: boolean;
}

/** validator.js's defaults. */
const DEFAULT_PROTOCOLS = ['http', 'https', 'ftp'];

/**
 * Why a value is not a URL as `@IsUrl(options)` wants one, in words the caller can act on: the
 * protocol, the missing top-level domain (`https://localhost`), or no URL at all. Undefined when
 * it cannot tell (a rarer rule failed): the generic message stands then. With `quote` false (a
 * `@Sensitive` property) it says the rule alone: nothing of the value.
 */
export function urlProblem(value: unknown, options: UrlOptions = {}, quote = true): string | undefined {
  if (typeof value !== 'string') return 'must be a URL, as a string';
  const shown = JSON.stringify(clip(value, 80));
  const hasProtocol = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  if (!hasProtocol && options.require_protocol) return `must be a URL with a protocol (such as https://)${quote ? `; ${shown} has none` : ''}`;
  let url: URL;
  try {
    url = new URL(hasProtocol ? value : `http://${value}`);
  } catch {
    return `must be a URL address${quote ? `; ${shown} is not one` : ''}`;
  }
  const protocol = url.protocol.slice(0, -1).toLowerCase();
  const protocols = options.protocols ?? DEFAULT_PROTOCOLS;
  if (hasProtocol && options.require_valid_protocol !== false && !protocols.includes(protocol)) {
    return `must be a URL with protocol ${protocols.join(', ')}${quote ? `; ${shown} has ${protocol}` : ''}`;
  }
  if ((options.require_tld ?? true) && !/\.[a-z\u00a1-\uffff]{2,}$/i.test(url.hostname)) {
    return `must be a URL whose host has a top-level domain, such as example.com${quote ? `; the host of ${shown} ("${clip(url.hostname, 60)}") has none` : ''}`;
  }
  return quote ? undefined : 'must be a URL address';
}
