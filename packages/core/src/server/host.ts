import { DefinitionError } from '../errors';
import type { HttpHandlerOptions, NodeHttpHandler } from '../transports';
import type { HttpListenOptions, ListenAddress, StdioListenOptions } from './options';
import type { ServerRuntime } from './ServerRuntime';
import type { SkillFolderReader } from './skillFolders';

/**
 * What only a host with Node's modules gives (Node, and Bun and Deno through their Node
 * compatibility): listening on a port, stdio, the `(req, res)` adapter and folders on disk.
 * The Node entry of `@typemcp/core` provides it; the entry for Workers and browsers does not,
 * so nothing of it is bundled there.
 */
export interface NodeHost {
  listenHttp(server: ServerRuntime, options: HttpListenOptions): Promise<ListenAddress>;
  listenStdio(server: ServerRuntime, options: StdioListenOptions): Promise<void>;
  nodeHandler(server: ServerRuntime, options: HttpHandlerOptions): NodeHttpHandler & { close(graceMs?: number): Promise<void> };
  skillFolders: SkillFolderReader;
}

let provided: NodeHost | undefined;

/** @internal Called by the Node entry; the first host provided stays (typemcp build provides an inert one before loading the application). */
export function provideNodeHost(host: NodeHost): void {
  provided ??= host;
}

/** The Node host, or an error naming what the caller asked for and what serves instead. */
export function nodeHost(what: string): NodeHost {
  if (provided) return provided;
  throw new DefinitionError(
    'INVALID_OPTION',
    `${what} needs Node's modules (Node, Bun or Deno), which this runtime does not have; serve server.fetchHandler() from the platform's fetch entry instead`,
  );
}
