import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameKey } from '../sameKey';
import { inventoryDocument } from './openapi';

export interface Item {
  sku: string;
  name: string;
  stock: number;
  restockedBy?: string;
}

export interface InventoryApiOptions {
  /** The key every call must carry in `x-api-key`. */
  apiKey: string;
  /** The token endpoint its document names for the `inventory:write` scope. */
  tokenUrl: string;
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

export interface InventoryApi {
  /** `http://<host>:<port>`; the document is at `/openapi.json`. */
  url: string;
  close(): Promise<void>;
}

/** A small JSON API on node:http, as any HTTP service might be: the stock of a few items. */
export async function startInventoryApi(options: InventoryApiOptions): Promise<InventoryApi> {
  const items = new Map<string, Item>(
    [
      { sku: 'A-100', name: 'Espresso beans, 1 kg', stock: 12 },
      { sku: 'B-200', name: 'Paper filters', stock: 40 },
      { sku: 'C-300', name: 'Oat milk, 1 l', stock: 0 },
    ].map((item) => [item.sku, item]),
  );
  const document = JSON.stringify(inventoryDocument(options.tokenUrl));
  const http = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 500, { message: 'internal error' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    // The document is public: it tells how to call, not what is in stock.
    if (req.method === 'GET' && pathname === '/openapi.json') return send(res, 200, document);
    if (!sameKey(req.headers['x-api-key'], options.apiKey)) return send(res, 401, { message: 'this API needs its key in x-api-key' });
    if (req.method === 'GET' && pathname === '/items') return send(res, 200, [...items.values()]);
    const match = /^\/items\/([^/]+)(\/restock)?$/.exec(pathname);
    const item = match ? items.get(decodeURIComponent(match[1])) : undefined;
    if (!match || (req.method !== (match[2] ? 'POST' : 'GET'))) return send(res, 404, { message: `no route ${req.method} ${pathname}` });
    if (!item) return send(res, 404, { message: `no item ${decodeURIComponent(match[1])}` });
    if (!match[2]) return send(res, 200, item);
    const body = (await readJson(req)) as { quantity?: unknown } | undefined;
    const quantity = body?.quantity;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1) return send(res, 400, { message: 'quantity must be a positive integer' });
    item.stock += quantity;
    const by = req.headers['x-on-behalf-of'];
    if (typeof by === 'string') item.restockedBy = by;
    return send(res, 200, item);
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 10_000) return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
