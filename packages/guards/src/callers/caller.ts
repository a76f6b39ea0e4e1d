import type { Context, Principal } from '@typemcp/core';
import type { ClientAddresses } from './ClientAddresses';

/**
 * Who a request is counted against: its principal (`p:`), else its client's address over HTTP
 * (`a:`), else the one local client of a stdio or in-memory connection (`local`).
 */
export interface Caller {
  readonly key: string;
  readonly kind: 'principal' | 'address' | 'local';
  /** The principal's subject, or the address; absent for `local`. */
  readonly id?: string;
}

const LOCAL: Caller = { key: 'local', kind: 'local' };

/** The caller of a request; `addresses` resolves a client behind trusted proxies. */
export function callerOf(context: Pick<Context, 'principal' | 'clientAddress' | 'httpRequest'>, addresses?: ClientAddresses): Caller {
  const principal = context.principal;
  if (principal !== undefined) return principalCaller(principal);
  const address = addresses ? addresses.resolve(context.clientAddress, context.httpRequest?.headers) : context.clientAddress;
  if (address !== undefined) return { key: `a:${address}`, kind: 'address', id: address };
  // An HTTP request whose address the host does not know still comes from the network, not the local client.
  return context.httpRequest !== undefined ? { key: 'a:unknown', kind: 'address', id: 'unknown' } : LOCAL;
}

/** A principal's key: its issuer (when its claims name one) and subject, so equal subjects of two issuers differ. */
export function principalCaller(principal: Principal): Caller {
  const issuer = typeof principal.claims?.iss === 'string' ? principal.claims.iss : '';
  return { key: `p:${JSON.stringify([issuer, principal.subject])}`, kind: 'principal', id: principal.subject };
}
