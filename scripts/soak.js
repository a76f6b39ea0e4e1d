#!/usr/bin/env node
// Soak: drives packages/core/test/reliability/soakServer.ts with many tools/call over stdio,
// then many POSTs over Streamable HTTP (one session), and prints the server's RSS and heap
// (after a full collection) as it goes. The server runs its TypeScript through the swc hook
// of test-support/runTs.js, whose compiler adds a constant to RSS; the heap is the measure. Exits 1 when the heap grew more than SOAK_MAX_GROWTH
// (default 0.25) between the first sample after warm-up and the last.
//
//   SOAK_STDIO_CALLS (default 500000)  SOAK_HTTP_REQUESTS (default 200000)  SOAK_SAMPLES (default 10)
//   SOAK_SESSIONS (default 10000): HTTP sessions opened and abandoned at the end, RSS and heap before and after
//   SOAK_LISTENERS (default 1000) subscriptions/listen streams (2026-07-28) opened, acknowledged and dropped
//   by the client, SOAK_LISTEN_CYCLES (default 50) times; heap sampled SOAK_SAMPLES times over the cycles
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'packages/core/test/reliability/soakServer.ts');
const runTs = path.join(root, 'test-support/runTs.js');
const STDIO_CALLS = Number(process.env.SOAK_STDIO_CALLS ?? 500_000);
const HTTP_REQUESTS = Number(process.env.SOAK_HTTP_REQUESTS ?? 200_000);
const SAMPLES = Number(process.env.SOAK_SAMPLES ?? 10);
const MAX_GROWTH = Number(process.env.SOAK_MAX_GROWTH ?? 0.25);
const ABANDONED_SESSIONS = Number(process.env.SOAK_SESSIONS ?? 10_000);
const LISTENERS = Number(process.env.SOAK_LISTENERS ?? 1000);
const LISTEN_CYCLES = Number(process.env.SOAK_LISTEN_CYCLES ?? 50);
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const IN_FLIGHT = 64;
const MiB = (bytes) => (bytes / 1024 / 1024).toFixed(1);

function start(args) {
  const child = spawn(process.execPath, ['--expose-gc', '-r', runTs, entry, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  return child;
}

/** Sends requests over a line-delimited pipe, keeping IN_FLIGHT outstanding. */
async function soakStdio() {
  const child = start([]);
  const waiting = new Map();
  let nextId = 1;
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    const resolve = waiting.get(message.id);
    if (resolve) {
      waiting.delete(message.id);
      resolve(message);
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const memory = async () => JSON.parse((await request('tools/call', { name: 'memory' })).result.content[0].text);
  const samples = [];
  const every = Math.max(1, Math.floor(STDIO_CALLS / SAMPLES));
  let sent = 0;
  const worker = async () => {
    while (sent < STDIO_CALLS) {
      const n = ++sent;
      const answer = await request('tools/call', { name: 'echo', arguments: { text: `call ${n}` } });
      if (!answer.result) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
      if (n % every === 0) samples.push({ calls: n, ...(await memory()) });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
  return samples;
}

async function soakHttp() {
  const child = start(['--http']);
  const url = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve));
  const post = async (body, headers = {}) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    return { response, json: await response.json().catch(() => undefined) };
  };
  const opened = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'soak', version: '1' } } });
  const headers = { 'mcp-session-id': opened.response.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-11-25' };
  await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  // Asked without a session (protocol 2026-07-28), so it works after the soak's session is evicted.
  const memory = () => modernMemory(url);
  const samples = [];
  const every = Math.max(1, Math.floor(HTTP_REQUESTS / SAMPLES));
  let sent = 0;
  const worker = async () => {
    while (sent < HTTP_REQUESTS) {
      const id = ++sent;
      const { json } = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `request ${id}` } } }, headers);
      if (!json?.result) throw new Error(`unexpected answer ${JSON.stringify(json)}`);
      if (id % every === 0) samples.push({ calls: id, ...(await memory()) });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  // Sessions opened and abandoned: the server keeps at most maxSessions (1000) of them.
  const before = await memory();
  let abandoned = 0;
  const opener = async () => {
    while (abandoned < ABANDONED_SESSIONS) {
      abandoned++;
      await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gone', version: '1' } } });
    }
  };
  await Promise.all(Array.from({ length: 16 }, opener));
  const after = await memory();
  console.log(`\n${ABANDONED_SESSIONS} abandoned sessions: RSS ${MiB(before.rss)} → ${MiB(after.rss)} MiB, heap ${MiB(before.heapUsed)} → ${MiB(after.heapUsed)} MiB`);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return samples;
}

/** The memory tool, called without a session (protocol 2026-07-28). */
async function modernMemory(url) {
  const params = { name: 'memory', _meta: MODERN_META };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'memory' };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'm', method: 'tools/call', params }) });
  return JSON.parse((await response.json()).result.content[0].text);
}

/** Listen streams opened, acknowledged and then dropped by the client, cycle after cycle. */
async function soakListen() {
  const child = start(['--http']);
  const url = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve));
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
  const listen = async (id, controller) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } });
    const response = await fetch(url, { method: 'POST', headers, body, signal: controller.signal });
    if (!response.headers.get('content-type')?.includes('text/event-stream')) throw new Error(`listen ${id}: ${response.status} ${await response.text()}`);
    // The first frame is the acknowledgement: the stream is open on the server.
    const { value } = await response.body.getReader().read();
    if (!new TextDecoder().decode(value).includes(id)) throw new Error(`listen ${id}: no acknowledgement`);
  };
  const samples = [];
  const every = Math.max(1, Math.floor(LISTEN_CYCLES / SAMPLES));
  for (let cycle = 1; cycle <= LISTEN_CYCLES; cycle++) {
    const controllers = Array.from({ length: LISTENERS }, () => new AbortController());
    await Promise.all(controllers.map((controller, i) => listen(`c${cycle}-${i}`, controller)));
    for (const controller of controllers) controller.abort();
    // Let the server see the closed connections before it is measured.
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (cycle % every === 0) samples.push({ calls: cycle * LISTENERS, ...(await modernMemory(url)) });
  }
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return samples;
}

function report(name, samples) {
  console.log(`\n${name}`);
  console.log('count       RSS MiB   heap MiB');
  samples.sort((a, b) => a.calls - b.calls);
  for (const s of samples) console.log(`${String(s.calls).padEnd(10)}  ${MiB(s.rss).padStart(7)}   ${MiB(s.heapUsed).padStart(8)}`);
  // The first sample includes warm-up (compiled code, caches); growth is measured after it.
  const first = samples[Math.min(1, samples.length - 1)];
  const last = samples[samples.length - 1];
  const growth = (last.heapUsed - first.heapUsed) / first.heapUsed;
  console.log(`heap growth after warm-up: ${(growth * 100).toFixed(1)}% (limit ${(MAX_GROWTH * 100).toFixed(0)}%)`);
  return growth <= MAX_GROWTH;
}

(async () => {
  const stdioFlat = report(`stdio: ${STDIO_CALLS} tools/call, ${IN_FLIGHT} in flight`, await soakStdio());
  const httpFlat = report(`Streamable HTTP: ${HTTP_REQUESTS} POSTs in one session, 32 concurrent`, await soakHttp());
  const listenFlat = report(`subscriptions/listen: ${LISTEN_CYCLES} × ${LISTENERS} streams opened and dropped`, await soakListen());
  process.exitCode = stdioFlat && httpFlat && listenFlat ? 0 : 1;
})().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
