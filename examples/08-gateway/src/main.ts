import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TestIssuer } from '@typemcp/auth/testing';
import { createGateway, SCOPES } from './gateway';
import type { Gateway } from './gateway';
import { startInventoryApi } from './inventory/api';
import type { InventoryApi } from './inventory/api';
import { spawnNotes } from './processes';
import type { NotesProcess } from './processes';

/**
 * `npm start`: the gateway on PORT (default 3000) in front of the weather example (a child on
 * stdio), the notes service (a child on a free port, or NOTES_URL with NOTES_API_KEY) and the
 * inventory API (in this process, on a free port). With ISSUER set, tokens of that
 * authorization server are accepted; without, a local development issuer starts beside it.
 * Ctrl+C (or SIGTERM) stops everything it started.
 */
async function main(): Promise<void> {
  const say = (line: string) => process.stderr.write(`gateway: ${line}\n`);
  const port = Number(process.env.PORT ?? 3000);
  const resource = process.env.RESOURCE ?? `http://127.0.0.1:${port}/mcp`;
  let dev: TestIssuer | undefined;
  let notes: NotesProcess | undefined;
  let inventory: InventoryApi | undefined;
  let gateway: Gateway | undefined;
  let stopping = false;

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Closing the gateway closes its proxies, which ends the weather process.
    await gateway?.server.close().catch(() => undefined);
    await Promise.all([notes?.stop(), inventory?.close(), dev?.close()]);
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  try {
    const weatherMain = path.resolve(__dirname, '../../01-weather/dist/main.js');
    if (!existsSync(weatherMain)) throw new Error(`${weatherMain} is missing: run "npm run build" at the root of the repository first`);

    let issuer = process.env.ISSUER;
    if (issuer === undefined) {
      const client = { clientId: 'gateway-cli', clientSecret: 'dev-secret', scopes: SCOPES };
      dev = await TestIssuer.start({ clients: [client] });
      issuer = dev.url;
      say(`a local development issuer runs at ${dev.url} (set ISSUER to use a real one)`);
      say(`get a token: curl -s -u ${client.clientId}:${client.clientSecret} -d grant_type=client_credentials -d "scope=${SCOPES.join(' ')}" -d resource=${resource} ${dev.tokenEndpoint}`);
    }

    // The keys are the gateway's own credentials for its upstreams: new ones each start.
    const inventoryKey = randomBytes(24).toString('base64url');
    inventory = await startInventoryApi({ apiKey: inventoryKey, tokenUrl: dev?.tokenEndpoint ?? (await tokenEndpointOf(issuer)) });
    say(`the inventory API serves ${inventory.url} (its document: ${inventory.url}/openapi.json)`);

    let notesUrl = process.env.NOTES_URL;
    let notesKey = process.env.NOTES_API_KEY;
    if (notesUrl === undefined) {
      notesKey = randomBytes(24).toString('base64url');
      notes = await spawnNotes({ apiKey: notesKey });
      notesUrl = notes.url;
      say(`the notes service serves ${notes.url} (pid ${notes.pid})`);
    } else if (!notesKey) {
      throw new Error('with NOTES_URL, set NOTES_API_KEY to the key the notes service expects');
    }

    gateway = await createGateway({
      auth: { resource, issuer, jwksUri: process.env.JWKS_URI },
      weather: { command: process.execPath, args: [weatherMain, '--stdio'], stderr: 'ignore' },
      notes: { url: notesUrl, apiKey: notesKey! },
      inventory: { url: inventory.url, apiKey: inventoryKey },
    });
    const { url } = await gateway.server.listen({ transport: 'http', host: '127.0.0.1', port, handleSignals: false });
    say(`serving MCP at ${url}; requests need "Authorization: Bearer <token>" (audience ${resource}) with the scope gateway:use, restocking inventory:write too. Stop with Ctrl+C.`);
    await gateway.connected;
    if (!stopping) say('the weather and notes upstreams are connected: their tools are listed');
  } catch (error) {
    // One line, not a stack trace: the usual cause is a port already taken or a missing build.
    const { message, code } = error as Error & { code?: string };
    say(`${message}${code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}`);
    await stop(1);
  }
}

/** The token endpoint of an authorization server, from its RFC 8414 metadata. */
async function tokenEndpointOf(issuer: string): Promise<string> {
  const { origin, pathname } = new URL(issuer);
  const metadata = `${origin}/.well-known/oauth-authorization-server${pathname === '/' ? '' : pathname}`;
  const response = await fetch(metadata);
  const endpoint = response.ok ? ((await response.json()) as { token_endpoint?: unknown }).token_endpoint : undefined;
  if (typeof endpoint !== 'string') throw new Error(`${metadata} names no token_endpoint (${response.status})`);
  return endpoint;
}

void main();
