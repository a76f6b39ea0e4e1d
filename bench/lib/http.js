'use strict';
/**
 * A raw Streamable HTTP load generator: `clients` concurrent loops, each POSTing one JSON-RPC
 * request at a time over a keep-alive node:http Agent, checking the status and a substring.
 */
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { PROTOCOL_VERSION } = require('./stdio');

/** The request options of a POST to /mcp; `headers` are added to (or replace) the handshake-era defaults. */
function postOptions(agent, port, body, headers) {
  return {
    host: '127.0.0.1',
    port,
    path: '/mcp',
    method: 'POST',
    agent,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'content-length': Buffer.byteLength(body),
      ...headers,
    },
  };
}

/** One POST to /mcp, read whole. */
function post(agent, port, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      postOptions(agent, port, body, headers),
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `count` operations from `clients` concurrent loops over one keep-alive Agent: `operation`
 * does one (the index counts from 1) and resolves with a problem, or undefined when it went
 * as expected. Resolves with elapsed ms, a latency per operation, and failures.
 */
async function concurrently({ clients, count, timeoutMs, what, operation }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies = new Float64Array(count);
  let issued = 0;
  let bad = 0;
  let badSample;
  const deadline = performance.now() + timeoutMs;
  const startedAt = performance.now();
  const worker = async () => {
    while (issued < count) {
      if (performance.now() > deadline) throw new Error(`${what} timed out after ${timeoutMs} ms (${issued}/${count} issued)`);
      const index = issued++;
      const t0 = performance.now();
      const problem = await operation(agent, index + 1);
      latencies[index] = performance.now() - t0;
      if (problem !== undefined) {
        bad++;
        badSample ??= problem;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, worker));
  } finally {
    agent.destroy();
  }
  return { ms: performance.now() - startedAt, latencies, bad, badSample };
}

/** `count` requests from `clients` concurrent clients; resolves with elapsed ms, latencies, failures. */
function load({ port, clients, count, bodyFor, headers, check, timeoutMs }) {
  return concurrently({
    clients,
    count,
    timeoutMs,
    what: 'HTTP load',
    operation: async (agent, n) => {
      const { status, text } = await post(agent, port, bodyFor(n), headers);
      return status === 200 && check(text) ? undefined : `${status} ${text.slice(0, 300)}`;
    },
  });
}

function echoBody(id) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`;
}

module.exports = { load, concurrently, post, postOptions, echoBody };
