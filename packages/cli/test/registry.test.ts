/**
 * `typemcp registry init` and `validate` as users run them (the compiled command): the
 * server.json of the project template and of two examples, made from their package.json and
 * their servers' declarations, passes the vendored official schema and the registry's rules;
 * a placeholder mcpName, an existing file and a broken server.json are refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { declaredServers } from '../src/commands/registry';
import { checkServerJson } from '../src/registry/rules';
import { serverJsonFor } from '../src/registry/serverJson';
import { repoRoot, runCli } from './support';

const example = (name: string) => path.join(repoRoot, 'examples', name);
const template = path.join(repoRoot, 'templates', 'default');
let out: string;

beforeAll(() => {
  // The command, and the compiled entries it loads.
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', 'packages/cli', 'examples/01-weather', 'examples/09-signin', 'templates/default'], { cwd: repoRoot, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building failed:\n${built.stdout}${built.stderr}`);
}, 120_000);
beforeEach(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-registry-'));
});
afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
const manifestOf = (dir: string) => read(path.join(dir, 'package.json'));

describe('typemcp registry init', () => {
  it("writes the weather example's server.json: its npm package over stdio, named by mcpName, described by its server", () => {
    const file = path.join(out, 'server.json');
    const init = runCli(['registry', 'init', '--output', file], example('01-weather'));
    expect(init.stderr).toContain('wrote');
    expect(init.status).toBe(0);
    expect(read(file)).toMatchObject({
      name: 'io.github.typemcp/weather',
      title: 'Weather',
      description: 'Simulated forecasts and temperature conversion; works offline',
      version: '0.1.0',
      packages: [{ registryType: 'npm', registryBaseUrl: 'https://registry.npmjs.org', identifier: '@typemcp/example-weather', version: '0.1.0', transport: { type: 'stdio' }, packageArguments: [{ type: 'positional', value: '--stdio' }] }],
    });
    expect(checkServerJson(read(file), manifestOf(example('01-weather'))).errors).toEqual([]);
    const validate = runCli(['registry', 'validate', file], example('01-weather'));
    expect(validate.stderr).toContain('valid');
    expect(validate.status).toBe(0);
  });

  it("writes the sign-in example's server.json for its deployment alone: --no-package and a remote", () => {
    const file = path.join(out, 'server.json');
    const init = runCli(['registry', 'init', '--no-package', '--remote', 'https://notes.example.com/mcp', '--output', file], example('09-signin'));
    expect(init.status).toBe(0);
    // Its server declares 1.0.0: server.json takes what npm publishes, and says so.
    expect(init.stderr).toContain('the server declares version 1.0.0');
    expect(read(file)).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.typemcp/signin-notes',
      description: manifestOf(example('09-signin')).description,
      version: '0.1.0',
      remotes: [{ type: 'streamable-http', url: 'https://notes.example.com/mcp' }],
    });
    expect(runCli(['registry', 'validate', file], example('09-signin')).status).toBe(0);
  });

  it("the template's server.json is what init makes of the template, and passes once mcpName is set", () => {
    const servers = declaredServers(path.join(template, 'dist', 'main.js'), template);
    if (!servers.ok) throw new Error(servers.report);
    expect(servers.servers).toMatchObject([{ name: 'typemcp-template-default' }]);
    const manifest = { ...manifestOf(template), mcpName: 'io.github.someone/typemcp-template-default' };
    const made = serverJsonFor({ manifest, server: servers.servers[0] });
    const shipped = read(path.join(template, 'server.json'));
    expect({ ...made, name: shipped.name }).toEqual(shipped);
    expect(checkServerJson(made, manifest).errors).toEqual([]);
  });

  it('refuses the placeholder mcpName the template ships, before loading anything', () => {
    const init = runCli(['registry', 'init', '--output', path.join(out, 'server.json')], template);
    expect(init.status).toBe(1);
    expect(init.stderr).toContain('"mcpName" is still the placeholder "io.github.your-github-user/typemcp-template-default"');
    expect(fs.existsSync(path.join(out, 'server.json'))).toBe(false);
    const validate = runCli(['registry', 'validate'], template);
    expect(validate.status).toBe(1);
    expect(validate.stderr).toContain('still the placeholder');
  });

  it('keeps an existing server.json unless --force, and takes usage errors as 2', () => {
    const file = path.join(out, 'server.json');
    fs.writeFileSync(file, '{}');
    const kept = runCli(['registry', 'init', '--output', file], example('01-weather'));
    expect(kept.status).toBe(1);
    expect(kept.stderr).toContain('exists; run with --force');
    expect(runCli(['registry', 'init', '--output', file, '--force'], example('01-weather')).status).toBe(0);
    expect(runCli(['registry', 'init', '--remote', 'http://plain.example/mcp', '--output', file, '--force'], example('01-weather')).status).toBe(2);
    expect(runCli(['registry', 'publish'], example('01-weather')).stderr).toContain('unknown registry action "publish"');
    expect(runCli(['registry', 'validate', '--force'], example('01-weather')).status).toBe(2);
  });
});

describe('typemcp registry validate', () => {
  it('refuses a broken server.json, naming each problem, with exit code 1', () => {
    const file = path.join(out, 'server.json');
    expect(runCli(['registry', 'init', '--output', file], example('01-weather')).status).toBe(0);
    const document = read(file);
    document.name = 'io.github.typemcp/other';
    document.description = 'x'.repeat(101);
    document.packages[0].version = '^0.1.0';
    document.packages[0].registryBaseUrl = 'https://npm.pkg.github.com';
    document._meta = { 'com.example/mine': {} };
    fs.writeFileSync(file, JSON.stringify(document));
    const validate = runCli(['registry', 'validate', file], example('01-weather'));
    expect(validate.status).toBe(1);
    for (const problem of ['is not package.json\'s mcpName', '/description must NOT have more than 100 characters', 'packages[0].version "^0.1.0" must be one exact version', 'registryBaseUrl must be https://registry.npmjs.org', '_meta.com.example/mine']) {
      expect(validate.stderr).toContain(problem);
    }
    fs.writeFileSync(file, '{ not json');
    expect(runCli(['registry', 'validate', file], example('01-weather')).stderr).toContain('is not JSON');
    expect(runCli(['registry', 'validate', path.join(out, 'missing.json')], example('01-weather')).stderr).toContain('write it with typemcp registry init');
  });
});
