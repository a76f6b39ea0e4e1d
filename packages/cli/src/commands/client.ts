import fs from 'node:fs';
import path from 'node:path';
import { toolsModule } from '../client/toolsModule';
import { connectToEntry } from '../connect';
import type { Caller } from '../connect';
import type { Output } from '../output';
import { emptyListingHint } from './inspect';

export interface GenerateOptions {
  /** A server entry to start with --stdio, or a Streamable HTTP URL. */
  entry: string;
  /** Where to write the module; stdout when left out. */
  outfile?: string;
  /** The protocol version to speak (`--protocol`). */
  protocol?: string;
  caller?: Caller;
}

/** The module of types for what the server lists, as `typemcp client generate` writes it. */
export async function generateToolTypes(entry: string, protocolVersion?: string, caller: Caller = {}): Promise<{ text: string; toolCount: number; hint?: string }> {
  const connection = await connectToEntry(entry, protocolVersion, caller);
  try {
    const { client } = connection;
    const capabilities = client.serverCapabilities;
    const tools = capabilities.tools ? await client.listTools() : [];
    const info = client.serverInfo as { name?: string; version?: string };
    const text = toolsModule(tools, { server: [info.name, info.version].filter(Boolean).join(' ') || undefined });
    return { text, toolCount: tools.length, hint: emptyListingHint({ capabilities, tools }, caller) };
  } finally {
    await connection.close();
  }
}

/** `typemcp client generate`: writes the module to the file, or to stdout. */
export async function clientGenerate(options: GenerateOptions, out: Output, write: (text: string) => void): Promise<number> {
  const { text, toolCount, hint } = await generateToolTypes(options.entry, options.protocol, options.caller);
  if (hint) out.info(hint);
  if (!options.outfile) {
    write(text);
    return 0;
  }
  fs.mkdirSync(path.dirname(path.resolve(options.outfile)), { recursive: true });
  fs.writeFileSync(options.outfile, text);
  out.info(`wrote the types of ${toolCount} tool${toolCount === 1 ? '' : 's'} to ${options.outfile}`);
  return 0;
}
