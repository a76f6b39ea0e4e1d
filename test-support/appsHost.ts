/**
 * A real MCP Apps host for tests: a page in headless Chromium (the Debian `chromium`, driven by
 * playwright-core) that runs the official MCP client and ext-apps' AppBridge against a server,
 * and renders the app of its first UI tool in a sandbox on a second origin, under the
 * Content-Security-Policy built from the app's `_meta.ui.csp` as a host builds it.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';

const HERE = path.join(__dirname, 'appsHost');
let hostBundle: Promise<string> | undefined;

/** host.js with the MCP client and AppBridge, bundled for the browser (once per test process). */
function bundleHost(): Promise<string> {
  return (hostBundle ??= import('esbuild').then(async (esbuild) => {
    const result = await esbuild.build({ entryPoints: [path.join(HERE, 'host.js')], bundle: true, write: false, platform: 'browser', format: 'iife', target: 'es2022', logLevel: 'silent' });
    return result.outputFiles[0].text;
  }));
}

/** The sandbox's CSP from the app's `_meta.ui.csp`: only the origins it declares, no eval. */
export function cspHeader(csp: Record<string, unknown> | undefined): string {
  const origins = (list: unknown) => (Array.isArray(list) ? list.filter((o): o is string => typeof o === 'string' && /^[a-z][a-z0-9+.-]*:(\/\/[^\s;'"]+)?$/i.test(o)).join(' ') : '');
  const resources = origins(csp?.resourceDomains);
  const connect = origins(csp?.connectDomains);
  const frames = origins(csp?.frameDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `style-src 'self' 'unsafe-inline' ${resources}`.trim(),
    `img-src 'self' data: ${resources}`.trim(),
    `font-src 'self' data: ${resources}`.trim(),
    `media-src 'self' data: ${resources}`.trim(),
    `connect-src 'self' ${connect}`.trim(),
    frames ? `frame-src ${frames}` : "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export interface AppsHost {
  /** The host page for this era of the protocol. */
  pageUrl(era: 'legacy' | 'modern'): string;
  /** An origin the app did not declare: the CSP must keep the app from reaching it. */
  readonly undeclaredOrigin: string;
  close(): Promise<void>;
}

/** Serves the host page (with /mcp proxied to `mcpUrl`), the sandbox on another origin, and an undeclared origin. */
export async function startAppsHost(mcpUrl: string): Promise<AppsHost> {
  const hostJs = await bundleHost();
  const sandboxJs = fs.readFileSync(path.join(HERE, 'sandbox.js'), 'utf8');
  const target = new URL(mcpUrl);
  let sandboxOrigin = '';
  const hostServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (url.pathname === '/host.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>apps test host</title></head><body><p>host: <span id="host-status">loading</span></p><script src="/host.js"></script></body></html>`);
    } else if (url.pathname === '/host.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(hostJs);
    } else if (url.pathname === '/mcp') {
      const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => res.writeHead(502).end(String(error)));
      req.pipe(upstream);
    } else {
      res.writeHead(404).end();
    }
  });
  const sandboxServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname === '/sandbox.html') {
      let csp: Record<string, unknown> | undefined;
      try {
        csp = JSON.parse(url.searchParams.get('csp') ?? '{}') as Record<string, unknown>;
      } catch {
        csp = undefined;
      }
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': cspHeader(csp), 'cache-control': 'no-store' });
      res.end('<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}</style></head><body><script src="/sandbox.js"></script></body></html>');
    } else if (url.pathname === '/sandbox.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(sandboxJs);
    } else {
      res.writeHead(404).end();
    }
  });
  const elsewhere = http.createServer((_req, res) => res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' }).end('reached'));
  const origin = async (server: http.Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const hostOrigin = await origin(hostServer);
  sandboxOrigin = await origin(sandboxServer);
  const undeclaredOrigin = await origin(elsewhere);
  const stop = (server: http.Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    pageUrl: (era) => `${hostOrigin}/host.html?era=${era}&sandbox=${encodeURIComponent(`${sandboxOrigin}/sandbox.html`)}`,
    undeclaredOrigin,
    close: async () => {
      await Promise.all([stop(hostServer), stop(sandboxServer), stop(elsewhere)]);
    },
  };
}

/** Headless Chromium from the Debian package (or $CHROMIUM); a clear error when it is missing. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new Error(`Chromium is not installed at ${executablePath}: the browser tests (MCP Apps, sign-in) need a real browser. Install the Debian package (apt-get install chromium) or set CHROMIUM to a Chromium binary`);
  }
  const { chromium } = await import('playwright-core');
  // As root (CI containers) Chromium's own sandbox cannot start; the app still runs in its iframe
  // sandbox. No background connections: the machine's network is closed beyond 127.0.0.1.
  const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  return chromium.launch({ executablePath, headless: true, args });
}
