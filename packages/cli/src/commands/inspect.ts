import type { JsonObject, ListedPrompt, ListedResource, ListedResourceTemplate, ListedSkill, ListedTool } from '@typemcp/client';
import { connectToEntry } from '../connect';
import type { Caller } from '../connect';
import type { Output } from '../output';

export interface Inventory {
  serverInfo: JsonObject;
  protocolVersion: string;
  capabilities: JsonObject;
  instructions?: string;
  tools: ListedTool[];
  resources: ListedResource[];
  resourceTemplates: ListedResourceTemplate[];
  prompts: ListedPrompt[];
  /** Only when the server serves skills (the `io.modelcontextprotocol/skills` extension). */
  skills?: ListedSkill[];
}

const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Everything a server offers, each list read to its end. */
export async function readInventory(entry: string, protocolVersion?: string, caller: Caller = {}): Promise<Inventory> {
  const connection = await connectToEntry(entry, protocolVersion, caller);
  try {
    const { client } = connection;
    const capabilities = client.serverCapabilities;
    return {
      serverInfo: client.serverInfo as unknown as JsonObject,
      protocolVersion: client.protocolVersion,
      capabilities,
      ...(client.instructions === undefined ? {} : { instructions: client.instructions }),
      tools: capabilities.tools ? await client.listTools() : [],
      resources: capabilities.resources ? await client.listResources() : [],
      resourceTemplates: capabilities.resources ? await client.listResourceTemplates() : [],
      prompts: capabilities.prompts ? await client.listPrompts() : [],
      ...((capabilities.extensions as JsonObject | undefined)?.[SKILLS_EXTENSION] ? { skills: await client.listSkills() } : {}),
    };
  } finally {
    await connection.close();
  }
}

export async function inspect(entry: string, json: boolean, out: Output, write: (text: string) => void, protocolVersion?: string, caller: Caller = {}): Promise<number> {
  const inventory = await readInventory(entry, protocolVersion, caller);
  write(json ? `${JSON.stringify(inventory, null, 2)}\n` : formatInventory(inventory, out));
  const hint = emptyListingHint(inventory, caller);
  if (hint) out.info(hint);
  return 0;
}

/**
 * Why a server that declares tools lists none: it hides what the caller may not use. Says who
 * the caller was and the options that name another.
 */
export function emptyListingHint(inv: Pick<Inventory, 'capabilities' | 'tools'>, caller: Caller): string | undefined {
  if (!inv.capabilities.tools || inv.tools.length > 0) return undefined;
  return `hint: the server has tools but lists none to ${callerName(caller)}: it hides those the caller may not use (@Scopes, @Roles, @Guard). ${HOW_TO_ACT_AS}`;
}

/** What to say of a call refused with -32003 (the reason and scopes are the server's `data`). */
export function accessDeniedHint(data: unknown, caller: Caller): string {
  const { reason, scopes } = (data ?? {}) as { reason?: string; scopes?: string[] };
  const needs = scopes?.length ? `; it needs the scopes ${scopes.join(', ')}` : '';
  return `hint: the server refused ${callerName(caller)}${reason ? ` (${reason})` : ''}${needs}. ${HOW_TO_ACT_AS}`;
}

const HOW_TO_ACT_AS = 'Act as a caller with --principal <subject> --scopes a,b [--roles r] (a server this command starts over stdio), or --token <bearer> / --header "Name: value" (a URL).';

function callerName(caller: Caller): string {
  if (caller.principal) return `${caller.principal.subject} (scopes: ${caller.principal.scopes.join(', ') || 'none'}${caller.principal.roles?.length ? `; roles: ${caller.principal.roles.join(', ')}` : ''})`;
  if (caller.headers) return 'the caller of these credentials';
  return 'an anonymous caller';
}

/** A readable listing: one block per kind, each item with its description and schema in brief. */
export function formatInventory(inv: Inventory, out: Pick<Output, 'bold' | 'dim'>): string {
  const lines: string[] = [];
  const info = inv.serverInfo as { name?: string; version?: string; title?: string };
  lines.push(`${out.bold(String(info.title ?? info.name))} ${info.version ?? ''} ${out.dim(`(protocol ${inv.protocolVersion})`)}`);
  if (inv.instructions) lines.push(out.dim(inv.instructions));
  const section = (title: string, rows: Array<[string, string, string[]]>) => {
    lines.push('', out.bold(`${title} (${rows.length})`));
    const width = Math.min(32, Math.max(0, ...rows.map(([name]) => name.length)));
    for (const [name, description, details] of rows) {
      lines.push(`  ${name.padEnd(width)}  ${description}`.trimEnd());
      for (const detail of details) lines.push(`  ${' '.repeat(width)}  ${out.dim(detail)}`);
    }
  };
  section(
    'Tools',
    inv.tools.map((t) => [
      t.name,
      t.title ? `${t.title}: ${t.description ?? ''}` : (t.description ?? ''),
      [
        `input: ${describeSchema(t.inputSchema)}`,
        ...(t.outputSchema ? [`output: ${describeSchema(t.outputSchema)}`] : []),
        ...(t.annotations && Object.keys(t.annotations).length ? [`annotations: ${JSON.stringify(t.annotations)}`] : []),
      ],
    ]),
  );
  const named = (r: { name: string; title?: unknown; description?: unknown }) => `${String(r.title ?? r.name)}${r.description ? `: ${String(r.description)}` : ''}`;
  section('Resources', inv.resources.map((r) => [r.uri, named(r), r.mimeType ? [r.mimeType] : []]));
  section('Resource templates', inv.resourceTemplates.map((r) => [r.uriTemplate, named(r), r.mimeType ? [r.mimeType] : []]));
  section(
    'Prompts',
    inv.prompts.map((p) => [
      p.name,
      p.title ? `${String(p.title)}: ${p.description ?? ''}` : (p.description ?? ''),
      (p.arguments ?? []).map((a) => `argument ${a.name}${a.required ? '' : '?'}${a.description ? `: ${a.description}` : ''}`),
    ]),
  );
  if (inv.skills) {
    section(
      'Skills',
      inv.skills.map((s) => [
        s.uri,
        s.frontmatter.description,
        [s.resources === 'dynamic' ? 'files: dynamic' : `files: ${s.resources.length}, ${s.resources.reduce((bytes, r) => bytes + r.size, 0)} bytes`],
      ]),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `{ title: string, days?: integer, tags?: string[] }` for an object schema. */
export function describeSchema(schema: JsonObject | undefined): string {
  const properties = (schema?.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) return '{}';
  return `{ ${names.map((name) => `${name}${required.has(name) ? '' : '?'}: ${typeName(properties[name])}`).join(', ')} }`;
}

function typeName(schema: JsonObject): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'array') return `${typeName((schema.items as JsonObject | undefined) ?? {})}[]`;
  if (schema.type === 'object') return schema.properties ? describeSchema(schema) : 'object';
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return typeof schema.type === 'string' ? schema.type : 'any';
}
