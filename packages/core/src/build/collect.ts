import { SCHEMA_COLLECTOR_KEY } from '../constants';
import { elicitationSchemaFor } from '../features/elicitationSchema';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';
import { LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS } from '../protocol';
import { buildPrompt } from '../items/buildPrompt';
import { buildResource } from '../items/buildResource';
import { buildTool } from '../items/buildTool';
import type { ItemHost } from '../items/ItemHost';
import { provideNodeHost } from '../server/host';
import { ICON_COLLECTOR_KEY, provideIconReader } from '../server/iconFiles';
import { readLocalFile } from '../server/listen';
import { readSkillFolder } from '../skills/folder';
import { compileDtoValidator } from '../validation';
import type { SchemaEntry } from '../validation';

/** What a collection found: the schemas, and the classes that could not be built (with why). */
export interface CollectedSchemas {
  readonly schemas: SchemaEntry[];
  readonly skipped: Array<{ readonly what: string; readonly reason: string }>;
  /** The icon files the servers made while loading read, as data URIs by the path they gave. */
  readonly icons: Record<string, string>;
}

/**
 * Every schema the application's servers will compile, for `typemcp build`. `load` imports the
 * application (its servers may be made at module scope, or only on the first request, as on
 * Workers): what servers made while loading compile is heard as it happens; then every
 * decorated provider is built once more, and every DTO class (class-validator's and
 * @Description's), so schemas built only on demand (a DTO an elicitation asks with) are in too.
 */
export async function collectSchemas(load: () => unknown): Promise<CollectedSchemas> {
  const slots = globalThis as { [SCHEMA_COLLECTOR_KEY]?: Map<string, SchemaEntry> };
  const heard = (slots[SCHEMA_COLLECTOR_KEY] = new Map<string, SchemaEntry>());
  const icons = ((slots as { [ICON_COLLECTOR_KEY]?: Map<string, string> })[ICON_COLLECTOR_KEY] = new Map<string, string>());
  const skipped: Array<{ what: string; reason: string }> = [];
  const attempt = (what: string, build: () => unknown) => {
    const before = new Set(heard.keys());
    try {
      build();
    } catch (error) {
      // What a failed build heard is not kept: a schema the server would refuse must not get a validator.
      for (const key of heard.keys()) if (!before.has(key)) heard.delete(key);
      skipped.push({ what, reason: `not precompiled: ${error instanceof Error ? error.message : String(error)}` });
    }
  };
  provideInertHost();
  try {
    try {
      await load();
    } catch (error) {
      // An entry for another runtime (Bun.serve, Deno.serve) fails under Node after its imports
      // ran: the decorators have declared every provider, which is what is built below.
      skipped.push({ what: 'the entry', reason: `it threw while loading (${error instanceof Error ? error.message : String(error)}); its providers were built from their decorators` });
    }
    for (const provider of metadataStore.providers()) {
      for (const d of metadataStore.definitionsOf(provider, 'tool')) attempt(`${provider.name}.${d.methodName}`, () => buildTool(d, provider, SCHEMAS_ONLY));
      for (const d of metadataStore.definitionsOf(provider, 'prompt')) attempt(`${provider.name}.${d.methodName}`, () => buildPrompt(d, provider, SCHEMAS_ONLY));
      for (const d of metadataStore.definitionsOf(provider, 'resource')) attempt(`${provider.name}.${d.methodName}`, () => buildResource(d, provider, SCHEMAS_ONLY));
    }
    const versions = [LATEST_HANDSHAKE_VERSION, ...MODERN_VERSIONS];
    for (const dto of dtoClasses()) {
      // A class that is not a DTO (class-validator on something else) is skipped quietly.
      try {
        compileDtoValidator(dto);
        for (const version of versions) elicitationSchemaFor(dto, version);
      } catch {
        // not a DTO the framework can describe
      }
    }
  } finally {
    delete slots[SCHEMA_COLLECTOR_KEY];
    delete (slots as { [ICON_COLLECTOR_KEY]?: unknown })[ICON_COLLECTOR_KEY];
  }
  return { schemas: [...heard.values()], skipped, icons: Object.fromEntries(icons) };
}

/** The host of items built for their schemas alone: they are never served. */
const SCHEMAS_ONLY: ItemHost = {
  invoke: () => {
    throw new Error('typemcp build: an item built to collect its schemas is not served');
  },
  reportError: () => undefined,
  debug: false,
  access: { check: () => undefined },
  completions: new Map(),
};

/** Classes with class-validator constraints or @Description properties. */
function dtoClasses(): Constructor[] {
  const found = new Set<Constructor>(metadataStore.describedClasses());
  try {
    const { getMetadataStorage } = require('class-validator') as typeof import('class-validator');
    const storage = getMetadataStorage() as unknown as { validationMetadatas?: Map<Constructor, unknown> | Array<{ target: unknown }> };
    const metadatas = storage.validationMetadatas;
    const targets = metadatas instanceof Map ? [...metadatas.keys()] : Array.isArray(metadatas) ? metadatas.map((m) => m.target) : [];
    for (const target of targets) if (typeof target === 'function') found.add(target as Constructor);
  } catch {
    // class-validator is not installed: only @Description classes
  }
  return [...found];
}

/**
 * Servers the application starts while it loads do not serve: listening resolves at once and
 * binds nothing, stdio reads nothing. Provided before the application's own Node host, which
 * then stays unused (the first host provided wins).
 */
export function provideInertHost(): void {
  const refuse = Object.assign(
    async (_req: unknown, res: { statusCode: number; end(): void }) => {
      res.statusCode = 503;
      res.end();
    },
    { close: async () => undefined },
  );
  provideNodeHost({
    listenHttp: async (_server, options) => ({ host: options.host ?? '127.0.0.1', port: 0, url: `http://${options.host ?? '127.0.0.1'}:0${options.path ?? '/mcp'}` }),
    listenStdio: async () => undefined,
    nodeHandler: () => refuse,
    skillFolders: { read: readSkillFolder, watch: () => () => undefined },
  });
  provideIconReader(readLocalFile);
}
