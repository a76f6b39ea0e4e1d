'use strict';
/**
 * Starting and stopping bench servers. Every process is started here and stopped by its PID
 * (ChildProcess.kill signals that PID); `stopAll` ends whatever is still alive when the bench
 * stops early.
 */
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');

const live = new Set();

/** What the bench servers read from their environment: set per phase, never inherited. */
const SERVER_SETTINGS = ['BENCH_TOOLS', 'BENCH_MIDDLEWARE', 'BENCH_2026', 'BENCH_MOUNT', 'BENCH_PROXY_UPSTREAM'];
/**
 * Settings of the machine that change how Node.js starts, the same for every variant, so not
 * passed on: NODE_EXTRA_CA_CERTS makes Node 20 read a certificate bundle at every start (about
 * 45 ms where it names the system bundle), a constant that would hide the differences between
 * cold starts; NODE_OPTIONS could preload anything.
 */
const MACHINE_SETTINGS = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];

function startServer(variant, { http = false, env = {}, nodeArgs = [] } = {}) {
  // variant.args: how node starts it when that is not `node <script>` (a startup snapshot).
  const args = [...nodeArgs, ...(variant.args ?? [variant.script])];
  if (http) args.push('--http');
  const inherited = { ...process.env };
  for (const name of [...SERVER_SETTINGS, ...MACHINE_SETTINGS]) delete inherited[name];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...inherited, ...env },
  });
  live.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderr = (stderr + text).slice(-4000);
  });
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  child.on('error', () => {});
  child.stdin.on('error', () => {});
  return {
    child,
    pid: child.pid,
    http,
    spawnedAt,
    exited,
    get stderr() {
      return stderr;
    },
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
  };
}

function waitOrTimeout(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * Ends stdin, then SIGTERM, then SIGKILL — each to this PID only, a bounded wait between. An
 * HTTP server does not stop at the end of its stdin: it gets SIGTERM at once.
 */
async function stopServer(server) {
  const { child } = server;
  if (!server.alive) return server.exited;
  if (!server.http) {
    child.stdin.end();
    if ((await waitOrTimeout(server.exited, 1500)) !== 'timeout') return server.exited;
  }
  child.kill('SIGTERM');
  if ((await waitOrTimeout(server.exited, 3000)) !== 'timeout') return server.exited;
  child.kill('SIGKILL');
  await waitOrTimeout(server.exited, 3000);
  return server.exited;
}

function stopAll() {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Resolves with the port an HTTP bench server prints ("LISTENING <port>"). */
function listeningPort(server, timeoutMs = 20000) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no LISTENING line within ${timeoutMs} ms; stderr: ${server.stderr}`)), timeoutMs);
    server.child.stdout.setEncoding('utf8');
    server.child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /LISTENING (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    server.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening; stderr: ${server.stderr}`));
    });
  });
}

module.exports = { MACHINE_SETTINGS, startServer, stopServer, stopAll, listeningPort };
