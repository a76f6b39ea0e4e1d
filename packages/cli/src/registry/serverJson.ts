/** `server.json`, as the MCP Registry's schema 2025-12-11 describes it, made from one declaration. */

export const SERVER_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const NPM_REGISTRY = 'https://registry.npmjs.org';
/** The only `_meta` key a publisher may send; the registry adds its own beside it. */
export const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';
/**
 * The namespace `npm create typemcp` writes when given no `--mcp-name`: a name that cannot be
 * published, refused by `registry init` and `registry validate` until the author sets theirs.
 */
export const PLACEHOLDER_NAMESPACE = 'io.github.your-github-user';

/** The fields of package.json that `server.json` is made from and checked against. */
export interface PackageManifest {
  name?: string;
  version?: string;
  description?: string;
  homepage?: string;
  mcpName?: string;
  private?: boolean;
  bin?: string | Record<string, string>;
  repository?: string | { url?: string; directory?: string };
}

/** What a server declares of itself (`ServerDeclaration` of @typemcp/core). */
export interface DeclaredServer {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Array<{ src?: string; file?: string; mimeType?: string; sizes?: string[]; theme?: 'light' | 'dark' }>;
  environment?: Array<{ name: string; description?: string; isRequired?: boolean; isSecret?: boolean; default?: string }>;
}

/** A server's entry in the MCP Registry (`server.json`), as `serverJsonFor` writes it. */
export interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  title?: string;
  version: string;
  websiteUrl?: string;
  repository?: { url: string; source: string; subfolder?: string };
  icons?: DeclaredServer['icons'];
  packages?: Array<Record<string, unknown>>;
  remotes?: Array<Record<string, unknown>>;
  _meta?: Record<string, unknown>;
}

/**
 * What `serverJsonFor` makes `server.json` of: package.json, the server's declaration, and
 * where it runs.
 */
export interface ServerJsonInput {
  manifest: PackageManifest;
  server: DeclaredServer;
  /** URLs where the server is deployed (Streamable HTTP); `{name}` parts become variables. */
  remotes?: readonly string[];
  /** Describe the npm package (run over stdio with `--stdio`). Default true. */
  npmPackage?: boolean;
}

/** Why `server.json` cannot be made; the message says what to change. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

/**
 * `server.json` from package.json and the server's own declaration: the name from `mcpName`, the
 * version from package.json (what npm publishes), the title, description, website and https
 * icons from the server (the description, website and repository fall back to package.json's), the
 * npm package run with `--stdio` over stdio with the server's environment variables, and the
 * remotes given.
 */
export function serverJsonFor({ manifest, server, remotes = [], npmPackage = true }: ServerJsonInput): ServerJson {
  const problem = mcpNameProblem(manifest);
  if (problem) throw new RegistryError(problem);
  const name = manifest.mcpName as string;
  if (!manifest.version) throw new RegistryError('package.json has no "version"');
  if (npmPackage && !manifest.name) throw new RegistryError('package.json has no "name": the npm package is published under it');
  const description = server.description ?? manifest.description;
  if (!description) throw new RegistryError('no description: give the server one (new McpServer({ description })) or package.json a "description"; the registry requires it (100 characters at most)');
  if (!npmPackage && remotes.length === 0) throw new RegistryError('with --no-package, give the URL the server is deployed at: --remote https://…');
  const websiteUrl = server.websiteUrl ?? manifest.homepage;
  const repository = repositoryOf(manifest.repository);
  const environmentVariables = (server.environment ?? []).map((variable) => defined({ ...variable }));
  // The registry takes https icons only: a file's or a data: URI's icon stays the server's own.
  const icons = (server.icons ?? []).filter((icon) => icon.src?.startsWith('https://')).map(({ src, mimeType, sizes, theme }) => defined({ src, mimeType, sizes, theme }));
  return defined({
    $schema: SERVER_SCHEMA_URL,
    name,
    description,
    title: server.title,
    version: manifest.version,
    websiteUrl,
    repository,
    icons: icons.length ? icons : undefined,
    packages: npmPackage
      ? [
          defined({
            registryType: 'npm',
            registryBaseUrl: NPM_REGISTRY,
            identifier: manifest.name,
            version: manifest.version,
            transport: { type: 'stdio' },
            // A TypeMCP entry serves stdio when started with --stdio, whatever its default.
            packageArguments: [{ type: 'positional', value: '--stdio' }],
            environmentVariables: environmentVariables.length ? environmentVariables : undefined,
          }),
        ]
      : undefined,
    remotes: remotes.length ? remotes.map(remoteFor) : undefined,
  }) as ServerJson;
}

/** Why package.json's `mcpName` cannot be the server's name (missing, a placeholder), if it cannot. */
export function mcpNameProblem(manifest: PackageManifest): string | undefined {
  if (!manifest.mcpName) return 'package.json has no "mcpName": add "mcpName": "io.github.<your GitHub user>/<server>" (or a reverse domain you own, "com.example/<server>"); the registry checks the npm package carries it';
  if (manifest.mcpName.split('/')[0] === PLACEHOLDER_NAMESPACE) return placeholderMessage(manifest.mcpName);
  return undefined;
}

export function placeholderMessage(name: string): string {
  return `"mcpName" is still the placeholder ${JSON.stringify(name)}: set your own namespace in package.json, io.github.<your GitHub user>/<server> (what mcp-publisher login github proves) or a reverse domain you own (com.example/<server>, proved by DNS or HTTP)`;
}

function remoteFor(url: string): Record<string, unknown> {
  const names = [...url.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]);
  const variables = Object.fromEntries(names.map((variable) => [variable, { description: `The ${variable} part of the server's URL`, isRequired: true }]));
  return defined({ type: 'streamable-http', url, variables: names.length ? variables : undefined });
}

/** package.json's `repository` as the registry wants it: a browsable URL and its host. */
function repositoryOf(repository: PackageManifest['repository']): ServerJson['repository'] | undefined {
  const raw = typeof repository === 'string' ? repository : repository?.url;
  if (!raw) return undefined;
  const shorthand = /^(?:(github|gitlab|bitbucket):)?([\w.-]+\/[\w.-]+)$/.exec(raw);
  const url = shorthand
    ? `https://${shorthand[1] === 'gitlab' ? 'gitlab.com' : shorthand[1] === 'bitbucket' ? 'bitbucket.org' : 'github.com'}/${shorthand[2]}`
    : raw.replace(/^git\+/, '').replace(/^git:\/\//, 'https://').replace(/^ssh:\/\/git@/, 'https://').replace(/\.git$/, '');
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const source = host === 'github.com' ? 'github' : host === 'gitlab.com' ? 'gitlab' : host;
  const subfolder = typeof repository === 'object' ? repository.directory : undefined;
  return defined({ url, source, subfolder });
}

/** The object without its undefined fields, so they are not written. */
function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
