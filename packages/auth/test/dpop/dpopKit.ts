import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';

/** A client's DPoP key: it signs proofs, its public JWK goes in their header. */
export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** RFC 7638 thumbprint: the token's cnf.jkt once bound. */
  jkt: string;
  alg: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256'), alg };
}

export const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

/** What a proof says; each field may be overridden or dropped (undefined) to make a bad one. */
export interface ProofParts {
  htm?: string;
  htu?: string;
  iat?: number;
  jti?: string;
  ath?: string;
  nonce?: string;
  header?: Record<string, unknown>;
}

/** A DPoP proof by `key` for `method url`, with `token`'s ath when given; `parts` override. */
export async function proof(key: DpopKey, method: string, url: string, token?: string, parts: ProofParts = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: randomBytes(16).toString('base64url'),
    htm: method,
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    ...(token !== undefined ? { ath: ath(token) } : {}),
  };
  for (const [name, value] of Object.entries(parts)) if (name !== 'header') claims[name] = value;
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...parts.header }).sign(key.privateKey);
}

export interface McpAnswer {
  status: number;
  challenge: string | null;
  nonce: string | null;
  body: { result?: { content?: Array<{ text: string }> }; error?: { code: number; message: string; data?: Record<string, unknown> } };
}

/** A 2026-07-28 tools/call (no session) to `url` with the given Authorization and DPoP headers. */
export async function callTool(url: string, name: string, headers: { authorization?: string; dpop?: string }): Promise<McpAnswer> {
  const sent: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name };
  if (headers.authorization !== undefined) sent.authorization = headers.authorization;
  if (headers.dpop !== undefined) sent.dpop = headers.dpop;
  const response = await fetch(url, {
    method: 'POST',
    headers: sent,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'dpop-test', version: '1' } } },
    }),
  });
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), nonce: response.headers.get('dpop-nonce'), body: text === '' ? {} : (JSON.parse(text) as McpAnswer['body']) };
}

/** `callTool` with `token` under the DPoP scheme and a fresh proof by `key` (or `dpop` as given). */
export async function callWithDpop(url: string, name: string, token: string, key: DpopKey, parts: ProofParts = {}): Promise<McpAnswer> {
  return callTool(url, name, { authorization: `DPoP ${token}`, dpop: await proof(key, 'POST', url, token, parts) });
}

export const textOf = (answer: McpAnswer) => (answer.body.result?.content ?? []).map((block) => block.text).join('');

/** The `DPoP` challenge the resource answers, then the `Bearer` one beside it. */
export function dpopChallenges(metadataUrl: string, error: string, algs = 'ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA Ed25519'): RegExp {
  const quoted = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^DPoP resource_metadata="${quoted(metadataUrl)}"(, scope="[^"]*")?, error="${error}", error_description="(?:[^"\\\\]|\\\\.)*", algs="${algs}", Bearer resource_metadata="${quoted(metadataUrl)}"(, scope="[^"]*")?$`);
}
