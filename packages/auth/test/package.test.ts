/**
 * @typemcp/auth as users get it: packed with @typemcp/core (each prepack builds its package),
 * installed outside the repository, and run from plain JavaScript: the plugin, its jose
 * dependency and the `@typemcp/auth/testing` entry point.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOutside } from '../../../test-support/outsideRepository';

jest.setTimeout(120_000);

const packagesDir = path.resolve(__dirname, '..', '..');
let workDir: string;
let projectDir: string;
let authFiles: string[];

const run = runOutside;

function pack(name: string, into: string): { tarball: string; files: string[] } {
  const output = run('npm', ['pack', '--json', '--pack-destination', into], path.join(packagesDir, name));
  const [packed] = JSON.parse(output.slice(output.indexOf('['), output.lastIndexOf(']') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(into, path.basename(packed.filename)), files: packed.files.map((f) => f.path) };
}

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-auth-package-'));
  const packDir = path.join(workDir, 'tarballs');
  fs.mkdirSync(packDir);
  const core = pack('core', packDir);
  const authPacked = pack('auth', packDir);
  authFiles = authPacked.files;
  projectDir = path.join(workDir, 'project');
  fs.mkdirSync(projectDir);
  fs.writeFileSync(path.join(projectDir, 'package.json'), JSON.stringify({ name: 'packed-auth-project', private: true, type: 'commonjs' }));
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', core.tarball, authPacked.tarball, 'reflect-metadata@0.2.2', 'tsyringe@4.10.0', 'class-validator@0.15.1', 'class-transformer@0.5.1'], projectDir);
  fs.copyFileSync(path.join(__dirname, 'package', 'server.js'), path.join(projectDir, 'server.js'));
});

afterAll(() => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it('ships both entry points with their declarations, and no tests', () => {
  expect(authFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js', 'dist/testing/index.d.ts']));
  expect(authFiles.filter((f) => /(^|\/)test\/|\.test\.[jt]s$|\.tsbuildinfo$/.test(f))).toEqual([]);
});

it('protects a server in a project of its own: 401 with the metadata address, the document, a token from TestIssuer accepted', () => {
  const report = JSON.parse(run(process.execPath, ['server.js'], projectDir).trim()) as {
    anonymous: { status: number; challenge: string };
    metadata: Record<string, unknown>;
    answered: { status: number; body: { result: { content: Array<{ text: string }> } } };
    url: string;
    issuer: string;
  };
  const origin = new URL(report.url).origin;
  expect(report.anonymous).toEqual({ status: 401, challenge: `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
  expect(report.metadata).toEqual({ resource: report.url, authorization_servers: [report.issuer], bearer_methods_supported: ['header'] });
  expect(report.answered.status).toBe(200);
  expect(report.answered.body.result.content[0].text).toBe('ci: notes:read');
});
