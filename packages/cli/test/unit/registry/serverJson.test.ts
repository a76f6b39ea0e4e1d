/**
 * server.json as `typemcp registry` makes and checks it: what it is made from, and each
 * problem the vendored official schema (2025-12-11) or the registry's own rules refuse.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { checkServerJson, isExactVersion, SCHEMA_FILE } from '../../../src/registry/rules';
import { RegistryError, SERVER_SCHEMA_URL, serverJsonFor } from '../../../src/registry/serverJson';
import type { PackageManifest, ServerJson } from '../../../src/registry/serverJson';

const manifest: PackageManifest = { name: '@acme/weather-mcp', version: '1.4.0', mcpName: 'io.github.acme/weather', bin: { 'weather-mcp': 'dist/main.js' }, repository: { url: 'git+https://github.com/acme/weather.git', directory: 'servers/weather' } };
const server = {
  name: 'weather',
  version: '1.4.0',
  title: 'Weather',
  description: 'Forecasts for any city',
  websiteUrl: 'https://acme.example/weather',
  icons: [{ src: 'https://acme.example/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  environment: [
    { name: 'WEATHER_API_KEY', description: 'The key of the forecast API', isRequired: true, isSecret: true },
    { name: 'UNITS', description: 'celsius or fahrenheit', default: 'celsius' },
  ],
};
const good = (): ServerJson => serverJsonFor({ manifest, server, remotes: ['https://weather.acme.example/mcp'] });
const errorsOf = (document: unknown, against: PackageManifest = manifest) => checkServerJson(document, against).errors;

describe('the vendored schema', () => {
  it('is the official 2025-12-11 one, byte for byte as SOURCE.md records it', () => {
    const bytes = fs.readFileSync(SCHEMA_FILE);
    const schema = JSON.parse(bytes.toString('utf8'));
    expect(schema.$id).toBe(SERVER_SCHEMA_URL);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const source = fs.readFileSync(path.join(path.dirname(SCHEMA_FILE), 'SOURCE.md'), 'utf8');
    expect(source).toContain(createHash('sha256').update(bytes).digest('hex'));
  });
});

describe('serverJsonFor', () => {
  it('makes server.json from package.json and the declaration: npm package over stdio with --stdio and the environment, remotes, repository', () => {
    expect(good()).toEqual({
      $schema: SERVER_SCHEMA_URL,
      name: 'io.github.acme/weather',
      description: 'Forecasts for any city',
      title: 'Weather',
      version: '1.4.0',
      websiteUrl: 'https://acme.example/weather',
      repository: { url: 'https://github.com/acme/weather', source: 'github', subfolder: 'servers/weather' },
      icons: server.icons,
      packages: [
        {
          registryType: 'npm',
          registryBaseUrl: 'https://registry.npmjs.org',
          identifier: '@acme/weather-mcp',
          version: '1.4.0',
          transport: { type: 'stdio' },
          packageArguments: [{ type: 'positional', value: '--stdio' }],
          environmentVariables: server.environment,
        },
      ],
      remotes: [{ type: 'streamable-http', url: 'https://weather.acme.example/mcp' }],
    });
    expect(checkServerJson(good(), manifest)).toEqual({ errors: [], warnings: [] });
  });

  it('makes {parts} of a remote URL its variables, and leaves the package out when asked', () => {
    const document = serverJsonFor({ manifest, server, remotes: ['https://{tenant}.acme.example/mcp'], npmPackage: false });
    expect(document.packages).toBeUndefined();
    expect(document.remotes).toEqual([{ type: 'streamable-http', url: 'https://{tenant}.acme.example/mcp', variables: { tenant: { description: "The tenant part of the server's URL", isRequired: true } } }]);
    expect(errorsOf(document)).toEqual([]);
  });

  it('keeps only https icons: the registry refuses others, a file or data: icon stays the server\'s own', () => {
    const icons = [{ file: './icon.png' }, { src: 'data:image/png;base64,AAAA' }, { src: 'https://acme.example/dark.png', theme: 'dark' as const }];
    expect(serverJsonFor({ manifest, server: { ...server, icons } }).icons).toEqual([{ src: 'https://acme.example/dark.png', theme: 'dark' }]);
    expect(serverJsonFor({ manifest, server: { ...server, icons: [{ file: './icon.png' }] } }).icons).toBeUndefined();
  });

  it("takes package.json's description and homepage when the server declares none", () => {
    const document = serverJsonFor({ manifest: { ...manifest, description: 'From package.json', homepage: 'https://acme.example' }, server: { name: 'weather', version: '1.4.0' } });
    expect(document).toMatchObject({ description: 'From package.json', websiteUrl: 'https://acme.example' });
  });

  it.each([
    [{ ...manifest, mcpName: undefined }, /package.json has no "mcpName"/],
    [{ ...manifest, mcpName: 'io.github.your-github-user/weather' }, /still the placeholder "io.github.your-github-user\/weather": set your own namespace/],
  ])('refuses a missing or placeholder mcpName', (bad, message) => {
    expect(() => serverJsonFor({ manifest: bad, server })).toThrow(RegistryError);
    expect(() => serverJsonFor({ manifest: bad, server })).toThrow(message);
  });

  it('refuses a server without a description, and --no-package without a remote', () => {
    expect(() => serverJsonFor({ manifest, server: { name: 'weather', version: '1' } })).toThrow(/no description/);
    expect(() => serverJsonFor({ manifest, server, npmPackage: false })).toThrow(/--remote/);
  });
});

describe('checkServerJson refuses what the registry would', () => {
  const broken = (change: (document: ServerJson & Record<string, any>) => void) => {
    const document = good() as ServerJson & Record<string, any>;
    change(document);
    return errorsOf(document);
  };

  it('a name that is not package.json mcpName', () => {
    expect(broken((d) => (d.name = 'io.github.someone/weather'))).toEqual([expect.stringContaining(`name "io.github.someone/weather" is not package.json's mcpName "io.github.acme/weather"`)]);
  });

  it('a package.json without mcpName', () => {
    expect(errorsOf(good(), { ...manifest, mcpName: undefined })).toEqual([expect.stringContaining('package.json has no "mcpName"')]);
  });

  it('the placeholder namespace', () => {
    expect(errorsOf({ ...good(), name: 'io.github.your-github-user/weather' }, { ...manifest, mcpName: 'io.github.your-github-user/weather' })).toEqual([expect.stringContaining('still the placeholder')]);
  });

  it.each(['^1.4.0', '~1.4.0', '>=1.4.0', '1.x', '1.4.*', '1.4.0 - 2.0.0', '1.4.0 || 1.5.0'])('a range as the version: %s', (range) => {
    expect(broken((d) => (d.version = range))).toEqual([`version ${JSON.stringify(range)} must be one exact version (no range, not "latest")`]);
    expect(broken((d) => (d.packages![0].version = range))).toEqual(expect.arrayContaining([`packages[0].version ${JSON.stringify(range)} must be one exact version (no range, not "latest")`]));
  });

  it('latest as a package version (the schema says so too)', () => {
    const errors = broken((d) => (d.packages![0].version = 'latest'));
    expect(errors).toEqual(expect.arrayContaining(['packages[0].version "latest" must be one exact version (no range, not "latest")', 'schema: /packages/0/version must NOT be valid']));
  });

  it('a package version that is not the one package.json publishes', () => {
    expect(broken((d) => (d.packages![0].version = '1.3.9'))).toEqual([expect.stringContaining('packages[0].version "1.3.9" is not package.json\'s version "1.4.0"')]);
  });

  it('an npm package from another registry, or under another name', () => {
    expect(broken((d) => (d.packages![0].registryBaseUrl = 'https://npm.pkg.github.com'))).toEqual([expect.stringContaining('registryBaseUrl must be https://registry.npmjs.org')]);
    expect(broken((d) => (d.packages![0].identifier = 'weather-mcp'))).toEqual([expect.stringContaining('identifier "weather-mcp" is not package.json\'s name "@acme/weather-mcp"')]);
  });

  it('a description over the 100 characters the schema allows', () => {
    expect(broken((d) => (d.description = 'x'.repeat(101)))).toEqual(['schema: /description must NOT have more than 100 characters']);
    expect(broken((d) => (d.description = 'x'.repeat(100)))).toEqual([]);
  });

  it('_meta other than the publisher-provided object, or one over 4 KB', () => {
    expect(broken((d) => (d._meta = { 'io.modelcontextprotocol.registry/official': { status: 'active' } }))).toEqual([
      '_meta.io.modelcontextprotocol.registry/official: a publisher may send only _meta["io.modelcontextprotocol.registry/publisher-provided"]',
    ]);
    expect(broken((d) => (d._meta = { 'io.modelcontextprotocol.registry/publisher-provided': { build: 'abc' } }))).toEqual([]);
    expect(broken((d) => (d._meta = { 'io.modelcontextprotocol.registry/publisher-provided': { notes: 'x'.repeat(5000) } }))).toEqual([expect.stringContaining('the registry takes 4096 at most')]);
  });

  it('what the schema refuses (a missing field, a bad name, an unknown transport), another schema version, a remote over http', () => {
    expect(broken((d) => delete (d as Partial<ServerJson>).description)).toEqual(["schema: / must have required property 'description'"]);
    expect(broken((d) => (d.name = 'weather'))).toEqual(expect.arrayContaining(['schema: /name must match pattern "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"']));
    expect(broken((d) => (d.packages![0].transport = { type: 'websocket' }))).toEqual(expect.arrayContaining([expect.stringMatching(/^schema: \/packages\/0\/transport\/type must be equal to one of the allowed values/)]));
    expect(broken((d) => (d.$schema = 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json'))).toEqual([expect.stringContaining('$schema must be https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json')]);
    expect(broken((d) => (d.remotes![0].url = 'http://weather.acme.example/mcp'))).toEqual(['remotes[0].url must be an https URL, not "http://weather.acme.example/mcp"']);
  });

  it('warns when npm would refuse the package or npx could not run it', () => {
    expect(checkServerJson(good(), { ...manifest, private: true, bin: undefined }).warnings).toEqual([expect.stringContaining('"private": true'), expect.stringContaining('no "bin"')]);
  });
});

describe('isExactVersion', () => {
  it.each(['1.0.0', '2.1.0-alpha.1', '1.0.0+build.5', 'v3.2.1', '2025.12.11'])('takes %s', (version) => expect(isExactVersion(version)).toBe(true));
  it.each(['latest', '', '^1.0.0', '*', '1.x.0', '<2'])('refuses %j', (version) => expect(isExactVersion(version)).toBe(false));
});
