import type { Context, Principal } from '@typemcp/core';
import * as ipaddr from 'ipaddr.js';
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
  if (address !== undefined) return { key: `a:${addressKey(address)}`, kind: 'address', id: address };
  // An HTTP request whose address the host does not know still comes from the network, not the local client.
  return context.httpRequest !== undefined ? { key: 'a:unknown', kind: 'address', id: 'unknown' } : LOCAL;
}

/** A principal's key: its issuer (when its claims name one) and subject, so equal subjects of two issuers differ. */
export function principalCaller(principal: Principal): Caller {
  const issuer = typeof principal.claims?.iss === 'string' ? principal.claims.iss : '';
  return { key: `p:${JSON.stringify([issuer, principal.subject])}`, kind: 'principal', id: principal.subject };
}

/**
 * What a client address is counted by: an IPv4 address as it is, an IPv6 address by its /64
 * (`2001:db8:1:2::/64`): a host is given a whole /64 and may take any address in it, so counting
 * each apart would let one client dodge a limit by rotating its address.
 */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() !== 'ipv6') return address;
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([parts[0], parts[1], parts[2], parts[3], 0, 0, 0, 0]).toString()}/64`;
}
