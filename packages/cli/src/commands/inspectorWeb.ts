import net from 'node:net';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** The official MCP Inspector `typemcp dev --inspect` runs, the version the docs' command lines name. */
export const INSPECTOR_VERSION = '2.12.0';
/** The Inspector needs Node >= 22.19: npx brings Node 22 along from the npm package `node@22`, as on Node 20. */
export const INSPECTOR_COMMAND = ['npx', '-y', '-p', 'node@22', '-p', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, 'mcp-inspector'];
/** npx may download Node 22 and the Inspector on a first run. */
const START_TIMEOUT_MS = 180_000;

export interface InspectorWeb {
  /** The page that opens the Inspector connected to the server: its token and a deep link that connects at once. */
  readonly url: string;
  /** Ends when the Inspector does, with its exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Starts the Inspector's web UI on a free port of this machine, for the Streamable HTTP endpoint
 * `serverUrl`. The page's URL carries the Inspector's API token and connects to the server as
 * it opens (the Inspector's `serverUrl` and `autoConnect` deep link). The Inspector runs in a
 * process group of its own (npx, then the Inspector), stopped as one.
 */
export async function startInspectorWeb(serverUrl: string, onStatus: (text: string) => void): Promise<InspectorWeb> {
  const port = await freePort();
  const token = randomBytes(32).toString('hex');
  const [command, ...args] = INSPECTOR_COMMAND;
  const child = spawn(command, [...args, '--web'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CLIENT_PORT: String(port),
      MCP_INSPECTOR_API_TOKEN: token,
      // This command prints the page to open, with the deep link the Inspector's own page lacks.
      MCP_AUTO_OPEN_ENABLED: 'false',
      // The MCP Apps sandbox on ports of the system's choosing, not fixed ones that may be taken.
      MCP_SANDBOX_PORT: '0',
      MCP_APP_ORIGIN_PORT: '0',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      npm_config_loglevel: 'error',
    },
  });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const collect = (chunk: Buffer) => (log = `${log}${chunk.toString('utf8')}`.slice(-20_000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  child.once('error', (error) => collect(Buffer.from(`${error.message}\n`)));
  onStatus(`starting the MCP Inspector ${INSPECTOR_VERSION} (${INSPECTOR_COMMAND.join(' ')}; the first run downloads it)`);

  const started = await Promise.race([
    (async () => {
      for (;;) {
        const banner = /up and running at:\s+(https?:\/\/\S+)/.exec(log);
        if (banner) return banner[1];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })(),
    exited.then((code) => new Error(`the MCP Inspector exited (code ${code}) before it started:\n${log.trim()}`)),
    new Promise<Error>((resolve) => setTimeout(() => resolve(new Error(`the MCP Inspector did not start within ${START_TIMEOUT_MS / 1000} s:\n${log.trim()}`)), START_TIMEOUT_MS).unref()),
  ]);
  const stop = () => stopGroup(child);
  if (started instanceof Error) {
    await stop();
    throw started;
  }
  const page = new URL(started);
  page.hostname = '127.0.0.1';
  page.searchParams.set('MCP_INSPECTOR_API_TOKEN', token);
  page.searchParams.set('serverUrl', serverUrl);
  page.searchParams.set('transport', 'http');
  page.searchParams.set('autoConnect', token);
  return { url: page.href, exited, stop };
}

/** TERM to the Inspector's process group, KILL after 3 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // Already gone.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
  // What of the group outlived npx.
  signal('SIGKILL');
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
