import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { StdioTransport } from '@typemcp/core';
import { TestClient } from '@typemcp/testing';
import { launchFor, start } from './launch';

/** A client talking to a server entry started with --stdio. */
export interface ServerConnection {
  client: TestClient;
  close(): Promise<void>;
}

/**
 * Starts `entry --stdio` and connects to it: the `initialize` handshake at the newest
 * handshake-era version, or with `protocolVersion` (e.g. 2026-07-28, which has none).
 */
export async function connectToEntry(entry: string, protocolVersion?: string): Promise<ServerConnection> {
  const child = start(launchFor(entry, ['--stdio']), ['pipe', 'pipe', 'pipe']);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const transport = new StdioTransport({ input: child.stdout!, output: child.stdin!, guardStdout: false });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let client: TestClient;
  try {
    client = await TestClient.connect(transport, { clientInfo: { name: 'typemcp-cli', version: '0' }, schemaCheck: false, ...(protocolVersion ? { protocolVersion } : {}) });
  } catch (error) {
    // A server that died says why on stderr: that beats "connection closed".
    const exit = await Promise.race([exited, delay(1000).then(() => undefined)]);
    if (!exit) {
      await stop(child, exited);
      throw error;
    }
    const [code, signal] = exit;
    throw new Error(`the server exited (${signal ?? `code ${code}`}) before answering${stderr ? `:\n${stderr.trimEnd()}` : ''}`);
  }
  return {
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await stop(child, exited);
    },
  };
}

/** Ends the child: its stdin is closed already; TERM after a grace period, KILL after another. */
async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  await Promise.race([exited, delay(2000)]);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await Promise.race([exited, delay(2000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
