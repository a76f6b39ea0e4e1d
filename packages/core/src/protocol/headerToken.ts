/** An HTTP field name (RFC 9110 `token`): what an `x-mcp-header` name must be. */
export function isHeaderToken(name: unknown): name is string {
  return typeof name === 'string' && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);
}

/** The characters a token may hold, for error messages. */
export const HEADER_TOKEN_CHARACTERS = "letters, digits and !#$%&'*+-.^_`|~";
