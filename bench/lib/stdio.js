'use strict';
/**
 * A raw stdio MCP client: writes JSON-RPC lines to the server's stdin and reads lines from its
 * stdout. Responses to measured calls are matched by their numeric id with a regular
 * expression and checked with a substring test, not parsed, so the client adds as little as
 * possible; control requests (initialize, tools/list) are parsed with JSON.parse.
 */
const { performance } = require('node:perf_hooks');

const ID = /"id":(\d+)/;
const PROTOCOL_VERSION = '2025-06-18';

class StdioClient {
  constructor(server) {
    this.server = server;
    this.stdin = server.child.stdin;
    this.nextId = 1;
    this.pending = new Map(); // id -> { resolve, sentAt }
    this.pump = undefined;
    this.buffered = '';
    server.child.stdout.setEncoding('utf8');
    server.child.stdout.on('data', (chunk) => this.onData(chunk));
    server.exited.then(({ code, signal }) => {
      const error = new Error(`server exited (${code ?? signal}); stderr: ${server.stderr}`);
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
      if (this.pump) this.pump.fail(error);
    });
  }

  onData(chunk) {
    let text = this.buffered + chunk;
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      const line = text.slice(start, newline);
      start = newline + 1;
      newline = text.indexOf('\n', start);
      const match = ID.exec(line);
      if (!match) continue; // a notification
      const id = Number(match[1]);
      if (this.pump && this.pump.take(id, line)) continue;
      const waiter = this.pending.get(id);
      if (waiter) {
        this.pending.delete(id);
        waiter.resolve({ line, ms: performance.now() - waiter.sentAt });
      }
    }
    this.buffered = text.slice(start);
    if (this.pump) this.pump.refill();
  }

  /** Sends one request; resolves with its raw response line and round-trip time. */
  request(method, params) {
    const id = this.nextId++;
    const message = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, sentAt: performance.now() });
      this.stdin.write(JSON.stringify(message) + '\n');
    });
  }

  notify(method) {
    this.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
  }

  /** initialize + notifications/initialized; returns the ms from spawn to the initialize response. */
  async initialize() {
    const response = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'typemcp-bench', version: '1.0.0' },
    });
    const receivedAt = performance.now();
    const parsed = JSON.parse(response.line);
    if (!parsed.result) throw new Error(`initialize failed: ${response.line}`);
    this.notify('notifications/initialized');
    return receivedAt - this.server.spawnedAt;
  }

  /**
   * Sends `count` requests made by `lineFor(id)`, keeping `inFlight` outstanding (refilled after
   * each chunk of responses, in one write). `check(line)` says whether a response is as expected.
   * Resolves with the elapsed ms, per-request latencies and the number of unexpected responses.
   */
  run({ count, inFlight, lineFor, check, timeoutMs }) {
    return new Promise((resolve, reject) => {
      const base = this.nextId;
      this.nextId += count;
      const sentAt = new Float64Array(count);
      const latencies = new Float64Array(count);
      let sent = 0;
      let done = 0;
      let bad = 0;
      let badSample;
      let finished = false;
      const stdin = this.stdin;
      const send = (n) => {
        let text = '';
        const now = performance.now();
        for (let k = 0; k < n && sent < count; k++, sent++) {
          sentAt[sent] = now;
          text += lineFor(base + sent) + '\n';
        }
        if (text !== '') stdin.write(text);
      };
      const timer = setTimeout(() => fail(new Error(`timed out after ${timeoutMs} ms with ${done}/${count} answered`)), timeoutMs);
      const end = () => {
        finished = true;
        clearTimeout(timer);
        this.pump = undefined;
      };
      const fail = (error) => {
        if (finished) return;
        end();
        reject(error);
      };
      const startedAt = performance.now();
      this.pump = {
        take: (id, line) => {
          const index = id - base;
          if (index < 0 || index >= count) return false;
          latencies[index] = performance.now() - sentAt[index];
          done++;
          if (!check(line)) {
            bad++;
            badSample ??= line.slice(0, 300);
          }
          return true;
        },
        refill: () => {
          if (finished) return;
          if (done === count) {
            end();
            resolve({ ms: performance.now() - startedAt, latencies, bad, badSample });
            return;
          }
          const room = inFlight - (sent - done);
          if (room > 0 && sent < count) send(room);
        },
        fail,
      };
      send(inFlight);
    });
  }
}

/** The request line of tools/call echo with the given arguments JSON. */
function callLine(argumentsJson, tool = 'echo') {
  const tail = `,"method":"tools/call","params":{"name":"${tool}","arguments":${argumentsJson}}}`;
  return (id) => `{"jsonrpc":"2.0","id":${id}${tail}`;
}

const isSuccess = (line) => line.includes('"result"') && !line.includes('"isError":true');
const isToolError = (line) => line.includes('"isError":true');

module.exports = { StdioClient, callLine, isSuccess, isToolError, PROTOCOL_VERSION };
