/**
 * The client the official conformance suite drives in its `client` mode
 * (scripts/conformance-client.sh): `client.ts <server URL>`, the scenario in
 * MCP_CONFORMANCE_SCENARIO and the revision in MCP_CONFORMANCE_PROTOCOL_VERSION. It does what
 * an application would: connects at that revision, lists and uses everything the server
 * offers (each tool called with arguments made from its schema, each resource read, each
 * prompt got), answering elicitation with the form's defaults, sampling with a fixed answer
 * and roots with one root. A few scenarios ask for one thing more, said below.
 */
import { Client, McpRequestError, StreamableHttpClientTransport } from '@typemcp/client';
import type { ElicitationRequestParams, JsonObject, ListedTool } from '@typemcp/client';

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || 'auto';

/** A value for a schema: its default, else one of its type. */
function sample(schema: JsonObject | undefined, name: string): unknown {
  if (!schema) return 'test-value';
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'object':
      return {};
    case 'array':
      return [];
    default:
      return SPECIAL_STRINGS[name] ?? 'test-value';
  }
}

/** Strings that need care in a header (http-custom-headers mirrors them in Mcp-Param-*). */
const SPECIAL_STRINGS: Record<string, string> = {
  non_ascii_val: 'héllo wörld',
  whitespace_val: '  padded  ',
  leading_space_val: ' leading',
  trailing_space_val: 'trailing ',
  internal_space_val: 'in ter nal',
  control_char_val: 'bell\u0007here',
  crlf_val: 'line\r\nbreak',
  tab_val: '\ttabbed',
  empty_val: '',
  method_val: 'GET',
};

/** Arguments for a tool: its required properties, or every property when `all`. */
function argumentsFor(tool: ListedTool, all: boolean): JsonObject {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const args: JsonObject = {};
  for (const [name, schema] of Object.entries(properties)) if (all || required.has(name)) args[name] = sample(schema, name);
  return args;
}

/** Accepts a form with its defaults (SEP-1034), and a value of its type where it has none. */
async function elicit(params: ElicitationRequestParams) {
  const properties = (params.requestedSchema?.properties ?? {}) as Record<string, JsonObject>;
  const content: JsonObject = {};
  for (const [name, schema] of Object.entries(properties)) content[name] = sample(schema, name);
  return { action: 'accept' as const, content };
}

/** A request the server refuses (a method it lacks, a tool that fails) is logged, and the client goes on. */
async function attempt(what: string, request: () => Promise<unknown>): Promise<void> {
  try {
    await request();
  } catch (error) {
    if (!(error instanceof McpRequestError)) throw error;
    console.error(`${what}: ${error.message}`);
  }
}

async function main(): Promise<void> {
  const client = await Client.connect(new StreamableHttpClientTransport(url), {
    protocolVersion,
    clientInfo: { name: 'typemcp-conformance-client', version: '0.1.0' },
    onElicit: elicit,
    onSample: async () => ({ role: 'assistant', content: { type: 'text', text: 'A sampled answer' }, model: 'conformance-model', stopReason: 'endTurn' }),
    onRoots: [{ uri: 'file:///tmp/conformance', name: 'conformance' }],
  });
  try {
    const capabilities = client.serverCapabilities;
    const tools = capabilities.tools ? await client.listAllTools() : [];
    const echo = tools.find((tool) => tool.name === 'json_schema_echo');
    if (echo) {
      // json-schema-2020-12-preservation: the other tool's schema, sent back as it came.
      const focal = tools.find((tool) => tool !== echo);
      await attempt(echo.name, () => client.callTool(echo.name, { schema: focal?.inputSchema ?? {} }));
    } else {
      for (const tool of tools) await attempt(tool.name, () => client.callTool(tool.name, argumentsFor(tool, scenario === 'http-custom-headers' && !tool.name.endsWith('_null'))));
    }
    if (capabilities.resources) for (const resource of await client.listAllResources()) await attempt(resource.uri, () => client.readResource(resource.uri));
    if (capabilities.prompts) {
      for (const prompt of await client.listAllPrompts()) {
        const args = Object.fromEntries((prompt.arguments ?? []).map((argument) => [argument.name, 'test-value']));
        await attempt(prompt.name, () => client.getPrompt(prompt.name, args));
      }
    }
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
