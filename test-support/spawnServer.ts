/**
 * Launch parameters for a TypeScript MCP server in a child process, for the SDK's
 * StdioClientTransport: `new StdioClientTransport(stdioServerParams('examples/…/server.ts'))`.
 */
import path from 'node:path';
import type { StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The require hook that compiles .ts and maps @typemcp/* onto the sources. */
export const runTsPath = path.join(__dirname, 'runTs.js');

/**
 * stderr is piped (not inherited) to keep test output clean and let tests read the server's
 * logs from `transport.stderr`; read or drain it when a server logs a lot, or it stalls once
 * the pipe buffer is full.
 */
export function stdioServerParams(entryTsFile: string, args: string[] = []): StdioServerParameters {
  return {
    command: process.execPath,
    args: ['-r', runTsPath, path.resolve(entryTsFile), ...args],
    stderr: 'pipe',
  };
}
