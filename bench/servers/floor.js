'use strict';
/**
 * The floor: what Node itself can do. A minimal hand-written MCP server with no framework and
 * no validation beyond what is needed: initialize, tools/list (paged like the others, 100 per
 * page) and tools/call of `echo`. `BENCH_TOOLS=N` adds N more tools for the tools/list figures.
 *
 *   node bench/servers/floor.js          newline-delimited JSON-RPC on stdin/stdout
 *   node bench/servers/floor.js --http   node:http on 127.0.0.1, a free port; answers a POST
 *                                        carrying one JSON-RPC message with JSON
 *                                        (prints "LISTENING <port>" on stdout)
 *
 * Over HTTP it also answers what the 2026-07-28 phases send (a POST whose `_meta` names a
 * protocol version), with the checks the revision makes a server do: the version, the client
 * capabilities, the headers that mirror the body. `tools/call` of `echo`; of `confirm`, which
 * asks one elicitation question through `input_required` and a signed `requestState`; of
 * `touch`, which notifies every `subscriptions/listen` stream subscribed to bench://info.
 */
const { createHash, createHmac, timingSafeEqual } = require('node:crypto');

const PAGE_SIZE = 100;
const extraTools = Number(process.env.BENCH_TOOLS || 0);
const inputSchema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
};
const tools = [{ name: 'echo', description: 'Echoes the text back', inputSchema }];
for (let i = 0; i < extraTools; i++) tools.push({ name: `tool_${i}`, description: `Bench tool number ${i}`, inputSchema });
const toolNames = new Set(tools.map((t) => t.name));

function handle(message) {
  const { id, method, params } = message;
  if (id === undefined) return undefined; // notifications need no answer
  switch (method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'floor', version: '1.0.0' },
        },
      };
    case 'tools/list': {
      const start = params && params.cursor ? Number(params.cursor) : 0;
      const result = { tools: tools.slice(start, start + PAGE_SIZE) };
      if (start + PAGE_SIZE < tools.length) result.nextCursor = String(start + PAGE_SIZE);
      return { jsonrpc: '2.0', id, result };
    }
    case 'tools/call': {
      if (!toolNames.has(params.name)) {
        return { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params.name}` } };
      }
      const args = params.arguments;
      if (!args || typeof args.text !== 'string') {
        return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '"text" must be a string' }], isError: true } };
      }
      return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: args.text }] } };
    }
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} };
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

// ---------------------------------------------------------------------------------------------
// Protocol 2026-07-28 over HTTP

const MODERN = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'floor', version: '1.0.0' } };
const STATE_KEY = Buffer.from('floor-bench-request-state');
const STATE_TTL_MS = 10 * 60_000;
const CONFIRM_REQUEST = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Go ahead?',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
};
/** The open subscriptions/listen streams: response → { id, uris }. */
const listeners = new Map();

class RpcError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const complete = (text, isError) =>
  isError ? { content: [{ type: 'text', text }], isError: true, resultType: 'complete', _meta: SERVER_META } : { content: [{ type: 'text', text }], resultType: 'complete', _meta: SERVER_META };

/** What binds a requestState to its request: the params that stay the same across rounds. */
const paramsDigest = (params) => createHash('sha256').update(JSON.stringify([params.name, params.arguments])).digest('base64url');
const sign = (body) => createHmac('sha256', STATE_KEY).update(body).digest('base64url');

function sealState(method, digest) {
  const body = Buffer.from(JSON.stringify({ m: method, d: digest, e: Date.now() + STATE_TTL_MS })).toString('base64url');
  return `${body}.${sign(body)}`;
}

function stateValid(state, method, digest) {
  if (typeof state !== 'string') return false;
  const dot = state.indexOf('.');
  if (dot < 1) return false;
  const body = state.slice(0, dot);
  const given = Buffer.from(state.slice(dot + 1));
  const expected = Buffer.from(sign(body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  let payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  return payload.e > Date.now() && payload.m === method && payload.d === digest;
}

function callModern(params, capabilities) {
  switch (params.name) {
    case 'echo': {
      const args = params.arguments;
      if (!args || typeof args.text !== 'string') return complete('"text" must be a string', true);
      return complete(args.text);
    }
    case 'confirm': {
      if (!capabilities.elicitation) throw new RpcError(400, -32021, 'The client does not declare elicitation');
      const digest = paramsDigest(params);
      if (params.requestState !== undefined && !stateValid(params.requestState, 'tools/call', digest)) {
        throw new RpcError(400, -32602, 'Invalid requestState');
      }
      const answer = params.requestState === undefined ? undefined : params.inputResponses && params.inputResponses.confirm;
      if (answer === undefined) {
        return { resultType: 'input_required', inputRequests: { confirm: CONFIRM_REQUEST }, requestState: sealState('tools/call', digest), _meta: SERVER_META };
      }
      if (answer.action === 'accept') {
        if (!answer.content || typeof answer.content.ok !== 'boolean') throw new RpcError(400, -32602, 'Invalid input response: "ok" must be a boolean');
        return complete(answer.content.ok ? 'confirmed' : 'declined');
      }
      if (answer.action !== 'decline' && answer.action !== 'cancel') throw new RpcError(400, -32602, 'Invalid input response: unknown action');
      return complete('declined');
    }
    case 'touch':
      for (const [res, listener] of listeners) {
        if (!listener.uris.has('bench://info')) continue;
        const notification = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'bench://info', _meta: { [SUBSCRIPTION_ID]: listener.id } } };
        res.write(`event: message\ndata: ${JSON.stringify(notification)}\n\n`);
      }
      return complete('touched');
    default:
      throw new RpcError(400, -32602, `Unknown tool: ${params.name}`);
  }
}

function listen(id, params, res) {
  const filter = params.notifications === undefined ? {} : params.notifications;
  const uris = filter && filter.resourceSubscriptions;
  if (typeof filter !== 'object' || filter === null || (uris !== undefined && !(Array.isArray(uris) && uris.every((u) => typeof u === 'string')))) {
    throw new RpcError(400, -32602, 'subscriptions/listen: invalid "notifications"');
  }
  // The floor has no list_changed to offer: it honours resource subscriptions only.
  const honoured = uris && uris.length > 0 ? { resourceSubscriptions: [...new Set(uris)] } : {};
  const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications: honoured } };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`event: message\ndata: ${JSON.stringify(ack)}\n\n`);
  listeners.set(res, { id, uris: new Set(honoured.resourceSubscriptions) });
  res.on('close', () => listeners.delete(res));
}

/** One 2026-07-28 POST, checked as the revision asks, answered with JSON or kept open (listen). */
function handleModern(message, req, res) {
  const { id, method, params } = message;
  try {
    const meta = params._meta;
    if (meta[META_VERSION] !== MODERN) throw new RpcError(400, -32022, 'Unsupported protocol version');
    const capabilities = meta[META_CAPABILITIES];
    if (typeof capabilities !== 'object' || capabilities === null) throw new RpcError(400, -32602, 'io.modelcontextprotocol/clientCapabilities is required');
    if (req.headers['mcp-protocol-version'] !== MODERN || req.headers['mcp-method'] !== method) throw new RpcError(400, -32020, 'Header mismatch');
    if (id === undefined) {
      res.writeHead(202).end();
      return;
    }
    let result;
    switch (method) {
      case 'tools/call':
        if (req.headers['mcp-name'] !== params.name) throw new RpcError(400, -32020, 'Header mismatch: Mcp-Name');
        result = callModern(params, capabilities);
        break;
      case 'subscriptions/listen':
        listen(id, params, res);
        return;
      default:
        throw new RpcError(404, -32601, `Method not found: ${method}`);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  } catch (error) {
    const status = error instanceof RpcError ? error.status : 500;
    const code = error instanceof RpcError ? error.code : -32603;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: error instanceof RpcError ? error.message : 'Internal error' } }));
  }
}

if (process.argv.includes('--http')) {
  const http = require('node:http');
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let response;
      try {
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const meta = message.params && message.params._meta;
        if (meta && meta[META_VERSION] !== undefined) {
          handleModern(message, req, res);
          return;
        }
        response = handle(message);
      } catch {
        response = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } };
      }
      if (response === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${server.address().port}\n`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop();
    let out = '';
    for (const line of lines) {
      if (line === '') continue;
      let response;
      try {
        response = handle(JSON.parse(line));
      } catch {
        response = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      }
      if (response !== undefined) out += JSON.stringify(response) + '\n';
    }
    // One write per chunk read: everything answered in this tick leaves together.
    if (out !== '') process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
