'use strict';
/**
 * Protocol 2026-07-28 over HTTP: request bodies and headers (no initialize, no session: every
 * POST carries its version and the client's capabilities in `_meta`, and the headers that
 * mirror the body), multi round-trip (MRTR) rounds under load, and subscriptions/listen
 * streams with the fan-out of one notification to all of them. As in http.js, answers are
 * checked with substring tests; only the requestState is cut out of the first answer.
 */
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { concurrently, post, postOptions } = require('./http');

const VERSION = '2026-07-28';
const META = `{"io.modelcontextprotocol/protocolVersion":"${VERSION}","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"typemcp-bench","version":"1.0.0"}}`;
const META_ELICITATION = `{"io.modelcontextprotocol/protocolVersion":"${VERSION}","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"typemcp-bench","version":"1.0.0"}}`;
const STATE = /"requestState":"([^"]+)"/;

/** The headers of a 2026-07-28 POST of `method` (with `name` for tools/call). */
function headersFor(method, name) {
  const headers = { 'mcp-protocol-version': VERSION, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  return headers;
}

const echoHeaders = headersFor('tools/call', 'echo');
const confirmHeaders = headersFor('tools/call', 'confirm');
const touchHeaders = headersFor('tools/call', 'touch');
const listenHeaders = headersFor('subscriptions/listen');

function echoBody(id) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":${META}}}`;
}

const isComplete = (text) => text.includes('"resultType":"complete"') && text.includes('"text":"hello"') && !text.includes('"isError":true');

/** tools/call confirm: the first round without state, the retry with the answer and the state. */
function confirmBody(id, requestState) {
  const retry = requestState === undefined ? '' : `,"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":${JSON.stringify(requestState)}`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"confirm","arguments":{}${retry},"_meta":${META_ELICITATION}}}`;
}

function touchBody(id) {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"touch","arguments":{},"_meta":${META}}}`;
}

/** One MRTR round: input_required with a requestState, then the retry answered with the result. */
async function mrtrRound(agent, port, id) {
  const first = await post(agent, port, confirmBody(id), confirmHeaders);
  const state = first.status === 200 && first.text.includes('"resultType":"input_required"') ? STATE.exec(first.text) : null;
  if (!state) return `first round: ${first.status} ${first.text.slice(0, 300)}`;
  const second = await post(agent, port, confirmBody(id, state[1]), confirmHeaders);
  if (second.status !== 200 || !second.text.includes('"resultType":"complete"') || !second.text.includes('"text":"confirmed"')) {
    return `retry: ${second.status} ${second.text.slice(0, 300)}`;
  }
  return undefined;
}

/** `count` MRTR rounds from `clients` concurrent clients; like http.load, a latency per round. */
function mrtrLoad({ port, clients, count, timeoutMs }) {
  return concurrently({ clients, count, timeoutMs, what: 'MRTR load', operation: (agent, n) => mrtrRound(agent, port, n) });
}

/**
 * Opens `count` subscriptions/listen streams subscribed to bench://info, `concurrency` at a
 * time (a burst of connections past the server's accept backlog would wait for SYN retries),
 * each on its own socket of one keep-alive Agent; resolves once every stream has received its
 * acknowledgement frame. Each stream counts the notifications/resources/updated frames it gets.
 */
async function openListeners({ port, count, concurrency = 50, timeoutMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: count, maxFreeSockets: count });
  const streams = [];
  const deadline = performance.now() + timeoutMs;
  const open = (index) =>
    new Promise((resolve, reject) => {
      const body = `{"jsonrpc":"2.0","id":"listen-${index}","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["bench://info"]},"_meta":${META}}}`;
      const stream = { index, updates: 0, onUpdate: undefined, response: undefined };
      const req = http.request(
        postOptions(agent, port, body, listenHeaders),
        (res) => {
          stream.response = res;
          if (res.statusCode !== 200 || !String(res.headers['content-type']).includes('text/event-stream')) {
            reject(new Error(`listen stream ${index}: HTTP ${res.statusCode} ${res.headers['content-type']}`));
            res.resume();
            return;
          }
          let buffered = '';
          let acknowledged = false;
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            buffered += chunk;
            let end = buffered.indexOf('\n\n');
            while (end !== -1) {
              const frame = buffered.slice(0, end);
              buffered = buffered.slice(end + 2);
              end = buffered.indexOf('\n\n');
              if (!acknowledged) {
                if (!frame.includes('"notifications/subscriptions/acknowledged"') || !frame.includes(`"listen-${index}"`)) {
                  reject(new Error(`listen stream ${index}: the first frame is not its acknowledgement: ${frame.slice(0, 300)}`));
                  return;
                }
                acknowledged = true;
                resolve(stream);
              } else if (frame.includes('"notifications/resources/updated"')) {
                stream.updates++;
                if (stream.onUpdate) stream.onUpdate(stream);
              }
            }
          });
          res.on('error', () => {});
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  try {
    let next = 0;
    const opener = async () => {
      while (next < count) {
        if (performance.now() > deadline) throw new Error(`opening listeners timed out after ${timeoutMs} ms (${streams.length}/${count} open)`);
        streams.push(await open(next++));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, opener));
  } catch (error) {
    agent.destroy();
    throw error;
  }
  return { streams, close: () => agent.destroy() };
}

/**
 * Calls the server's touch tool and resolves with the ms from sending it to the moment the
 * last of `streams` received the notification (each stream's update count reaching `expected`).
 */
function fanOut({ port, agent, streams, expected, id, timeoutMs }) {
  return new Promise((resolve, reject) => {
    let remaining = streams.length;
    let lastAt = 0;
    let answered = false;
    const timer = setTimeout(
      () => reject(new Error(`fan-out ${expected}: ${remaining}/${streams.length} listeners still waiting after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = () => {
      if (remaining === 0 && answered) {
        clearTimeout(timer);
        for (const stream of streams) stream.onUpdate = undefined;
        resolve(lastAt - sentAt);
      }
    };
    for (const stream of streams) {
      if (stream.updates >= expected) {
        reject(new Error(`listen stream ${stream.index}: ${stream.updates} notifications before fan-out ${expected}`));
        return;
      }
      stream.onUpdate = (s) => {
        if (s.updates !== expected) return;
        lastAt = performance.now();
        remaining--;
        finish();
      };
    }
    const sentAt = performance.now();
    post(agent, port, touchBody(id), touchHeaders).then(
      ({ status, text }) => {
        if (status !== 200 || !text.includes('"text":"touched"')) {
          clearTimeout(timer);
          reject(new Error(`touch answered ${status} ${text.slice(0, 300)}`));
          return;
        }
        answered = true;
        finish();
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

module.exports = { VERSION, echoBody, echoHeaders, isComplete, mrtrRound, mrtrLoad, openListeners, fanOut };
