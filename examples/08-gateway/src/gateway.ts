import 'reflect-metadata';
import { container } from 'tsyringe';
import { AccessDeniedError, McpServer } from '@typemcp/core';
import type { Context, Middleware, Plugin } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import type { AuthOptions } from '@typemcp/auth';
import { fromOpenApi } from '@typemcp/openapi';
import { ProxyServer } from '@typemcp/proxy';
import type { StdioUpstream } from '@typemcp/proxy';
import { GatewayTools } from './GatewayTools';
import { Sources } from './Sources';

/** Every request to the gateway needs it: the tools of every source are behind it. */
export const BASE_SCOPE = 'gateway:use';
/** Restocking the inventory needs it too: the inventory API's document says so. */
export const RESTOCK_SCOPE = 'inventory:write';
export const SCOPES = [BASE_SCOPE, RESTOCK_SCOPE];

export interface GatewayOptions {
  /** The gateway's endpoint (`resource`) and the authorization server whose tokens it accepts. */
  auth: Pick<AuthOptions, 'resource' | 'issuer'> & Partial<AuthOptions>;
  /** The weather server, started as a process speaking MCP on stdio. */
  weather: StdioUpstream;
  /** The notes server's MCP endpoint and the gateway's key for it. */
  notes: { url: string; apiKey: string };
  /** Where the inventory API is (its document at `/openapi.json`) and the gateway's key for it. */
  inventory: { url: string; apiKey: string };
}

export interface Gateway {
  server: McpServer;
  /**
   * Resolves once both proxies have connected and mirrored their upstream's lists. The gateway
   * serves before that: a source's items appear (with list_changed) as it connects.
   */
  connected: Promise<void>;
}

/**
 * One MCP endpoint for four sources: the gateway's own tools; the weather server over stdio
 * (`weather_*`); the notes server over HTTP (`notes_*`, `note://notes/…`); the inventory API
 * through its OpenAPI document (`inventory_*`, `openapi://inventory/…`). Callers need a token
 * of `auth.issuer` with `gateway:use`; upstreams get the gateway's own keys, never the token.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  // The upstreams trust the gateway's key; who the caller is rides beside it.
  const onBehalfOf = (ctx: Context | undefined): Record<string, string> => (ctx?.principal ? { 'x-on-behalf-of': ctx.principal.subject } : {});
  const inventory = await fromOpenApi({
    spec: new URL('/openapi.json', options.inventory.url).href,
    rules: [{ operationId: 'get_item', as: 'template' }],
    headers: (ctx) => ({ 'x-api-key': options.inventory.apiKey, ...onBehalfOf(ctx) }),
  });
  const weather = new ProxyServer({ name: 'gateway', version: '1.0.0', upstream: options.weather });
  const notes = new ProxyServer({
    name: 'gateway',
    version: '1.0.0',
    // The client's own headers, its Authorization above all, are not passed on: only these.
    upstream: { url: options.notes.url, headers: (ctx) => ({ 'x-api-key': options.notes.apiKey, ...onBehalfOf(ctx) }) },
  });

  const sources = new Sources([
    { namespace: 'weather', kind: 'stdio proxy', upstream: [options.weather.command, ...(options.weather.args ?? [])].join(' '), state: () => weather.upstreamState },
    { namespace: 'notes', kind: 'http proxy', upstream: options.notes.url, state: () => notes.upstreamState },
    { namespace: 'inventory', kind: 'openapi', upstream: options.inventory.url, state: () => 'ready' },
  ]);
  const scope = container.createChildContainer();
  scope.registerInstance(Sources, sources);
  const server = new McpServer({
    container: scope,
    name: 'gateway',
    version: '1.0.0',
    instructions: 'One endpoint for the weather, the team notes and the kitchen inventory. gateway_status tells which sources are up.',
    providers: [GatewayTools],
  });
  server.mount(weather, { namespace: 'weather' });
  server.mount(notes, { namespace: 'notes' });
  server.mount(inventory, { namespace: 'inventory' });
  server.plugin(auth, { scopesSupported: SCOPES, resourceName: 'Gateway', ...options.auth });
  server.plugin(upstreams, { proxies: [weather, notes], scope: BASE_SCOPE });
  return { server, connected: Promise.all([weather.start(), notes.start()]).then(() => undefined) };
}

/** Requires `scope` of every request, and closes the proxies (ending the stdio child) with the gateway. */
const upstreams: Plugin<{ proxies: ProxyServer[]; scope: string }> = {
  name: 'gateway:upstreams',
  register(host, { proxies, scope }) {
    host.use(requireScope(scope));
    host.onClose(async () => {
      await Promise.all(proxies.map((proxy) => proxy.close()));
    });
  },
};

/** Left open: a client may check that the gateway is there, and what it is, before it has the scope. */
const OPEN_METHODS = new Set(['ping', 'server/discover']);

/**
 * Refuses a request whose caller lacks `scope` as `@Scopes` would: over HTTP a 403 with an
 * `insufficient_scope` challenge naming the scopes to ask for. Mounted servers cannot be
 * given rules of their own, so the gateway checks its scope in front of all of them.
 */
function requireScope(scope: string): Middleware {
  return (ctx, next) => {
    const principal = ctx.context.principal;
    if (OPEN_METHODS.has(ctx.method) || principal?.scopes.includes(scope)) return next();
    if (principal === undefined) throw new AccessDeniedError('unauthenticated', `Access denied: ${ctx.method} needs an authenticated caller`, { scopes: [scope] });
    throw new AccessDeniedError('insufficient_scope', `Access denied: the gateway needs the scope ${scope}, which the caller's credentials do not grant`, {
      scopes: [...new Set([...principal.scopes, scope])],
    });
  };
}
