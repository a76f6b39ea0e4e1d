import { DefinitionError } from '@typemcp/core';
import type { TestIssuerClient, TestIssuerOptions, TokenOptions } from './options';

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function fail(message: string): never {
  throw new DefinitionError('INVALID_OPTION', `@typemcp/auth/testing: ${message}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

function checkScopes(scopes: unknown, where: string): void {
  if (!Array.isArray(scopes)) fail(`${where} must be an array of scope names, not ${JSON.stringify(scopes)}`);
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) fail(`${where} has ${JSON.stringify(scope)}, which is not a scope name (printable ASCII without spaces, quotes or backslashes)`);
  }
}

/** Checks the options of `TestIssuer.start()`, naming the option to fix. */
export function checkIssuerOptions(options: unknown): asserts options is TestIssuerOptions {
  if (!isRecord(options)) fail('TestIssuer.start() takes an options object: { clients?, host?, port? }');
  if (options.host !== undefined && !isText(options.host)) fail(`host must be a host name or address, not ${JSON.stringify(options.host)}`);
  if (options.port !== undefined && !(Number.isInteger(options.port) && (options.port as number) >= 0 && (options.port as number) <= 65535)) {
    fail(`port must be an integer from 0 to 65535, not ${JSON.stringify(options.port)}`);
  }
  if (options.clients === undefined) return;
  if (!Array.isArray(options.clients)) fail('clients must be an array of { clientId, clientSecret, scopes }');
  const ids = new Set<string>();
  options.clients.forEach((client: unknown, index) => {
    const where = `clients[${index}]`;
    if (!isRecord(client)) fail(`${where} must be { clientId, clientSecret, scopes }`);
    if (!isText(client.clientId)) fail(`${where}.clientId must be a non-empty string`);
    if (!isText(client.clientSecret)) fail(`${where}.clientSecret must be a non-empty string`);
    if (ids.has(client.clientId)) fail(`${where}.clientId "${client.clientId}" is used by an earlier client; give each client its own id`);
    ids.add(client.clientId);
    checkScopes(client.scopes, `${where}.scopes`);
    if (client.claims !== undefined && !isRecord(client.claims)) fail(`${where}.claims must be an object of claims`);
  });
}

/** A copy of the clients, so later changes to the caller's objects do not change the issuer. */
export function copyClients(clients: readonly TestIssuerClient[] = []): TestIssuerClient[] {
  return clients.map((client) => ({ ...client, scopes: [...client.scopes], ...(client.claims ? { claims: { ...client.claims } } : {}) }));
}

/** Checks the options of `issuer.token()`, naming the option to fix. */
export function checkTokenOptions(options: unknown): asserts options is TokenOptions {
  if (!isRecord(options)) fail('issuer.token() takes an options object with at least { audience }');
  const { audience, subject, scopes, expiresIn, clientId, claims, key, issuer } = options;
  const audiences = Array.isArray(audience) ? audience : [audience];
  if (audiences.length === 0 || !audiences.every(isText)) {
    fail(`audience must name the resource the token is for (a string or an array of strings), not ${JSON.stringify(audience)}`);
  }
  for (const [name, value] of Object.entries({ subject, clientId, issuer })) {
    if (value !== undefined && !isText(value)) fail(`${name} must be a non-empty string, not ${JSON.stringify(value)}`);
  }
  if (scopes !== undefined) checkScopes(scopes, 'scopes');
  if (expiresIn !== undefined && !isText(expiresIn) && !(typeof expiresIn === 'number' && Number.isFinite(expiresIn))) {
    fail(`expiresIn must be a duration such as '5m' or a number of seconds, not ${JSON.stringify(expiresIn)}`);
  }
  if (claims !== undefined && !isRecord(claims)) fail('claims must be an object of claims');
  if (key !== undefined && key !== 'valid' && key !== 'wrong') fail(`key must be 'valid' or 'wrong', not ${JSON.stringify(key)}`);
}
