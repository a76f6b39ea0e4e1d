import { McpRequestError } from '@typemcp/client';
import type { ContentBlock, JsonObject } from '@typemcp/client';
import { connectToEntry } from '../connect';
import type { Caller } from '../connect';
import { accessDeniedHint } from './inspect';
import type { Output } from '../output';
import { UsageError } from '../UsageError';

/** Parses --args: a JSON object, or a usage error that quotes the parser. */
export function parseToolArguments(text: string | undefined): JsonObject | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--args must be a JSON object, e.g. \'{"city":"Paris"}\'');
  return value as JsonObject;
}

/** The code of a refusal by the access rules. */
const ACCESS_DENIED = -32003;

/** Calls one tool; exit code 1 when the result is an error or the call fails. */
export async function call(entry: string, tool: string, args: JsonObject | undefined, json: boolean, out: Output, write: (text: string) => void, protocolVersion?: string, caller: Caller = {}): Promise<number> {
  const connection = await connectToEntry(entry, protocolVersion, caller);
  try {
    const result = await connection.client.callTool(tool, args);
    write(json ? `${JSON.stringify(result, null, 2)}\n` : formatContent(result.content));
    if (result.isError) {
      out.error(`${tool} returned an error result`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (!(error instanceof McpRequestError)) throw error;
    out.error(`${error.message}`);
    if (error.code === ACCESS_DENIED) out.info(accessDeniedHint(error.data, caller));
    return 1;
  } finally {
    await connection.close();
  }
}

function formatContent(content: ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? `${block.text}\n` : `${JSON.stringify(block)}\n`)).join('');
}
