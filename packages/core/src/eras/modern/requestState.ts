import { InvalidParamsError } from '../../errors';
import { base64urlToText, constantTimeEqual, hmacSha256, randomToken, sha256Base64url, textToBase64url } from '../../platform';

/** The server's key for `requestState`, and how long a state stays valid. */
export interface RequestStateKey {
  readonly secret: Uint8Array;
  readonly ttlMs: number;
}

/** What a state is bound to: the request it was issued for, and who asked. */
export interface RequestBinding {
  readonly method: string;
  /** paramsDigest() of the request's params. */
  readonly digest: Promise<string>;
  readonly principal: string | undefined;
}

interface Payload {
  v: 1;
  m: string;
  d: string;
  p: string | null;
  /** Expiry, ms since the epoch. */
  e: number;
  /** Makes every state unique, even for the same answers. */
  n: string;
  /** The client's answers so far, by input key. */
  a: Record<string, unknown>;
  /** What the handler carries to its next round (`ctx.carried`), when it carries anything. */
  c?: Record<string, unknown>;
}

/** What a state holds for the next round. */
export interface CarriedState {
  readonly answers: Record<string, unknown>;
  readonly carried: Record<string, unknown> | undefined;
}

/** Parameters that change between the rounds of one request, left out of its digest. */
const ROUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

/**
 * A digest of what makes a request the same request across its rounds: its params without
 * `_meta`, `inputResponses` and `requestState`, in a key order of their own.
 */
export function paramsDigest(params: Record<string, unknown>): Promise<string> {
  const salient: Record<string, unknown> = {};
  for (const key of Object.keys(params).sort()) if (!ROUND_PARAMS.has(key)) salient[key] = params[key];
  let json: string;
  try {
    json = encodeForState(() => canonicalJson(salient), 'the request params');
  } catch (error) {
    return Promise.reject(error);
  }
  return sha256Base64url(json);
}

/** JSON for a state or its digest; client data nested too deep to encode is refused, not thrown. */
function encodeForState(encode: () => string, what: string): string {
  try {
    return encode();
  } catch {
    throw new InvalidParamsError(`Invalid params: ${what} are nested too deeply to be carried in a requestState`);
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `<payload>.<HMAC-SHA256 of payload>`, both base64url: opaque to the client, tamper-evident. */
export async function sealRequestState(key: RequestStateKey, binding: RequestBinding, answers: Record<string, unknown>, carried?: Record<string, unknown>): Promise<string> {
  const payload: Payload = {
    v: 1,
    m: binding.method,
    d: await binding.digest,
    p: binding.principal ?? null,
    e: Date.now() + key.ttlMs,
    n: randomToken(9),
    a: answers,
  };
  if (carried !== undefined && Object.keys(carried).length > 0) payload.c = carried;
  const body = textToBase64url(encodeForState(() => JSON.stringify(payload), 'the input responses'));
  return `${body}.${await sign(key, body)}`;
}

/**
 * The answers a state carries, after checking its signature, expiry and binding; a state
 * that fails any check is refused with -32602 and nothing of it is used.
 */
export async function openRequestState(key: RequestStateKey, state: unknown, binding: RequestBinding): Promise<CarriedState> {
  const refuse = (why: string) => new InvalidParamsError(`Invalid requestState: ${why}; send the request again without it`);
  if (typeof state !== 'string') throw refuse('it must be the string the server sent');
  const dot = state.indexOf('.');
  const body = state.slice(0, dot);
  // Compared as text: base64url decoding would accept other spellings of the same signature.
  if (dot < 1 || !constantTimeEqual(state.slice(dot + 1), await sign(key, body))) throw refuse('integrity check failed');
  let payload: Payload;
  try {
    payload = JSON.parse(base64urlToText(body) ?? '') as Payload;
  } catch {
    throw refuse('integrity check failed');
  }
  if (payload.v !== 1 || typeof payload.a !== 'object' || payload.a === null || (payload.c !== undefined && (typeof payload.c !== 'object' || payload.c === null))) throw refuse('unknown format');
  if (!(payload.e > Date.now())) throw refuse('it has expired');
  if (payload.m !== binding.method || payload.d !== (await binding.digest)) throw refuse('it was issued for another request');
  if (payload.p !== (binding.principal ?? null)) throw refuse('it was issued to another principal');
  return { answers: payload.a, carried: payload.c };
}

/** One signer per key: WebCrypto imports the secret once. */
const signers = new WeakMap<RequestStateKey, (text: string) => Promise<string>>();

function sign(key: RequestStateKey, body: string): Promise<string> {
  let signer = signers.get(key);
  if (!signer) signers.set(key, (signer = hmacSha256(key.secret)));
  return signer(body);
}
