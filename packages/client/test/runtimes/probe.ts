/**
 * The client as a Bun or Deno program uses it (bundled from the package's Web entry):
 * `probe.mjs <url> <protocolVersion>` connects, lists the tools, adds a note, clears the notes
 * (an elicitation the handler accepts), and prints what it saw as one line of JSON.
 */
import { Client, StreamableHttpClientTransport } from '@typemcp/client';

declare const Deno: { args: string[] } | undefined;
declare const process: { argv: string[] } | undefined;

const args = typeof Deno !== 'undefined' ? Deno.args : process!.argv.slice(2);
const [url, protocolVersion] = args;
const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

async function main(): Promise<void> {
  const client = await Client.connect(new StreamableHttpClientTransport(url), {
    protocolVersion,
    onElicit: async () => ({ action: 'accept', content: { confirm: true } }),
  });
  const tools = (await client.listAllTools()).map((tool) => tool.name).sort();
  const added = text(await client.callTool('add_note', { title: 'From the probe', priority: 2, topic: 'bun' }));
  const cleared = text(await client.callTool('clear_notes', {}));
  console.log(JSON.stringify({ protocolVersion: client.protocolVersion, tools, added, cleared }));
  await client.close();
}

void main();
